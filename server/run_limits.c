/* Per-session limits (see run_limits.h; not "limits.h", which -Iserver would
 * let shadow the C library's <limits.h>). The rate window keeps, per session,
 * the times of the runs counted in the last minute (at most
 * runs_per_minute of them); sessions idle for a minute are dropped, so the
 * table stays as small as the set of active learners. */
#include "run_limits.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_S 60.0
#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct rate_entry {
  int64_t session_id;
  double *at; /* ring of counted run times, oldest at head */
  int head, n;
} rate_entry;

struct srv_limits {
  pthread_mutex_t lock;
  int per_minute;
  rate_entry *e;
  int n, cap;
};

srv_limits *srv_limits_new(int runs_per_minute) {
  if (runs_per_minute < 1) return NULL;
  srv_limits *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->per_minute = runs_per_minute;
  pthread_mutex_init(&l->lock, NULL);
  return l;
}

void srv_limits_free(srv_limits *l) {
  if (!l) return;
  for (int i = 0; i < l->n; i++) free(l->e[i].at);
  free(l->e);
  pthread_mutex_destroy(&l->lock);
  free(l);
}

static void expire(srv_limits *l, rate_entry *r, double now_s) {
  while (r->n > 0 && now_s - r->at[r->head] >= WINDOW_S) {
    r->head = (r->head + 1) % l->per_minute;
    r->n--;
  }
}

/* Drops sessions with nothing in their window; called when the table grows. */
static void compact(srv_limits *l, double now_s) {
  int k = 0;
  for (int i = 0; i < l->n; i++) {
    expire(l, &l->e[i], now_s);
    if (l->e[i].n > 0) l->e[k++] = l->e[i];
    else free(l->e[i].at);
  }
  l->n = k;
}

static rate_entry *entry(srv_limits *l, int64_t session_id, double now_s) {
  for (int i = 0; i < l->n; i++)
    if (l->e[i].session_id == session_id) return &l->e[i];
  if (l->n == l->cap) compact(l, now_s);
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    rate_entry *grown = realloc(l->e, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    l->e = grown;
    l->cap = cap;
  }
  double *at = malloc((size_t)l->per_minute * sizeof *at);
  if (!at) return NULL;
  rate_entry *r = &l->e[l->n++];
  *r = (rate_entry){.session_id = session_id, .at = at};
  return r;
}

int srv_limits_rate(srv_limits *l, int64_t session_id, double now_s, double *retry_after_s, lab_error *err) {
  *retry_after_s = 0;
  pthread_mutex_lock(&l->lock);
  rate_entry *r = entry(l, session_id, now_s);
  if (!r) {
    pthread_mutex_unlock(&l->lock);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  expire(l, r, now_s);
  if (r->n < l->per_minute) {
    r->at[(r->head + r->n) % l->per_minute] = now_s;
    r->n++;
    pthread_mutex_unlock(&l->lock);
    return 0;
  }
  double wait = ceil(r->at[r->head] + WINDOW_S - now_s);
  pthread_mutex_unlock(&l->lock);
  *retry_after_s = wait < 1 ? 1 : wait;
  return lab_fail(err, LAB_E_RATE_LIMITED, NULL,
                  "this session may start %d runs per minute; retry in %.0f s (or run it with backend \"simulated\")",
                  l->per_minute, *retry_after_s);
}

void srv_limits_rate_undo(srv_limits *l, int64_t session_id) {
  pthread_mutex_lock(&l->lock);
  for (int i = 0; i < l->n; i++)
    if (l->e[i].session_id == session_id && l->e[i].n > 0) {
      l->e[i].n--; /* the newest is the last of the ring */
      break;
    }
  pthread_mutex_unlock(&l->lock);
}

int srv_limits_quota(double used_ms, double limit_s, lab_error *err) {
  if (used_ms < limit_s * 1000.0) return 0;
  return lab_fail(err, LAB_E_QUOTA_EXCEEDED, NULL,
                  "this session has used its %.0f s of GPU time (%.1f s used); GPU runs will not refill during this "
                  "session: run it with backend \"simulated\", or ask your instructor for more",
                  limit_s, used_ms / 1000.0);
}

int srv_limits_gpu_mem(const lab_experiment *e, const lab_params *p, double max_gib, lab_error *err) {
  const char *param = NULL;
  double bytes = lab_experiment_gpu_bytes(e, p, &param);
  if (bytes <= max_gib * GIB) return 0;
  return lab_fail(err, LAB_E_OVER_MEMORY_LIMIT, param,
                  "%s with these parameters takes about %.2f GiB of GPU memory; this class allows %.2f GiB per run: "
                  "lower %s",
                  e->name, bytes / GIB, max_gib, param ? param : "the sizes");
}
