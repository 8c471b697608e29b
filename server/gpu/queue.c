/* The fair GPU queue (see queue.h). Fairness is round-robin between
 * learners: each learner remembers when it was last served (a sequence
 * number); the next run is the oldest waiting run of the learner served
 * longest ago (never-served first, ties by arrival). Because a learner
 * moves to the back each time it is served, the whole start order is
 * "round k: the k-th waiting run of every learner, in that learner order",
 * which gives positions without simulating the queue. */
#include "queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "abstime.h"
#include "clock.h"

#define MAX_SLOTS 16
#define MAX_FAIR_LEARNERS 4096 /* idle entries are pruned past this */
#define EST_RUNS 8             /* recent runs averaged per experiment */
#define EST_EXPERIMENTS 32
#define DEFAULT_RUN_S 5.0

typedef struct fair_entry {
  int64_t learner_id;
  uint64_t last_served; /* 0 = never */
} fair_entry;

typedef struct est_entry {
  char experiment[32];
  double run_s[EST_RUNS];
  int n, next;
} est_entry;

typedef struct worker_arg {
  struct srv_queue *q;
  int slot;
} worker_arg;

struct srv_queue {
  pthread_mutex_t lock;
  pthread_cond_t wake;     /* a job arrived, or stopping */
  pthread_cond_t finished; /* a running job finished */
  int max_len, learner_cap;
  srv_queue_job **waiting; /* arrival order; grows past max_len for learners' first runs */
  int n_waiting, cap_waiting;
  srv_queue_job *running[MAX_SLOTS];
  int n_running;
  fair_entry *fair;
  int n_fair, cap_fair;
  uint64_t seq;
  est_entry est[EST_EXPERIMENTS];
  int n_est;
  int stopping, slots, started;
  pthread_t threads[MAX_SLOTS];
  worker_arg args[MAX_SLOTS];
  srv_queue_exec_fn exec;
  void *ctx;
};

srv_queue *srv_queue_new(int max_len) {
  if (max_len < 1) return NULL;
  srv_queue *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->waiting = calloc((size_t)max_len, sizeof *q->waiting);
  if (!q->waiting) {
    free(q);
    return NULL;
  }
  q->max_len = q->cap_waiting = max_len;
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->wake, NULL);
  pthread_cond_init(&q->finished, NULL);
  return q;
}

void srv_queue_set_learner_cap(srv_queue *q, int runs) {
  pthread_mutex_lock(&q->lock);
  q->learner_cap = runs > 0 ? runs : 0;
  pthread_mutex_unlock(&q->lock);
}

static void job_free(srv_queue_job *j) {
  if (!j) return;
  cJSON_Delete(j->params);
  free(j);
}

/* ---- fairness ---------------------------------------------------------------- */

static fair_entry *fair_find(srv_queue *q, int64_t learner_id) {
  for (int i = 0; i < q->n_fair; i++)
    if (q->fair[i].learner_id == learner_id) return &q->fair[i];
  return NULL;
}

/* The learner's runs waiting and running. */
static int learner_runs_locked(srv_queue *q, int64_t learner_id) {
  int n = 0;
  for (int i = 0; i < q->n_waiting; i++) n += q->waiting[i]->learner_id == learner_id;
  for (int i = 0; i < MAX_SLOTS; i++) n += q->running[i] && q->running[i]->learner_id == learner_id;
  return n;
}

/* Forgets idle learners once the table is large: an idle learner who comes
 * back starts as "never served", which is still one run per round. */
static void fair_prune(srv_queue *q) {
  if (q->n_fair < MAX_FAIR_LEARNERS) return;
  int k = 0;
  for (int i = 0; i < q->n_fair; i++)
    if (learner_runs_locked(q, q->fair[i].learner_id)) q->fair[k++] = q->fair[i];
  q->n_fair = k;
}

static void fair_mark_served(srv_queue *q, int64_t learner_id) {
  fair_entry *f = fair_find(q, learner_id);
  if (!f) {
    fair_prune(q);
    if (q->n_fair == q->cap_fair) {
      int cap = q->cap_fair ? q->cap_fair * 2 : 16;
      fair_entry *grown = realloc(q->fair, (size_t)cap * sizeof *grown);
      if (!grown) return; /* out of memory: this learner just counts as never served */
      q->fair = grown;
      q->cap_fair = cap;
    }
    f = &q->fair[q->n_fair++];
    f->learner_id = learner_id;
  }
  f->last_served = ++q->seq;
}

static uint64_t last_served(srv_queue *q, int64_t learner_id) {
  const fair_entry *f = fair_find(q, learner_id);
  return f ? f->last_served : 0;
}

/* One waiting job's place in the start order: round (its index among its
 * learner's waiting runs), then the learner's rank (last served, then the
 * arrival of its oldest waiting run). */
typedef struct order_key {
  int index; /* into q->waiting */
  int round;
  uint64_t served;
  int first; /* arrival index of the learner's oldest waiting run */
} order_key;

static int cmp_key(const void *a, const void *b) {
  const order_key *x = a, *y = b;
  if (x->round != y->round) return x->round < y->round ? -1 : 1;
  if (x->served != y->served) return x->served < y->served ? -1 : 1;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return 0;
}

/* Fills keys[0..n_waiting) in start order. O(n²), n ≤ queue_max + learners. */
static void start_order(srv_queue *q, order_key *keys) {
  for (int i = 0; i < q->n_waiting; i++) {
    int64_t s = q->waiting[i]->learner_id;
    int round = 0, first = i;
    for (int j = 0; j < i; j++)
      if (q->waiting[j]->learner_id == s) {
        if (round == 0) first = j;
        round++;
      }
    keys[i] = (order_key){.index = i, .round = round, .served = last_served(q, s), .first = first};
  }
  qsort(keys, (size_t)q->n_waiting, sizeof *keys, cmp_key);
}

/* ---- estimates --------------------------------------------------------------- */

static double estimate_locked(srv_queue *q, const char *experiment) {
  double all = 0;
  int n_all = 0;
  for (int i = 0; i < q->n_est; i++) {
    const est_entry *e = &q->est[i];
    double sum = 0;
    for (int k = 0; k < e->n; k++) sum += e->run_s[k];
    if (strcmp(e->experiment, experiment) == 0 && e->n > 0) return sum / e->n;
    all += sum;
    n_all += e->n;
  }
  return n_all ? all / n_all : DEFAULT_RUN_S;
}

static void record_run(srv_queue *q, const char *experiment, double run_s) {
  est_entry *e = NULL;
  for (int i = 0; i < q->n_est && !e; i++)
    if (strcmp(q->est[i].experiment, experiment) == 0) e = &q->est[i];
  if (!e) {
    if (q->n_est == EST_EXPERIMENTS) return;
    e = &q->est[q->n_est++];
    snprintf(e->experiment, sizeof e->experiment, "%s", experiment);
  }
  e->run_s[e->next] = run_s;
  e->next = (e->next + 1) % EST_RUNS;
  if (e->n < EST_RUNS) e->n++;
}

double srv_queue_run_estimate(srv_queue *q, const char *experiment) {
  pthread_mutex_lock(&q->lock);
  double s = estimate_locked(q, experiment);
  pthread_mutex_unlock(&q->lock);
  return s;
}

/* Seconds of work left on the running jobs. */
static double running_left_locked(srv_queue *q, double now) {
  double left = 0;
  for (int i = 0; i < MAX_SLOTS; i++) {
    const srv_queue_job *j = q->running[i];
    if (!j) continue;
    double l = estimate_locked(q, j->experiment) - (now - j->started_at_s);
    if (l > 0) left += l;
  }
  return left;
}

static int slot_count(const srv_queue *q) { return q->slots > 0 ? q->slots : 1; }

/* ---- jobs -------------------------------------------------------------------- */

/* When a place is expected to free up: when the soonest running run (of
 * this learner, when it has one; else of anyone) ends, at least 1 s. */
static double soonest_end_locked(srv_queue *q, int64_t learner_id) {
  double now = lab_clock_s(), soonest = 0, mine = 0;
  for (int i = 0; i < MAX_SLOTS; i++) {
    const srv_queue_job *r = q->running[i];
    if (!r) continue;
    double l = estimate_locked(q, r->experiment) - (now - r->started_at_s);
    if (soonest == 0 || l < soonest) soonest = l;
    if (r->learner_id == learner_id && (mine == 0 || l < mine)) mine = l;
  }
  double s = mine > 0 ? mine : soonest;
  return s < 1 ? 1 : s;
}

/* Whether the learner may queue one more run (see srv_queue_full). */
static int full_locked(srv_queue *q, int64_t learner_id, double *retry_after_s, lab_error *err) {
  int mine = learner_runs_locked(q, learner_id);
  if (q->learner_cap > 0 && mine >= q->learner_cap) {
    double s = soonest_end_locked(q, learner_id);
    if (retry_after_s) *retry_after_s = s;
    lab_fail(err, LAB_E_TOO_MANY_QUEUED, NULL,
             "you have %d GPU runs queued or running, as many as a learner may; retry in about %.0f s, when one has "
             "finished (or cancel one), or run it with backend \"simulated\" now",
             mine, s);
    return 1;
  }
  if (mine == 0 || q->n_waiting < q->max_len) return 0; /* a first run always has room */
  double s = soonest_end_locked(q, -1);
  if (retry_after_s) *retry_after_s = s;
  lab_fail(err, LAB_E_QUEUE_FULL, NULL,
           "the GPU queue is full (%d runs waiting); retry in about %.0f s, or run it with backend \"simulated\" now",
           q->n_waiting, s);
  return 1;
}

int srv_queue_full(srv_queue *q, int64_t learner_id, double *retry_after_s, lab_error *err) {
  if (retry_after_s) *retry_after_s = 0;
  pthread_mutex_lock(&q->lock);
  int full = full_locked(q, learner_id, retry_after_s, err);
  pthread_mutex_unlock(&q->lock);
  return full ? -1 : 0;
}

int srv_queue_learner_runs(srv_queue *q, int64_t learner_id) {
  pthread_mutex_lock(&q->lock);
  int n = learner_runs_locked(q, learner_id);
  pthread_mutex_unlock(&q->lock);
  return n;
}

int srv_queue_push(srv_queue *q, int64_t run_id, int64_t session_id, int64_t learner_id, const char *experiment,
                   cJSON *params, double *retry_after_s, lab_error *err) {
  if (retry_after_s) *retry_after_s = 0;
  srv_queue_job *j = calloc(1, sizeof *j);
  if (!j) {
    cJSON_Delete(params);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  j->run_id = run_id;
  j->session_id = session_id;
  j->learner_id = learner_id;
  snprintf(j->experiment, sizeof j->experiment, "%s", experiment);
  j->params = params;
  j->gpu_slot = -1;
  pthread_mutex_lock(&q->lock);
  if (full_locked(q, learner_id, retry_after_s, err)) {
    pthread_mutex_unlock(&q->lock);
    job_free(j);
    return -1;
  }
  if (q->n_waiting == q->cap_waiting) {
    int cap = q->cap_waiting * 2;
    srv_queue_job **grown = realloc(q->waiting, (size_t)cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&q->lock);
      job_free(j);
      return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    }
    q->waiting = grown;
    q->cap_waiting = cap;
  }
  j->queued_at_s = lab_clock_s();
  q->waiting[q->n_waiting++] = j;
  pthread_cond_signal(&q->wake);
  pthread_mutex_unlock(&q->lock);
  return 0;
}

int srv_queue_cancel(srv_queue *q, int64_t run_id, int64_t session_id) {
  int rc = -1;
  srv_queue_job *gone = NULL;
  pthread_mutex_lock(&q->lock);
  for (int i = 0; i < q->n_waiting; i++)
    if (q->waiting[i]->run_id == run_id && q->waiting[i]->session_id == session_id) {
      gone = q->waiting[i];
      memmove(&q->waiting[i], &q->waiting[i + 1], (size_t)(q->n_waiting - i - 1) * sizeof *q->waiting);
      q->n_waiting--;
      rc = 1;
      break;
    }
  for (int i = 0; rc < 0 && i < MAX_SLOTS; i++)
    if (q->running[i] && q->running[i]->run_id == run_id && q->running[i]->session_id == session_id) rc = 0;
  pthread_mutex_unlock(&q->lock);
  job_free(gone);
  return rc;
}

/* Visits the waiting runs in start order with each one's position (from 1),
 * its own estimate and its estimated wait (the work ahead shares the GPUs,
 * then the run takes its own time); stops when visit returns nonzero. The
 * lock is held. Out of memory visits nothing. */
typedef int (*waiting_visit_fn)(void *ctx, const srv_queue_job *j, int position, double run_s, double estimate_s);

static void walk_waiting_locked(srv_queue *q, double now, waiting_visit_fn visit, void *ctx) {
  order_key *keys = q->n_waiting ? malloc((size_t)q->n_waiting * sizeof *keys) : NULL;
  if (!keys) return;
  start_order(q, keys);
  double ahead = running_left_locked(q, now);
  for (int k = 0; k < q->n_waiting; k++) {
    const srv_queue_job *j = q->waiting[keys[k].index];
    double run = estimate_locked(q, j->experiment);
    if (visit(ctx, j, k + 1, run, ahead / slot_count(q) + run)) break;
    ahead += run;
  }
  free(keys);
}

typedef struct {
  int64_t run_id;
  srv_queue_status *st;
} status_find;

static int status_visit(void *ctx, const srv_queue_job *j, int position, double run_s, double estimate_s) {
  status_find *f = ctx;
  if (j->run_id != f->run_id) return 0;
  f->st->state = SRV_Q_QUEUED;
  f->st->session_id = j->session_id;
  f->st->position = position;
  f->st->run_estimate_s = run_s;
  f->st->estimate_s = estimate_s;
  return 1;
}

void srv_queue_status_of(srv_queue *q, int64_t run_id, srv_queue_status *st) {
  memset(st, 0, sizeof *st);
  pthread_mutex_lock(&q->lock);
  double now = lab_clock_s();
  for (int i = 0; i < MAX_SLOTS; i++) {
    const srv_queue_job *j = q->running[i];
    if (!j || j->run_id != run_id) continue;
    st->state = SRV_Q_RUNNING;
    st->session_id = j->session_id;
    st->elapsed_s = now - j->started_at_s;
    st->run_estimate_s = estimate_locked(q, j->experiment);
    st->estimate_s = st->run_estimate_s > st->elapsed_s ? st->run_estimate_s - st->elapsed_s : 0;
    pthread_mutex_unlock(&q->lock);
    return;
  }
  walk_waiting_locked(q, now, status_visit, &(status_find){.run_id = run_id, .st = st});
  pthread_mutex_unlock(&q->lock);
}

srv_queue_job *srv_queue_take(srv_queue *q, int slot, int block) {
  if (slot < 0 || slot >= MAX_SLOTS) return NULL;
  pthread_mutex_lock(&q->lock);
  while (block && !q->stopping && q->n_waiting == 0) pthread_cond_wait(&q->wake, &q->lock);
  srv_queue_job *j = NULL;
  if (!q->stopping && q->n_waiting > 0 && !q->running[slot]) {
    int best = 0;
    uint64_t best_served = last_served(q, q->waiting[0]->learner_id);
    for (int i = 1; i < q->n_waiting && best_served > 0; i++) {
      uint64_t s = last_served(q, q->waiting[i]->learner_id);
      if (s < best_served) best = i, best_served = s;
    }
    j = q->waiting[best];
    memmove(&q->waiting[best], &q->waiting[best + 1], (size_t)(q->n_waiting - best - 1) * sizeof *q->waiting);
    q->n_waiting--;
    fair_mark_served(q, j->learner_id);
    j->started_at_s = lab_clock_s();
    j->gpu_slot = slot;
    q->running[slot] = j;
    q->n_running++;
  }
  pthread_mutex_unlock(&q->lock);
  return j;
}

void srv_queue_done(srv_queue *q, srv_queue_job *job, double run_s) {
  pthread_mutex_lock(&q->lock);
  if (job->gpu_slot >= 0 && job->gpu_slot < MAX_SLOTS && q->running[job->gpu_slot] == job) {
    q->running[job->gpu_slot] = NULL;
    q->n_running--;
  }
  record_run(q, job->experiment, run_s);
  pthread_cond_broadcast(&q->finished);
  pthread_mutex_unlock(&q->lock);
  job_free(job);
}

int srv_queue_waiting(srv_queue *q) {
  pthread_mutex_lock(&q->lock);
  int n = q->n_waiting;
  pthread_mutex_unlock(&q->lock);
  return n;
}

int srv_queue_running(srv_queue *q) {
  pthread_mutex_lock(&q->lock);
  int n = q->n_running;
  pthread_mutex_unlock(&q->lock);
  return n;
}

cJSON *srv_queue_entry_json(int64_t run_id, int64_t session_id, const char *experiment, const char *status,
                            int position, double estimate_s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)run_id);
  cJSON_AddNumberToObject(o, "session_id", (double)session_id);
  cJSON_AddStringToObject(o, "experiment", experiment);
  cJSON_AddStringToObject(o, "status", status);
  cJSON_AddNumberToObject(o, "position", position);
  cJSON_AddNumberToObject(o, "estimate_s", estimate_s);
  return o;
}

void srv_queue_status_no_worker(cJSON *o) {
  if (cJSON_GetObjectItemCaseSensitive(o, "estimate_s")) cJSON_ReplaceItemInObjectCaseSensitive(o, "estimate_s", cJSON_CreateNull());
  else cJSON_AddNullToObject(o, "estimate_s");
  cJSON_AddStringToObject(o, "note", SRV_NO_WORKER_NOTE);
}

static cJSON *job_json(const srv_queue_job *j, const char *status, int position, double estimate_s) {
  return srv_queue_entry_json(j->run_id, j->session_id, j->experiment, status, position, estimate_s);
}

static int json_visit(void *ctx, const srv_queue_job *j, int position, double run_s, double estimate_s) {
  (void)run_s;
  cJSON_AddItemToArray(ctx, job_json(j, "queued", position, estimate_s));
  return 0;
}

cJSON *srv_queue_json(srv_queue *q) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr) return NULL;
  pthread_mutex_lock(&q->lock);
  double now = lab_clock_s();
  for (int i = 0; i < MAX_SLOTS; i++) {
    const srv_queue_job *j = q->running[i];
    if (!j) continue;
    double left = estimate_locked(q, j->experiment) - (now - j->started_at_s);
    cJSON_AddItemToArray(arr, job_json(j, "running", 0, left > 0 ? left : 0));
  }
  walk_waiting_locked(q, now, json_visit, arr);
  pthread_mutex_unlock(&q->lock);
  return arr;
}

/* ---- workers ----------------------------------------------------------------- */

static void *worker_main(void *arg) {
  worker_arg *a = arg;
  srv_queue *q = a->q;
  srv_queue_job *j;
  while ((j = srv_queue_take(q, a->slot, 1)) != NULL) {
    double t0 = lab_clock_s();
    q->exec(q->ctx, a->slot, j);
    srv_queue_done(q, j, lab_clock_s() - t0);
  }
  return NULL;
}

int srv_queue_start(srv_queue *q, int slots, srv_queue_exec_fn exec, void *ctx) {
  if (slots < 1 || slots > MAX_SLOTS || !exec || q->started) return -1;
  q->exec = exec;
  q->ctx = ctx;
  q->slots = slots;
  for (int i = 0; i < slots; i++) {
    q->args[i] = (worker_arg){.q = q, .slot = i};
    if (pthread_create(&q->threads[i], NULL, worker_main, &q->args[i]) != 0) return -1;
    q->started++;
  }
  return 0;
}

void srv_queue_stop(srv_queue *q, double grace_s, void (*abort_fn)(void *ctx)) {
  pthread_mutex_lock(&q->lock);
  q->stopping = 1;
  pthread_cond_broadcast(&q->wake);
  struct timespec until = srv_abstime_after(grace_s);
  while (q->n_running > 0 && q->started > 0)
    if (pthread_cond_timedwait(&q->finished, &q->lock, &until) == ETIMEDOUT) break;
  int still = q->n_running > 0 && q->started > 0;
  pthread_mutex_unlock(&q->lock);
  if (still && abort_fn) abort_fn(q->ctx);
  for (int i = 0; i < q->started; i++) pthread_join(q->threads[i], NULL);
  q->started = 0;
}

int srv_queue_pause(srv_queue *q, double s) {
  pthread_mutex_lock(&q->lock);
  struct timespec until = srv_abstime_after(s);
  /* a job's arrival wakes it too: wait on for the rest of s */
  while (!q->stopping && pthread_cond_timedwait(&q->wake, &q->lock, &until) == 0) {
  }
  int stopping = q->stopping;
  pthread_mutex_unlock(&q->lock);
  return stopping;
}

void srv_queue_free(srv_queue *q) {
  if (!q) return;
  srv_queue_stop(q, 0, NULL);
  for (int i = 0; i < q->n_waiting; i++) job_free(q->waiting[i]);
  for (int i = 0; i < MAX_SLOTS; i++) job_free(q->running[i]);
  free(q->waiting);
  free(q->fair);
  pthread_cond_destroy(&q->wake);
  pthread_cond_destroy(&q->finished);
  pthread_mutex_destroy(&q->lock);
  free(q);
}
