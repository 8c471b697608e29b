/* Paths into a result envelope, the small language lesson claims use
 * (lessons/README.md, "claims.json"): `metrics.step_ms`,
 * `series[id=gpu].points[x=64].y`, `findings[0]`, `@pinned.metrics.step_ms`.
 * A key is [A-Za-z0-9_-]+; `[N]` indexes an array (negative from the end);
 * `[key=value]` takes the first element whose member equals value (a
 * number, compared numerically, or text); a `$` stands for the value of the
 * condition's `each` list and is replaced before the path is read. A
 * series point is a pair [x, y]: `.x` and `.y` name its parts. The lesson
 * compiler checks them (tools/lesson_claims.c), claimcheck and `gpulab
 * compare` read them (claim_eval.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "claim_path.h"

#define PATH_MAX_LEN 200

static int is_key_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

int lab_claim_path_run(const char *path, char *run, size_t cap, const char **rest) {
  run[0] = '\0';
  *rest = path;
  if (path[0] != '@') return 0;
  const char *dot = strchr(path, '.');
  size_t n = dot ? (size_t)(dot - path - 1) : 0;
  if (!dot || n == 0 || n >= cap) return -1;
  for (size_t i = 1; i <= n; i++)
    if (!(islower((unsigned char)path[i]) || isdigit((unsigned char)path[i]) || path[i] == '_')) return -1;
  memcpy(run, path + 1, n);
  run[n] = '\0';
  *rest = dot + 1;
  return 0;
}

/* Replaces every `$` by the number each_value. Returns -1 when too long. */
static int substitute(const char *path, double each_value, char *out, size_t cap) {
  size_t o = 0;
  for (const char *p = path; *p; p++) {
    char num[32];
    const char *piece = p;
    size_t n = 1;
    if (*p == '$') {
      snprintf(num, sizeof num, "%.17g", each_value);
      piece = num;
      n = strlen(num);
    }
    if (o + n + 1 > cap) return -1;
    memcpy(out + o, piece, n);
    o += n;
  }
  out[o] = '\0';
  return 0;
}

/* A member by name; a point [x, y] of a series answers to "x" and "y". */
static const cJSON *member(const cJSON *at, const char *key) {
  if (cJSON_IsArray(at) && cJSON_GetArraySize(at) == 2 && (!strcmp(key, "x") || !strcmp(key, "y")))
    return cJSON_GetArrayItem(at, key[0] == 'y');
  return cJSON_IsObject(at) ? cJSON_GetObjectItemCaseSensitive(at, key) : NULL;
}

static int matches(const cJSON *item, const char *key, const char *val) {
  const cJSON *m = member(item, key);
  if (!m) return 0;
  char *end;
  double v = strtod(val, &end);
  if (*val && !*end && cJSON_IsNumber(m)) return fabs(m->valuedouble - v) <= 1e-9 * fmax(1.0, fabs(v));
  return cJSON_IsString(m) && strcmp(m->valuestring, val) == 0;
}

/* One walk for both jobs: with root NULL only the syntax is checked. */
static const cJSON *walk(const cJSON *root, const char *path, char *why, size_t n) {
  const cJSON *at = root;
  const char *p = path;
  char part[PATH_MAX_LEN + 1];
  if (!is_key_char(*p)) {
    snprintf(why, n, "a path starts with a key (metrics, series, findings, details…), not '%c'", *p ? *p : ' ');
    return NULL;
  }
  while (*p) {
    if (*p == '.' || p == path) {
      if (*p == '.') p++;
      size_t k = 0;
      while (is_key_char(p[k])) k++;
      if (k == 0) {
        snprintf(why, n, "after '%.*s' a key must follow the '.'", (int)(p - path - 1), path);
        return NULL;
      }
      if (k > PATH_MAX_LEN) {
        snprintf(why, n, "a key has at most %d characters", PATH_MAX_LEN);
        return NULL;
      }
      memcpy(part, p, k);
      part[k] = '\0';
      p += k;
      if (root) {
        const cJSON *next = member(at, part);
        if (!next) {
          snprintf(why, n, "the result has no '%s' at '%.*s'", part, (int)(p - path), path);
          return NULL;
        }
        at = next;
      }
    } else if (*p == '[') {
      const char *close = strchr(p, ']');
      size_t k = close ? (size_t)(close - p - 1) : 0;
      if (!close || k == 0 || k > PATH_MAX_LEN) {
        snprintf(why, n, "'[' at '%.*s' needs a closing ']' with an index or key=value inside", (int)(p - path + 1),
                 path);
        return NULL;
      }
      memcpy(part, p + 1, k);
      part[k] = '\0';
      p = close + 1;
      if (strchr(part, '[')) {
        snprintf(why, n, "'[%s]' holds another '[': close each selector with ']' before the next", part);
        return NULL;
      }
      char *eq = strchr(part, '='), *end;
      long idx = eq ? 0 : strtol(part, &end, 10);
      if (!eq && *end) {
        snprintf(why, n, "'[%s]' is neither an index nor key=value", part);
        return NULL;
      }
      if (eq) {
        *eq = '\0';
        int key_ok = part[0] != '\0';
        for (const char *c = part; *c; c++) key_ok = key_ok && is_key_char(*c);
        if (!key_ok || !eq[1]) {
          snprintf(why, n, "'[%s…]' must be [key=value] with a key of letters, digits, '_' or '-'", part);
          return NULL;
        }
      }
      if (root) {
        const cJSON *next = NULL;
        if (!cJSON_IsArray(at)) {
          snprintf(why, n, "'%.*s' is not a list, so '[…]' cannot select in it", (int)(p - path - k - 2), path);
          return NULL;
        }
        int size = cJSON_GetArraySize(at);
        if (!eq) {
          next = idx >= 0 ? cJSON_GetArrayItem(at, (int)idx) : idx >= -size ? cJSON_GetArrayItem(at, size + (int)idx) : NULL;
        } else {
          const cJSON *e;
          cJSON_ArrayForEach(e, at) {
            if (matches(e, part, eq + 1)) {
              next = e;
              break;
            }
          }
        }
        if (!next) {
          snprintf(why, n, "nothing in '%.*s' matches [%s%s%s] (%d elements)", (int)(p - path - k - 2), path, part,
                   eq ? "=" : "", eq ? eq + 1 : "", size);
          return NULL;
        }
        at = next;
      }
    } else {
      snprintf(why, n, "unexpected '%c' at '%.*s': use '.key', '[N]' or '[key=value]'", *p, (int)(p - path + 1), path);
      return NULL;
    }
  }
  return root ? at : (const cJSON *)path;
}

int lab_claim_path_check(const char *path, char *why, size_t n) {
  char run[40], sub[PATH_MAX_LEN + 40];
  const char *rest;
  if (strlen(path) > PATH_MAX_LEN) return snprintf(why, n, "a path has at most %d characters", PATH_MAX_LEN), -1;
  if (lab_claim_path_run(path, run, sizeof run, &rest))
    return snprintf(why, n, "'@RUN.' must name a run of a-z, 0-9 and '_', then '.' and the path"), -1;
  if (substitute(rest, 1, sub, sizeof sub)) return snprintf(why, n, "the path is too long"), -1;
  return walk(NULL, sub, why, n) ? 0 : -1;
}

const cJSON *lab_claim_path_get(const cJSON *env, const char *path, double each_value, char *why, size_t n) {
  char sub[PATH_MAX_LEN + 200];
  if (substitute(path, each_value, sub, sizeof sub)) {
    snprintf(why, n, "the path is too long");
    return NULL;
  }
  return walk(env, sub, why, n);
}
