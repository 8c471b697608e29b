/* A lesson claim's conditions on named envelopes: a path on the left, a
 * path or a literal on the right, an operator (<, <=, >, >=, ==, !=, ~
 * within tol, contains, !contains), times and each (lessons/README.md). A
 * failure says which path and which numbers. */
#include "claim_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "claim_path.h"

void lab_claim_describe(const cJSON *v, char *out, size_t n) {
  if (cJSON_IsNumber(v)) snprintf(out, n, "%.4g", v->valuedouble);
  else if (cJSON_IsBool(v)) snprintf(out, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsString(v)) snprintf(out, n, "\"%.120s\"", v->valuestring);
  else if (cJSON_IsArray(v)) snprintf(out, n, "a list of %d", cJSON_GetArraySize(v));
  else snprintf(out, n, "an object");
}

/* The node a path names in the right run's envelope. */
static const cJSON *resolve(const lab_claim_runs *rs, const char *path, double each, char *why, size_t n) {
  char run[40];
  const char *rest;
  lab_claim_path_run(path, run, sizeof run, &rest);
  for (int i = 0; i < rs->n; i++)
    if (!run[0] || !strcmp(rs->names[i], run)) return lab_claim_path_get(rs->envs[i], rest, each, why, n);
  snprintf(why, n, "no run '%s'", run);
  return NULL;
}

static bool text_has(const cJSON *v, const char *needle) {
  if (cJSON_IsString(v)) return strstr(v->valuestring, needle) != NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, v) if (cJSON_IsString(e) && strstr(e->valuestring, needle)) return true;
  return false;
}

bool lab_claim_holds(const lab_claim_runs *rs, const cJSON *cond, double each, bool has_each, char *why, size_t n) {
  const char *op = cJSON_GetObjectItemCaseSensitive(cond, "op")->valuestring;
  const cJSON *lp = cJSON_GetObjectItemCaseSensitive(cond, "left"), *rp = cJSON_GetObjectItemCaseSensitive(cond, "right");
  const cJSON *value = cJSON_GetObjectItemCaseSensitive(cond, "value"), *times = cJSON_GetObjectItemCaseSensitive(cond, "times");
  const cJSON *tol = cJSON_GetObjectItemCaseSensitive(cond, "tol");
  char at[32] = "", miss[240], ls[160], rs_text[200];
  if (has_each) snprintf(at, sizeof at, " (with $ = %g)", each);
  const cJSON *l = resolve(rs, lp->valuestring, each, miss, sizeof miss);
  if (!l) return snprintf(why, n, "%s%s: %s", lp->valuestring, at, miss), false;
  const cJSON *r = rp ? resolve(rs, rp->valuestring, each, miss, sizeof miss) : value;
  if (!r) return snprintf(why, n, "%s%s: %s", rp->valuestring, at, miss), false;
  lab_claim_describe(l, ls, sizeof ls);
  if (!strcmp(op, "contains") || !strcmp(op, "!contains")) {
    bool has = text_has(l, r->valuestring), want = op[0] != '!';
    if (has == want) return true;
    return snprintf(why, n, "%s%s %s \"%s\"", lp->valuestring, at, want ? "does not contain" : "contains",
                    r->valuestring), false;
  }
  if (!cJSON_IsNumber(l) || !cJSON_IsNumber(r)) {
    bool eq = (cJSON_IsBool(l) && cJSON_IsBool(r) && cJSON_IsTrue(l) == cJSON_IsTrue(r)) ||
              (cJSON_IsString(l) && cJSON_IsString(r) && !strcmp(l->valuestring, r->valuestring));
    bool comparable = (cJSON_IsBool(l) && cJSON_IsBool(r)) || (cJSON_IsString(l) && cJSON_IsString(r));
    if (comparable && !strcmp(op, "==") && eq) return true;
    if (comparable && !strcmp(op, "!=") && !eq) return true;
    lab_claim_describe(r, rs_text, sizeof rs_text);
    return snprintf(why, n, "%s%s = %s is not %s %s%s%s", lp->valuestring, at, ls, op, rp ? rp->valuestring : "",
                    rp ? " = " : "", rs_text), false;
  }
  double a = l->valuedouble, b = r->valuedouble * (times ? times->valuedouble : 1.0);
  bool ok = !strcmp(op, "<") ? a < b : !strcmp(op, "<=") ? a <= b : !strcmp(op, ">") ? a > b
          : !strcmp(op, ">=") ? a >= b : !strcmp(op, "==") ? a == b : !strcmp(op, "!=") ? a != b
          : fabs(a - b) <= tol->valuedouble * fabs(b);
  if (ok) return true;
  if (rp && times) snprintf(rs_text, sizeof rs_text, "%s = %.4g × %g = %.4g", rp->valuestring, r->valuedouble,
                            times->valuedouble, b);
  else if (rp) snprintf(rs_text, sizeof rs_text, "%s = %.4g", rp->valuestring, b);
  else if (times) snprintf(rs_text, sizeof rs_text, "%.4g × %g = %.4g", r->valuedouble, times->valuedouble, b);
  else snprintf(rs_text, sizeof rs_text, "%.4g", b);
  if (tol) snprintf(rs_text + strlen(rs_text), sizeof rs_text - strlen(rs_text), " within %g%%", 100 * tol->valuedouble);
  return snprintf(why, n, "%s%s = %s is not %s %s", lp->valuestring, at, ls, op, rs_text), false;
}

bool lab_claim_all_hold(const lab_claim_runs *rs, const cJSON *claim, char *why, size_t n) {
  const cJSON *cond;
  cJSON_ArrayForEach(cond, cJSON_GetObjectItemCaseSensitive(claim, "expect")) {
    const cJSON *each = cJSON_GetObjectItemCaseSensitive(cond, "each"), *v;
    if (!each) {
      if (!lab_claim_holds(rs, cond, 0, false, why, n)) return false;
      continue;
    }
    cJSON_ArrayForEach(v, each) if (!lab_claim_holds(rs, cond, v->valuedouble, true, why, n)) return false;
  }
  return true;
}
