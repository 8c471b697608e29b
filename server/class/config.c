/* Class configuration: one table names every setting once (its JSON key,
 * its flag, its type and bounds), and both the file reader and the flag
 * parser walk it, so the two can never disagree on a name or a bound. */
#include "config.h"

#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "files.h"
#include "json.h"

#define MAX_FILE_BYTES (64 * 1024)

enum kind { K_NAME, K_PATH, K_STORE, K_JOIN_CODE, K_LONG, K_GPUS };

typedef struct setting {
  const char *section; /* NULL: top level; else "limits" or "tls" */
  const char *key;
  const char *flag;
  enum kind kind;
  long min, max;
  size_t offset;
  int nullable; /* null in the file means "not set" */
} setting;

#define AT(field) offsetof(srv_class_config, field)

static const setting settings[] = {
    {NULL, "name", "--class-name", K_NAME, 1, SRV_CLASS_NAME_MAX, AT(name), 0},
    {NULL, "db", "--db", K_STORE, 1, 4000, AT(db), 0},
    {NULL, "join_code", "--join-code", K_JOIN_CODE, 0, 0, AT(join_code), 1},
    {"limits", "runs_per_minute", "--runs-per-minute", K_LONG, 1, 600, AT(runs_per_minute), 0},
    {"limits", "gpu_seconds_per_session", "--gpu-seconds", K_LONG, 1, 86400, AT(gpu_seconds_per_session), 0},
    {"limits", "max_gpu_mem_gib", "--max-gpu-mem-gib", K_LONG, 1, 1024, AT(max_gpu_mem_gib), 0},
    {"limits", "deadline_s", "--deadline", K_LONG, 1, 3600, AT(deadline_s), 0},
    {"limits", "queue_max", "--queue-max", K_LONG, 1, 10000, AT(queue_max), 0},
    {"limits", "max_body_kib", "--max-body-kib", K_LONG, 1, 1024, AT(max_body_kib), 0},
    {"limits", "max_connections", "--max-connections", K_LONG, 1, 1000, AT(max_connections), 0},
    {"limits", "max_connections_per_address", "--max-connections-per-address", K_LONG, 0, 1000,
     AT(max_connections_per_address), 0},
    {"limits", "queued_runs_per_learner", "--queued-runs-per-learner", K_LONG, 1, 100, AT(queued_runs_per_learner), 0},
    {"limits", "sim_runs_per_minute", "--sim-runs-per-minute", K_LONG, 1, 6000, AT(sim_runs_per_minute), 0},
    {"limits", "sim_cpu_seconds_per_minute", "--sim-cpu-seconds", K_LONG, 1, 3600, AT(sim_cpu_seconds_per_minute), 0},
    {"limits", "stored_runs_per_learner", "--stored-runs", K_LONG, 10, 100000, AT(stored_runs_per_learner), 0},
    {"limits", "session_idle_s", "--session-idle", K_LONG, 1, 604800, AT(session_idle_s), 0},
    {"limits", "session_max_s", "--session-max", K_LONG, 1, 2592000, AT(session_max_s), 0},
    /* at most 1000: a limit check reads ≤ 4096 events and a join window's two periods hold ≤ 3 × class_size */
    {"limits", "class_size", "--class-size", K_LONG, 1, 1000, AT(class_size), 0},
    {"limits", "join_rate", "--join-rate", K_LONG, 1, 1000, AT(join_rate), 0},
    {"tls", "cert", "--tls-cert", K_PATH, 1, 4000, AT(tls_cert), 1},
    {"tls", "key", "--tls-key", K_PATH, 1, 4000, AT(tls_key), 1},
    {NULL, "gpus", "--gpus", K_GPUS, 0, 63, AT(gpus), 0},
};
#define NSETTINGS (sizeof settings / sizeof settings[0])
_Static_assert(NSETTINGS <= SRV_CLASS_FLAG_COUNT, "srv_class_flags has a slot per setting");
_Static_assert(NSETTINGS <= 8 * sizeof(unsigned long), "srv_class_config.given has a bit per setting");

#define BIT(s) (1UL << (unsigned)((s) - settings))

const char srv_class_help[] =
    "Class mode (any of these turns it on; flags override the file):\n"
    "  --class FILE              JSON config: {\"name\",\"db\",\"join_code\",\"limits\":{…},\"tls\":{\"cert\",\"key\"},\"gpus\"}\n"
    "  --class-name TEXT         1-80 printable characters (default \"gpulab class\")\n"
    "  --store sqlite:FILE | postgresql://USER@HOST:PORT/DB\n"
    "                            where the class lives: its settings, sessions, runs, queue, quiz attempts\n"
    "                            (default sqlite:gpulab-class.db; in the file as \"db\", relative to its folder).\n"
    "                            Servers sharing one PostgreSQL store serve one class (docs/deploy.md)\n"
    "  --db FILE                 the same as --store sqlite:FILE\n"
    "  --join-code CODE          8 characters from A-Z and 2-9 without O and I, e.g. ABCD-EFGH (default: random)\n"
    "  --runs-per-minute N       1-600 runs per session per minute (default 6)\n"
    "  --gpu-seconds N           1-86400 GPU seconds per session (default 300)\n"
    "  --max-gpu-mem-gib N       1-1024 GiB of GPU memory one experiment may ask for (default 4)\n"
    "  --deadline S              1-3600 seconds per GPU run (default 60)\n"
    "  --queue-max N             1-10000 runs waiting for the GPU (default 50)\n"
    "  --max-body-kib N          1-1024 KiB per request body (default 64)\n"
    "  --max-connections N       1-1000 connections served at once (default 64)\n"
    "  --max-connections-per-address N  0-1000 of those one client address may hold (default 0: all but an eighth)\n"
    "  --queued-runs-per-learner N  1-100 GPU runs one learner may have waiting (default 3)\n"
    "  --sim-runs-per-minute N   1-6000 simulated runs per learner per minute (default 30)\n"
    "  --sim-cpu-seconds N       1-3600 CPU seconds of simulation per learner per minute (default 30)\n"
    "  --stored-runs N           10-100000 simulated results kept per learner, oldest dropped (default 500)\n"
    "  --session-idle S          1-604800 seconds a session lives after its last request (default 7200)\n"
    "  --session-max S           1-2592000 seconds a session lives at most (default 43200)\n"
    "  --class-size N            1-1000 joins admitted at once, from any address (default 300)\n"
    "  --join-rate R             1-1000 joins a second once those are in (default 5)\n"
    "  --tls-cert FILE --tls-key FILE   serve HTTPS (both or neither)\n"
    "  --gpus LIST               1-16 distinct device indices 0-63, e.g. 0,1 (default 0)\n"
    "  The join code and an instructor token (GPULAB_INSTRUCTOR_TOKEN, or random) are printed at start.\n";

void srv_class_config_defaults(srv_class_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->name, sizeof cfg->name, "gpulab class");
  snprintf(cfg->db, sizeof cfg->db, "gpulab-class.db");
  cfg->runs_per_minute = 6;
  cfg->gpu_seconds_per_session = 300;
  cfg->max_gpu_mem_gib = 4;
  cfg->deadline_s = 60;
  cfg->queue_max = 50;
  cfg->max_body_kib = 64;
  cfg->max_connections = 64;
  cfg->queued_runs_per_learner = 3;
  cfg->sim_runs_per_minute = 30;
  cfg->sim_cpu_seconds_per_minute = 30;
  cfg->stored_runs_per_learner = 500;
  cfg->session_idle_s = 2 * 3600;
  cfg->session_max_s = 12 * 3600;
  cfg->class_size = 300; /* a lecture hall behind one address joins at once */
  cfg->join_rate = 5;
  cfg->gpus[0] = 0;
  cfg->gpu_count = 1;
}

static int failf(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return -1;
}

int srv_join_code_normalise(const char *text, char out[SRV_JOIN_CODE_LEN + 1]) {
  size_t used = 0;
  for (const char *p = text; *p; p++) {
    if ((*p == '-' || *p == ' ') && used == SRV_JOIN_CODE_LEN / 2 && p > text && p[-1] != '-' && p[-1] != ' ')
      continue;
    char c = (char)toupper((unsigned char)*p);
    int ok = (c >= 'A' && c <= 'Z' && c != 'O' && c != 'I') || (c >= '2' && c <= '9');
    if (!ok || used == SRV_JOIN_CODE_LEN) return -1;
    out[used++] = c;
  }
  out[used] = 0;
  return used == SRV_JOIN_CODE_LEN ? 0 : -1;
}

static int printable_name(const char *v, size_t max) {
  size_t n = strlen(v);
  if (n < 1 || n > max) return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f) return 0;
  return 1;
}

/* "0,1,3" → distinct indices within bounds. */
static int parse_gpu_list(const char *text, srv_class_config *cfg, const setting *s) {
  int count = 0;
  const char *p = text;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < s->min || v > s->max || count == SRV_MAX_GPUS) return -1;
    for (int j = 0; j < count; j++)
      if (cfg->gpus[j] == v) return -1;
    cfg->gpus[count++] = (int)v;
    p = end;
    if (*p == ',' && p[1]) p++;
    else if (*p) return -1;
  }
  if (count == 0) return -1;
  cfg->gpu_count = count;
  return 0;
}

/* Sets one setting from text (a flag's value, or a file's string). base:
 * the folder relative paths are resolved from (NULL: as given). Returns 0,
 * or -1 with why (without the "where:" prefix) in msg. */
static int set_text(const setting *s, const char *v, const char *base, srv_class_config *cfg, char *msg, size_t n) {
  char *field = (char *)cfg + s->offset;
  switch (s->kind) {
  case K_NAME:
    if (!printable_name(v, (size_t)s->max))
      return failf(msg, n, "must be %ld to %ld printable characters", s->min, s->max);
    snprintf(field, sizeof cfg->name, "%s", v);
    return 0;
  case K_STORE:
    if (srv_store_spec_is_pg(v)) {
      if (strlen(v) > (size_t)s->max) return failf(msg, n, "the URI must be at most %ld characters", s->max);
      snprintf(field, 4096, "%s", v);
      return 0;
    }
    if (strncmp(v, "sqlite:", 7) == 0) v += 7; /* then an SQLite file, as K_PATH */
    __attribute__((fallthrough));
  case K_PATH:
    if (strlen(v) < (size_t)s->min || strlen(v) > (size_t)s->max)
      return failf(msg, n, "must be a file name of %ld to %ld characters", s->min, s->max);
    if (base && v[0] != '/') {
      if (strlen(base) + strlen(v) + 2 > 4096) return failf(msg, n, "the path is too long");
      size_t b = strlen(base);
      memcpy(field, base, b);
      field[b] = '/';
      memcpy(field + b + 1, v, strlen(v) + 1);
    } else {
      snprintf(field, 4096, "%s", v);
    }
    return 0;
  case K_JOIN_CODE:
    if (srv_join_code_normalise(v, field) != 0)
      return failf(msg, n, "must be 8 characters from A-Z and 2-9 without O and I, e.g. ABCD-EFGH");
    return 0;
  case K_LONG: {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < s->min || x > s->max)
      return failf(msg, n, "must be an integer from %ld to %ld", s->min, s->max);
    *(long *)(void *)field = x;
    return 0;
  }
  case K_GPUS:
    if (parse_gpu_list(v, cfg, s) != 0)
      return failf(msg, n, "must be 1 to %d distinct device indices from %ld to %ld, e.g. 0,1", SRV_MAX_GPUS, s->min,
                   s->max);
    return 0;
  }
  return failf(msg, n, "unknown setting");
}

/* A JSON number that is a whole number within [min, max]. The bounds come
 * first: converting a double out of a long's range is undefined (the
 * fuzzer found 1.7e85 here). */
static int whole_within(const cJSON *v, double min, double max) {
  return cJSON_IsNumber(v) && v->valuedouble >= min && v->valuedouble <= max && v->valuedouble == floor(v->valuedouble);
}

/* One JSON value for a setting: checks its type, then reuses set_text. */
static int set_json_value(const setting *s, const cJSON *v, const char *base, srv_class_config *cfg, char *msg, size_t n) {
  if (cJSON_IsNull(v)) {
    if (!s->nullable) return failf(msg, n, "must not be null");
    ((char *)cfg + s->offset)[0] = 0;
    return 0;
  }
  if (s->kind == K_LONG) {
    if (!whole_within(v, (double)s->min, (double)s->max))
      return failf(msg, n, "must be an integer from %ld to %ld", s->min, s->max);
    *(long *)(void *)((char *)cfg + s->offset) = (long)v->valuedouble;
    return 0;
  }
  if (s->kind == K_GPUS) {
    char list[SRV_MAX_GPUS * 4 + 8] = "";
    size_t used = 0;
    int count = 0;
    const cJSON *g;
    if (!cJSON_IsArray(v)) return failf(msg, n, "must be an array of device indices, e.g. [0,1]");
    cJSON_ArrayForEach(g, v) {
      if (!whole_within(g, (double)s->min, (double)s->max) || ++count > SRV_MAX_GPUS)
        return failf(msg, n, "must be 1 to %d distinct integers from %ld to %ld", SRV_MAX_GPUS, s->min, s->max);
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", used ? "," : "", (int)g->valuedouble);
    }
    return set_text(s, list, base, cfg, msg, n);
  }
  if (!cJSON_IsString(v)) return failf(msg, n, "must be a string%s", s->nullable ? " or null" : "");
  return set_text(s, v->valuestring, base, cfg, msg, n);
}

static int set_json(const setting *s, const cJSON *v, const char *base, srv_class_config *cfg, char *msg, size_t n) {
  if (set_json_value(s, v, base, cfg, msg, n) != 0) return -1;
  cfg->given |= BIT(s);
  return 0;
}

static const setting *find_setting(const char *section, const char *key) {
  for (size_t i = 0; i < NSETTINGS; i++) {
    const setting *s = &settings[i];
    if (strcmp(s->key, key) == 0 && ((!section && !s->section) || (section && s->section && !strcmp(section, s->section))))
      return s;
  }
  return NULL;
}

static int is_section(const char *key) { return strcmp(key, "limits") == 0 || strcmp(key, "tls") == 0; }

int srv_class_config_load(const char *path, srv_class_config *cfg, char *msg, size_t n) {
  char *text = NULL;
  size_t len = 0;
  if (srv_read_file(path, MAX_FILE_BYTES, &text, &len) != 0)
    return failf(msg, n, "%s: cannot read it (missing, unreadable, or over %d KiB)", path, MAX_FILE_BYTES / 1024);
  int rc = srv_class_config_parse(path, text, len, cfg, msg, n);
  free(text);
  return rc;
}

int srv_class_config_parse(const char *path, const char *text, size_t len, srv_class_config *cfg, char *msg,
                           size_t n) {
  char why[200];
  size_t where = 0;
  cJSON *root = lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, &where);
  int rc = -1;
  if (!root) {
    failf(msg, n, "%s: not valid JSON (near byte %zu, or nested deeper than %d levels); the file is one JSON object",
          path, where, LAB_JSON_MAX_DEPTH);
    goto done;
  }
  if (!cJSON_IsObject(root)) {
    failf(msg, n, "%s: must be a JSON object like {\"name\":\"CS 101 lab\"}", path);
    goto done;
  }
  /* Relative paths in the file are from the file's folder, so the class
   * works whatever folder the server is started from. */
  char base[4096];
  snprintf(base, sizeof base, "%s", path);
  char *slash = strrchr(base, '/');
  if (slash) *slash = 0;
  else snprintf(base, sizeof base, ".");
  for (const cJSON *it = root->child; it; it = it->next) {
    if (is_section(it->string)) {
      if (!cJSON_IsObject(it)) {
        failf(msg, n, "%s: %s: must be an object", path, it->string);
        goto done;
      }
      for (const cJSON *sub = it->child; sub; sub = sub->next) {
        const setting *s = find_setting(it->string, sub->string);
        if (!s) {
          failf(msg, n, "%s: %s.%.60s: unknown key (see 'gpulab help')", path, it->string, sub->string);
          goto done;
        }
        if (set_json(s, sub, base, cfg, why, sizeof why) != 0) {
          failf(msg, n, "%s: %s.%s: %s", path, it->string, sub->string, why);
          goto done;
        }
      }
      continue;
    }
    const setting *s = find_setting(NULL, it->string);
    if (!s) {
      failf(msg, n, "%s: %.60s: unknown key (see 'gpulab help')", path, it->string);
      goto done;
    }
    if (set_json(s, it, base, cfg, why, sizeof why) != 0) {
      failf(msg, n, "%s: %s: %s", path, it->string, why);
      goto done;
    }
  }
  rc = 0;
done:
  cJSON_Delete(root);
  return rc;
}

int srv_class_flag(int argc, char **argv, int *i, srv_class_flags *f, char *msg, size_t n) {
  const char *a = argv[*i];
  size_t idx = NSETTINGS;
  const char *name = NULL;
  const char **slot = NULL;
  if (strncmp(a, "--class", 7) == 0 && (a[7] == 0 || a[7] == '=')) {
    name = "--class";
    slot = &f->file;
  } else if (strncmp(a, "--store", 7) == 0 && (a[7] == 0 || a[7] == '=')) {
    name = "--store";
    slot = &f->store;
  } else {
    for (size_t k = 0; k < NSETTINGS && !name; k++) {
      size_t len = strlen(settings[k].flag);
      if (strncmp(a, settings[k].flag, len) == 0 && (a[len] == 0 || a[len] == '=')) {
        name = settings[k].flag;
        idx = k;
      }
    }
  }
  if (!name) return 0;
  size_t len = strlen(name);
  const char *v = a[len] == '=' ? a + len + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
  if (!v) return failf(msg, n, "%s is missing its value", name);
  if (slot) *slot = v;
  else f->value[idx] = v;
  return 1;
}

int srv_class_config_build(const srv_class_flags *f, srv_class_config *cfg, char *msg, size_t n) {
  int class_mode = f->file != NULL || f->store != NULL;
  for (size_t k = 0; k < NSETTINGS; k++)
    if (f->value[k] && strcmp(settings[k].flag, "--deadline") != 0) class_mode = 1;
  srv_class_config_defaults(cfg);
  if (!class_mode) return 0;
  if (f->file && srv_class_config_load(f->file, cfg, msg, n) != 0) return -1;
  char why[200];
  for (size_t k = 0; k < NSETTINGS; k++) {
    const char *v = f->value[k];
    if (settings[k].kind == K_STORE && f->store) {
      if (v) return failf(msg, n, "--store and --db name the same thing: give one of them");
      v = f->store;
    }
    if (!v) continue;
    if (set_text(&settings[k], v, NULL, cfg, why, sizeof why) != 0)
      return failf(msg, n, "%s: %s", settings[k].kind == K_STORE && f->store ? "--store" : settings[k].flag, why);
    cfg->given |= BIT(&settings[k]);
  }
  if (!cfg->tls_cert[0] != !cfg->tls_key[0])
    return failf(msg, n, "tls: give both a certificate and a key (--tls-cert FILE --tls-key FILE), or neither");
  const char *files[2] = {cfg->tls_cert, cfg->tls_key};
  for (int k = 0; k < 2; k++)
    if (files[k][0] && access(files[k], R_OK) != 0)
      return failf(msg, n, "tls.%s: cannot read %s", k ? "key" : "cert", files[k]);
  return 1;
}

void srv_class_config_mark_given(srv_class_config *cfg, const char *flag) {
  for (size_t k = 0; k < NSETTINGS; k++)
    if (strcmp(settings[k].flag, flag) == 0) cfg->given |= BIT(&settings[k]);
}

/* ---- the class a store keeps ------------------------------------------------ */

/* The settings every server of a class shares: its name, join code and limits. */
static int is_shared(const setting *s) {
  return s->section ? strcmp(s->section, "limits") == 0 : s->kind == K_NAME || s->kind == K_JOIN_CODE;
}

char *srv_class_config_shared_text(const srv_class_config *cfg) {
  cJSON *o = cJSON_CreateObject(), *limits = cJSON_CreateObject();
  int ok = o && limits;
  for (size_t k = 0; ok && k < NSETTINGS; k++) {
    const setting *s = &settings[k];
    const char *field = (const char *)cfg + s->offset;
    if (!is_shared(s) || (s->kind == K_JOIN_CODE && !field[0])) continue;
    cJSON *v = s->kind == K_LONG ? cJSON_CreateNumber((double)*(const long *)(const void *)field)
                                 : cJSON_CreateString(field);
    ok = v && cJSON_AddItemToObject(s->section ? limits : o, s->key, v);
    if (!ok) cJSON_Delete(v);
  }
  if (ok) {
    ok = cJSON_AddItemToObject(o, "limits", limits);
    if (ok) limits = NULL;
  }
  char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(limits);
  cJSON_Delete(o);
  return text;
}

/* A shared setting's value as text, for a message. */
static void value_text(const setting *s, const srv_class_config *cfg, char *out, size_t n) {
  const char *field = (const char *)cfg + s->offset;
  if (s->kind == K_LONG) snprintf(out, n, "%ld", *(const long *)(const void *)field);
  else snprintf(out, n, "\"%.80s\"", field);
}

static int same_value(const setting *s, const srv_class_config *a, const srv_class_config *b) {
  const char *x = (const char *)a + s->offset, *y = (const char *)b + s->offset;
  if (s->kind == K_LONG) return *(const long *)(const void *)x == *(const long *)(const void *)y;
  return strcmp(x, y) == 0;
}

static void copy_value(const setting *s, srv_class_config *to, const srv_class_config *from) {
  char *x = (char *)to + s->offset;
  const char *y = (const char *)from + s->offset;
  if (s->kind == K_LONG) *(long *)(void *)x = *(const long *)(const void *)y;
  else if (s->kind == K_NAME) snprintf(x, sizeof to->name, "%s", y);
  else snprintf(x, sizeof to->join_code, "%s", y);
}

int srv_class_config_adopt(srv_class_config *cfg, const char *stored, const char *where, int update, char *msg,
                           size_t n) {
  srv_class_config *st = malloc(sizeof *st); /* large: off the stack */
  if (!st) return failf(msg, n, "out of memory");
  srv_class_config_defaults(st);
  char why[240];
  int rc = -1;
  if (srv_class_config_parse(where, stored, strlen(stored), st, why, sizeof why) != 0) {
    failf(msg, n, "the class stored in %s is damaged (%s); use another store", where, why);
    goto done;
  }
  for (size_t k = 0; k < NSETTINGS; k++) {
    const setting *s = &settings[k];
    if (!is_shared(s) || same_value(s, cfg, st)) continue;
    if (!(cfg->given & BIT(s))) {
      copy_value(s, cfg, st);
      continue;
    }
    if (update) continue;
    char was[100], now[100];
    value_text(s, st, was, sizeof was);
    value_text(s, cfg, now, sizeof now);
    failf(msg, n,
          "%s: the class stored in %.120s has %s%s%s = %s, but this server was given %s. Start without it (flag or "
          "file) to use the stored value, or add --update-class to change the class",
          s->flag, where, s->section ? s->section : "", s->section ? "." : "", s->key, was, now);
    goto done;
  }
  rc = 0;
done:
  free(st);
  return rc;
}

int srv_class_config_follow(srv_class_config *cfg, const char *stored, srv_class_setting_changed changed, void *arg,
                            char *msg, size_t n) {
  srv_class_config *st = malloc(sizeof *st); /* large: off the stack */
  if (!st) return failf(msg, n, "out of memory");
  srv_class_config_defaults(st);
  char why[240];
  int rc = -1;
  if (srv_class_config_parse("(the class in the store)", stored, strlen(stored), st, why, sizeof why) != 0) {
    failf(msg, n, "%s", why);
    goto done;
  }
  for (size_t k = 0; k < NSETTINGS; k++) {
    const setting *s = &settings[k];
    if (s->kind != K_LONG || !s->section || strcmp(s->section, "limits") != 0 || same_value(s, cfg, st)) continue;
    long was = *(const long *)(const void *)((const char *)cfg + s->offset);
    copy_value(s, cfg, st);
    changed(s->key, was, *(const long *)(const void *)((const char *)st + s->offset), arg);
  }
  rc = 0;
done:
  free(st);
  return rc;
}
