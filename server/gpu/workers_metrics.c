/* Per-worker series for GET /metrics (see workers_metrics.h). Label values
 * are escaped as the text format asks (backslash, quote, newline): a
 * reason comes from a driver's message. */
#include "workers_metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"

typedef struct {
  char *p;
  size_t len, cap;
  int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  if (t->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->failed = 1;
      return;
    }
    if (t->p && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)n;
    char *p = realloc(t->p, cap);
    if (!p) {
      t->failed = 1;
      return;
    }
    t->p = p;
    t->cap = cap;
  }
}

/* A label value, escaped, into out (cut to fit). */
static const char *label(const cJSON *w, const char *key, char *out, size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, key);
  const char *s = cJSON_IsString(v) ? v->valuestring : "";
  size_t at = 0;
  for (; *s && at + 3 < n; s++) {
    if (*s == '\\' || *s == '"') out[at++] = '\\';
    if (*s == '\n') {
      out[at++] = '\\';
      out[at++] = 'n';
      continue;
    }
    out[at++] = *s;
  }
  out[at] = 0;
  return out;
}

static double num(const cJSON *w, const char *key, int *known) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, key);
  if (known) *known = cJSON_IsNumber(v);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* One family: its HELP and TYPE, then each worker's value (skipped where
 * the key is null). */
static void family(text *t, const cJSON *list, const char *name, const char *type, const char *help, const char *key) {
  put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
  const cJSON *w;
  cJSON_ArrayForEach(w, list) {
    int known = 0;
    double v = num(w, key, &known);
    if (known) put(t, "%s{worker=\"%.0f\"} %.17g\n", name, num(w, "id", NULL), v);
  }
}

char *srv_workers_metrics(const cJSON *list) {
  text t = {0};
  put(&t, "# HELP gpulab_worker_usable Whether a GPU worker takes runs (1) or not (0: reason says why).\n"
          "# TYPE gpulab_worker_usable gauge\n");
  const cJSON *w;
  cJSON_ArrayForEach(w, list) {
    char host[160], kind[40], reason[420];
    int alive = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "alive"));
    int usable = alive && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "usable"));
    label(w, "unusable_reason", reason, sizeof reason);
    put(&t, "gpulab_worker_usable{worker=\"%.0f\",host=\"%s\",kind=\"%s\",reason=\"%s\"} %d\n", num(w, "id", NULL),
        label(w, "host", host, sizeof host), label(w, "kind", kind, sizeof kind), alive ? reason : "gone", usable);
  }
  family(&t, list, "gpulab_worker_runs_total", "counter", "Runs a GPU worker finished (done or failed).",
         "runs_done");
  family(&t, list, "gpulab_worker_failures_total", "counter",
         "Runs a GPU worker failed or handed back (its own faults and the runs' own).", "runs_failed");
  family(&t, list, "gpulab_worker_gpu_memory_total_bytes", "gauge", "A GPU worker's device memory, where it read it.",
         "gpu_memory_total_bytes");
  family(&t, list, "gpulab_worker_gpu_memory_used_bytes", "gauge",
         "A GPU worker's device memory in use at its last device check, where it read it.", "gpu_memory_used_bytes");
  family(&t, list, "gpulab_worker_last_seen_seconds", "gauge", "Seconds since a GPU worker's last heartbeat.",
         "heartbeat_age_s");
  if (t.failed) {
    free(t.p);
    return NULL;
  }
  return t.p;
}
