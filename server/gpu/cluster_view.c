/* The background view of a shared store (see cluster_view.h). One refresher
 * thread reads the queue every REFRESH_S and the workers (and reaps dead
 * ones, and counts finished runs) every WORKERS_S; readers take the last view under a mutex. A
 * synchronous refresh (a run just queued, not yet in the view) is single
 * flight: callers arriving meanwhile wait for it instead of querying too. */
#include "cluster_view.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "abstime.h"
#include "clock.h"
#include "metrics.h"

#define REFRESH_S 0.5
#define WORKERS_S 1.0
#define DEFAULT_RUN_S 5.0 /* as queue.c: the estimate before any run finished */
#define COUNT_MAX 64      /* finished runs one sweep counts; the next takes the rest */

struct srv_cluster_view {
  srv_store *store;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* a refresh ended, or stopping */
  srv_store_queue_view *q;
  double q_at_s; /* when q was read (lab_clock_s) */
  double q_since_s; /* when the read that gave q began */
  int refreshing;
  cJSON *workers;
  long restarts;
  int store_ok;
  int stopping;
  pthread_t thread;
};

/* ---- reading the store ----------------------------------------------------------- */

/* One read of the queue; began_s: when the caller marked it refreshing. */
static void refresh_queue(srv_cluster_view *v, double began_s) {
  srv_store_queue_view *q = NULL;
  lab_error err;
  int ok = srv_store_queue_snapshot(v->store, &q, &err) == 0;
  pthread_mutex_lock(&v->lock);
  if (ok) {
    srv_store_queue_view_free(v->q);
    v->q = q;
    v->q_at_s = lab_clock_s();
    v->q_since_s = began_s;
  }
  v->store_ok = ok;
  v->refreshing = 0;
  pthread_cond_broadcast(&v->cond);
  pthread_mutex_unlock(&v->lock);
}

static void refresh_workers(srv_cluster_view *v) {
  lab_error err;
  int back = 0, failed = 0;
  if (srv_store_workers_reap(v->store, &back, &failed, &err) == 0 && (back || failed))
    fprintf(stderr, "gpulab: a GPU worker stopped answering: %d run(s) handed back to the queue, %d failed\n", back,
            failed);
  cJSON *list = NULL;
  if (srv_store_workers_list(v->store, &list, &err) != 0) return;
  long restarts = 0;
  const cJSON *w;
  cJSON_ArrayForEach(w, list) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(w, "restarts");
    if (cJSON_IsNumber(r)) restarts += (long)r->valuedouble;
  }
  pthread_mutex_lock(&v->lock);
  cJSON_Delete(v->workers);
  v->workers = list;
  v->restarts = restarts;
  pthread_mutex_unlock(&v->lock);
}

void srv_cluster_view_refresh(srv_cluster_view *v, double max_age_s) {
  pthread_mutex_lock(&v->lock);
  if (lab_clock_s() - v->q_at_s < max_age_s) {
    pthread_mutex_unlock(&v->lock);
    return;
  }
  if (v->refreshing) { /* someone is reading it: their answer is fresh enough */
    while (v->refreshing) pthread_cond_wait(&v->cond, &v->lock);
    pthread_mutex_unlock(&v->lock);
    return;
  }
  v->refreshing = 1;
  double began = lab_clock_s();
  pthread_mutex_unlock(&v->lock);
  refresh_queue(v, began);
}

void srv_cluster_view_refresh_since(srv_cluster_view *v, double since_s) {
  pthread_mutex_lock(&v->lock);
  /* A read in flight may have begun before since_s: wait for it, then read
   * again unless a newer one answered meanwhile. Bounded: each pass either
   * returns or starts a read of its own. */
  while (v->q_since_s < since_s) {
    if (v->refreshing) {
      pthread_cond_wait(&v->cond, &v->lock);
      continue;
    }
    v->refreshing = 1;
    double began = lab_clock_s();
    pthread_mutex_unlock(&v->lock);
    refresh_queue(v, began);
    pthread_mutex_lock(&v->lock);
    if (!v->store_ok) break; /* the store did not answer: the last view it is */
  }
  pthread_mutex_unlock(&v->lock);
}

void srv_cluster_view_count(srv_cluster_view *v, int64_t run_id) {
  srv_store_counted runs[COUNT_MAX];
  int n = 0;
  lab_error err;
  if (srv_store_runs_count_claim(v->store, run_id, COUNT_MAX, runs, &n, &err) != 0) return; /* the next sweep */
  for (int i = 0; i < n; i++) srv_metrics_run(runs[i].gpu_ms / 1000.0, runs[i].status);
}

static void *refresher(void *arg) {
  srv_cluster_view *v = arg;
  double workers_at = 0;
  pthread_mutex_lock(&v->lock);
  while (!v->stopping) {
    pthread_mutex_unlock(&v->lock);
    srv_cluster_view_refresh(v, REFRESH_S * 0.9);
    if (lab_clock_s() - workers_at >= WORKERS_S) {
      refresh_workers(v);
      srv_cluster_view_count(v, 0);
      workers_at = lab_clock_s();
    }
    pthread_mutex_lock(&v->lock);
    struct timespec until = srv_abstime_after(REFRESH_S);
    if (!v->stopping) pthread_cond_timedwait(&v->cond, &v->lock, &until);
  }
  pthread_mutex_unlock(&v->lock);
  return NULL;
}

srv_cluster_view *srv_cluster_view_start(srv_store *st, lab_error *err) {
  srv_cluster_view *v = calloc(1, sizeof *v);
  if (!v) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  v->store = st;
  pthread_mutex_init(&v->lock, NULL);
  pthread_cond_init(&v->cond, NULL);
  v->q_since_s = lab_clock_s();
  int rc = srv_store_queue_snapshot(st, &v->q, err);
  v->q_at_s = lab_clock_s();
  v->store_ok = 1;
  if (rc == 0 && pthread_create(&v->thread, NULL, refresher, v) != 0)
    rc = lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start the queue's refresher thread");
  if (rc != 0) {
    srv_store_queue_view_free(v->q);
    pthread_cond_destroy(&v->cond);
    pthread_mutex_destroy(&v->lock);
    free(v);
    return NULL;
  }
  return v;
}

void srv_cluster_view_stop(srv_cluster_view *v) {
  if (!v) return;
  pthread_mutex_lock(&v->lock);
  v->stopping = 1;
  pthread_cond_broadcast(&v->cond);
  pthread_mutex_unlock(&v->lock);
  pthread_join(v->thread, NULL);
  srv_store_queue_view_free(v->q);
  cJSON_Delete(v->workers);
  pthread_cond_destroy(&v->cond);
  pthread_mutex_destroy(&v->lock);
  free(v);
}

/* ---- answers (under the lock) ----------------------------------------------------- */

static double estimate_locked(const srv_store_queue_view *q, const char *experiment) {
  for (int i = 0; i < q->n_est; i++)
    if (strcmp(q->est[i].experiment, experiment) == 0) return q->est[i].run_s;
  return q->all_run_s > 0 ? q->all_run_s : DEFAULT_RUN_S;
}

/* Seconds of work left on the running runs. */
static double running_left_locked(const srv_store_queue_view *q) {
  double left = 0;
  for (int i = 0; i < q->n_running; i++) {
    double l = estimate_locked(q, q->running[i].experiment) - q->running[i].elapsed_s;
    if (l > 0) left += l;
  }
  return left;
}

static int slots(const srv_store_queue_view *q) { return q->workers_alive > 0 ? q->workers_alive : 1; }

void srv_cluster_view_status(srv_cluster_view *v, int64_t run_id, srv_queue_status *st) {
  memset(st, 0, sizeof *st);
  pthread_mutex_lock(&v->lock);
  const srv_store_queue_view *q = v->q;
  for (int i = 0; i < q->n_running; i++) {
    const srv_store_queued_run *r = &q->running[i];
    if (r->run_id != run_id) continue;
    st->state = SRV_Q_RUNNING;
    st->session_id = r->session_id;
    st->elapsed_s = r->elapsed_s + (lab_clock_s() - v->q_at_s);
    st->run_estimate_s = estimate_locked(q, r->experiment);
    st->estimate_s = st->run_estimate_s > st->elapsed_s ? st->run_estimate_s - st->elapsed_s : 0;
    pthread_mutex_unlock(&v->lock);
    return;
  }
  double ahead = running_left_locked(q);
  for (int k = 0; k < q->n_queued; k++) {
    const srv_store_queued_run *r = &q->queued[k];
    double run = estimate_locked(q, r->experiment);
    if (r->run_id == run_id) {
      st->state = SRV_Q_QUEUED;
      st->session_id = r->session_id;
      st->position = k + 1;
      st->run_estimate_s = run;
      st->estimate_s = ahead / slots(q) + run; /* the work ahead shares the GPUs */
      st->no_worker = q->workers_alive == 0;
      break;
    }
    ahead += run;
  }
  pthread_mutex_unlock(&v->lock);
}

void srv_cluster_view_status_last(srv_cluster_view *v, const char *experiment, srv_queue_status *st) {
  memset(st, 0, sizeof *st);
  pthread_mutex_lock(&v->lock);
  const srv_store_queue_view *q = v->q;
  double ahead = running_left_locked(q);
  for (int k = 0; k < q->n_queued; k++) ahead += estimate_locked(q, q->queued[k].experiment);
  st->state = SRV_Q_QUEUED;
  st->position = q->n_queued + 1;
  st->run_estimate_s = estimate_locked(q, experiment);
  st->estimate_s = ahead / slots(q) + st->run_estimate_s;
  st->no_worker = q->workers_alive == 0;
  pthread_mutex_unlock(&v->lock);
}

int srv_cluster_view_waiting(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  int n = v->q->n_queued;
  pthread_mutex_unlock(&v->lock);
  return n;
}

int srv_cluster_view_running(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  int n = v->q->n_running;
  pthread_mutex_unlock(&v->lock);
  return n;
}

int srv_cluster_view_alive(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  int n = v->q->workers_alive;
  pthread_mutex_unlock(&v->lock);
  return n;
}

int srv_cluster_view_unusable(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  int n = v->q->workers_unusable;
  pthread_mutex_unlock(&v->lock);
  return n;
}

int srv_cluster_view_learner_runs(srv_cluster_view *v, int64_t learner_id) {
  pthread_mutex_lock(&v->lock);
  int n = 0;
  for (int i = 0; i < v->q->n_queued; i++) n += v->q->queued[i].learner_id == learner_id;
  for (int i = 0; i < v->q->n_running; i++) n += v->q->running[i].learner_id == learner_id;
  pthread_mutex_unlock(&v->lock);
  return n;
}

double srv_cluster_view_estimate(srv_cluster_view *v, const char *experiment) {
  pthread_mutex_lock(&v->lock);
  double s = estimate_locked(v->q, experiment);
  pthread_mutex_unlock(&v->lock);
  return s;
}

double srv_cluster_view_soonest_end(srv_cluster_view *v, int64_t learner_id) {
  pthread_mutex_lock(&v->lock);
  double soonest = 0, mine = 0;
  for (int i = 0; i < v->q->n_running; i++) {
    const srv_store_queued_run *r = &v->q->running[i];
    double l = estimate_locked(v->q, r->experiment) - r->elapsed_s;
    if (soonest == 0 || l < soonest) soonest = l;
    if (r->learner_id == learner_id && (mine == 0 || l < mine)) mine = l;
  }
  pthread_mutex_unlock(&v->lock);
  double s = mine > 0 ? mine : soonest;
  return s < 1 ? 1 : s;
}

static cJSON *run_json(const srv_store_queued_run *r, const char *status, int position, double estimate_s) {
  return srv_queue_entry_json(r->run_id, r->session_id, r->experiment, status, position, estimate_s);
}

cJSON *srv_cluster_view_queue_json(srv_cluster_view *v) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr) return NULL;
  pthread_mutex_lock(&v->lock);
  const srv_store_queue_view *q = v->q;
  for (int i = 0; i < q->n_running; i++) {
    double left = estimate_locked(q, q->running[i].experiment) - q->running[i].elapsed_s;
    cJSON_AddItemToArray(arr, run_json(&q->running[i], "running", 0, left > 0 ? left : 0));
  }
  double ahead = running_left_locked(q);
  for (int k = 0; k < q->n_queued; k++) {
    double run = estimate_locked(q, q->queued[k].experiment);
    cJSON *o = run_json(&q->queued[k], "queued", k + 1, ahead / slots(q) + run);
    if (o && q->workers_alive == 0) srv_queue_status_no_worker(o);
    cJSON_AddItemToArray(arr, o);
    ahead += run;
  }
  pthread_mutex_unlock(&v->lock);
  return arr;
}

cJSON *srv_cluster_view_workers(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  cJSON *copy = v->workers ? cJSON_Duplicate(v->workers, 1) : cJSON_CreateArray();
  pthread_mutex_unlock(&v->lock);
  return copy;
}

long srv_cluster_view_restarts(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  long n = v->restarts;
  pthread_mutex_unlock(&v->lock);
  return n;
}

int srv_cluster_view_store_ok(srv_cluster_view *v) {
  pthread_mutex_lock(&v->lock);
  int ok = v->store_ok;
  pthread_mutex_unlock(&v->lock);
  return ok;
}
