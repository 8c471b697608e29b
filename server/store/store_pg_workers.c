/* GPU workers in the PostgreSQL store (see store.h). A process with workers
 * keeps one more connection, the listener's: it LISTENs for queued runs,
 * and on it each of the process's workers holds an advisory lock
 * (SRV_PG_LOCK_SPACE, id) and sends its heartbeat. So a worker whose
 * process died loses its lock the moment its connection closes, and a
 * heartbeat that arrived proves the lock was held when it did (a
 * reconnected listener takes its locks again before anything else). A
 * worker is taken for dead when its heartbeat is SRV_WORKER_ALIVE_MS old,
 * or when its lock is gone although it beat since the database last
 * started (after a database restart every lock is gone: those workers get
 * the heartbeat's time to come back). */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "abstime.h"
#include "store_pg.h"

#define MAX_LOCAL_WORKERS 64 /* workers of one process */
#define POLL_MS 200

struct srv_pg_listener {
  pthread_t thread;
  _Atomic int stop;
  pthread_mutex_t lock; /* c, gen, ids */
  pthread_cond_t woke;  /* gen changed */
  PGconn *c;
  unsigned long gen; /* bumped by a notification or a reconnect */
  int64_t ids[MAX_LOCAL_WORKERS];
  int n_ids;
};

/* ---- the listener connection ------------------------------------------------ */

static void bump(struct srv_pg_listener *l) {
  l->gen++;
  pthread_cond_broadcast(&l->woke);
}

static void drain_notifications(struct srv_pg_listener *l) {
  PGnotify *n;
  int got = 0;
  while ((n = PQnotifies(l->c)) != NULL) {
    PQfreemem(n);
    got = 1;
  }
  if (got) bump(l);
}

/* With l->lock held: connects when needed, LISTENs and takes the locks of
 * this process's workers again. */
static int ensure_connected(pg_store *st, struct srv_pg_listener *l, lab_error *err) {
  if (l->c && PQstatus(l->c) == CONNECTION_OK) return 0;
  PQfinish(l->c);
  l->c = srv_pg_connect(st, err);
  if (!l->c) return -1;
  if (srv_pg_do(st, l->c, "LISTEN " SRV_PG_NOTIFY, NULL, "listening for runs", err) != 0) goto fail;
  for (int i = 0; i < l->n_ids; i++) {
    pg_args a = {0};
    srv_pg_i64(&a, SRV_PG_LOCK_SPACE);
    srv_pg_i64(&a, l->ids[i]);
    if (srv_pg_do(st, l->c, "SELECT pg_try_advisory_lock($1::int, $2::int)", &a, "registering a worker", err) != 0)
      goto fail;
  }
  bump(l); /* what was missed while disconnected: look again */
  return 0;
fail:
  PQfinish(l->c);
  l->c = NULL;
  return -1;
}

static void *listen_main(void *arg) {
  pg_store *st = arg;
  struct srv_pg_listener *l = st->listener;
  while (!l->stop) {
    lab_error err;
    pthread_mutex_lock(&l->lock);
    int ok = ensure_connected(st, l, &err) == 0;
    int fd = ok ? PQsocket(l->c) : -1;
    pthread_mutex_unlock(&l->lock);
    if (!ok) {
      usleep(POLL_MS * 1000);
      continue;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    (void)poll(&p, 1, POLL_MS);
    pthread_mutex_lock(&l->lock);
    if (l->c && PQsocket(l->c) == fd) {
      if (!PQconsumeInput(l->c) || PQstatus(l->c) != CONNECTION_OK) {
        PQfinish(l->c);
        l->c = NULL;
        bump(l);
      } else {
        drain_notifications(l);
      }
    }
    pthread_mutex_unlock(&l->lock);
  }
  return NULL;
}

/* The listener, started on first use. */
static struct srv_pg_listener *listener(pg_store *st, lab_error *err) {
  pthread_mutex_lock(&st->lock);
  struct srv_pg_listener *l = st->listener;
  if (!l && (l = calloc(1, sizeof *l)) != NULL) {
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->woke, NULL);
    st->listener = l;
    if (pthread_create(&l->thread, NULL, listen_main, st) != 0) {
      st->listener = NULL;
      pthread_cond_destroy(&l->woke);
      pthread_mutex_destroy(&l->lock);
      free(l);
      l = NULL;
    }
  }
  pthread_mutex_unlock(&st->lock);
  if (!l) lab_fail(err, LAB_E_NOMEM, NULL, "cannot start listening for runs");
  return l;
}

void srv_pg_listener_free(pg_store *st) {
  struct srv_pg_listener *l = st->listener;
  if (!l) return;
  l->stop = 1;
  pthread_join(l->thread, NULL);
  PQfinish(l->c);
  pthread_cond_destroy(&l->woke);
  pthread_mutex_destroy(&l->lock);
  free(l);
  st->listener = NULL;
}

/* Runs a statement on the listener's connection (connecting first). */
static PGresult *on_listener(pg_store *st, const char *sql, const pg_args *a, const char *what, lab_error *err) {
  struct srv_pg_listener *l = listener(st, err);
  if (!l) return NULL;
  pthread_mutex_lock(&l->lock);
  PGresult *r = ensure_connected(st, l, err) == 0 ? srv_pg_run(st, l->c, sql, a, what, err) : NULL;
  if (l->c && PQstatus(l->c) != CONNECTION_OK) {
    PQfinish(l->c);
    l->c = NULL;
  }
  if (l->c) drain_notifications(l);
  pthread_mutex_unlock(&l->lock);
  return r;
}

static int op_queue_wait(srv_store *s, double timeout_s, lab_error *err) {
  struct srv_pg_listener *l = listener(srv_pg_impl(s), err);
  if (!l) return -1;
  struct timespec until = srv_abstime_after(timeout_s);
  pthread_mutex_lock(&l->lock);
  unsigned long gen = l->gen;
  while (l->gen == gen && pthread_cond_timedwait(&l->woke, &l->lock, &until) == 0) {
  }
  pthread_mutex_unlock(&l->lock);
  return 0;
}

/* ---- workers ------------------------------------------------------------------ */

static int op_worker_add(srv_store *s, const srv_store_worker *w, int64_t *id, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args a = {0};
  srv_pg_text(&a, w->kind);
  srv_pg_text(&a, w->host);
  srv_pg_i64(&a, w->pid);
  srv_pg_i64(&a, w->gpu);
  srv_pg_text(&a, w->cuda_visible_devices);
  srv_pg_text(&a, w->slurm_job_id);
  srv_pg_text(&a, w->device_json);
  srv_pg_i64(&a, SRV_PG_LOCK_SPACE);
  srv_pg_text(&a, w->health.usable ? "true" : "false");
  srv_pg_text(&a, w->health.reason);
  /* Registered and locked in one statement: nobody sees it unlocked. */
  PGresult *r = on_listener(st,
                            "WITH w AS (INSERT INTO workers(kind, host, pid, gpu, cuda_visible_devices, slurm_job_id,"
                            " device_json, started_at, heartbeat_at, usable, unusable_reason) VALUES($1, $2, $3, $4,"
                            " $5, $6, $7, gpulab_now_ms(), gpulab_now_ms(), $9::boolean, $10) RETURNING id)"
                            " SELECT id, pg_advisory_lock($8::int, id) FROM w",
                            &a, "registering a worker", err);
  if (!r) return -1;
  *id = srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  struct srv_pg_listener *l = st->listener;
  pthread_mutex_lock(&l->lock);
  if (l->n_ids < MAX_LOCAL_WORKERS) l->ids[l->n_ids++] = *id;
  pthread_mutex_unlock(&l->lock);
  return 0;
}

static int op_worker_beat(srv_store *s, int64_t id, int64_t run_id, long restarts, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, id);
  srv_pg_i64(&a, restarts);
  (void)run_id; /* the claim and the finish keep run_id; the heartbeat proves life */
  PGresult *r = on_listener(srv_pg_impl(s),
                            "UPDATE workers SET heartbeat_at = gpulab_now_ms(), gone_at = NULL, restarts = $2"
                            " WHERE id = $1",
                            &a, "sending a worker's heartbeat", err);
  PQclear(r);
  return r ? 0 : -1;
}

static int op_worker_health(srv_store *s, int64_t id, const srv_store_worker_health *h, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, id);
  srv_pg_text(&a, h->usable ? "true" : "false");
  srv_pg_text(&a, h->usable ? "" : h->reason);
  srv_pg_f64(&a, h->mem_total_bytes);
  srv_pg_f64(&a, h->mem_used_bytes);
  PGresult *r = on_listener(srv_pg_impl(s),
                            "UPDATE workers SET usable = $2::boolean, unusable_reason = $3,"
                            " gpu_mem_total_bytes = CASE WHEN $4::float8 >= 0 THEN $4::float8 END,"
                            " gpu_mem_used_bytes = CASE WHEN $5::float8 >= 0 THEN $5::float8 END WHERE id = $1",
                            &a, "storing a worker's device check", err);
  PQclear(r);
  return r ? 0 : -1;
}

static int op_worker_gone(srv_store *s, int64_t id, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args a = {0};
  srv_pg_i64(&a, id);
  srv_pg_i64(&a, SRV_PG_LOCK_SPACE);
  PGresult *r = on_listener(st,
                            "WITH w AS (UPDATE workers SET gone_at = gpulab_now_ms(), run_id = NULL WHERE id = $1"
                            " RETURNING id) SELECT count(*), pg_advisory_unlock($2::int, $1::int) FROM w",
                            &a, "signing a worker off", err);
  PQclear(r);
  struct srv_pg_listener *l = st->listener;
  if (l) {
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i < l->n_ids; i++)
      if (l->ids[i] == id) l->ids[i--] = l->ids[--l->n_ids];
    pthread_mutex_unlock(&l->lock);
  }
  return r ? 0 : -1;
}

/* Marks dead workers gone and hands their running runs back (once) or
 * fails them (the second time), refunding the learners' estimates. $1 the
 * failure's envelope. */
static const char reap_sql[] =
    "WITH dead AS (UPDATE workers w SET gone_at = gpulab_now_ms(), run_id = NULL WHERE gone_at IS NULL AND ("
    " heartbeat_at < gpulab_now_ms() - " SRV_PG_STR(SRV_WORKER_ALIVE_MS) " OR ("
    " heartbeat_at > (extract(epoch FROM pg_postmaster_start_time()) * 1000)::bigint"
    " AND started_at < gpulab_now_ms() - 2000 AND NOT EXISTS (SELECT 1 FROM pg_locks k"
    " WHERE k.locktype = 'advisory' AND k.granted AND k.classid::bigint = " SRV_PG_STR(SRV_PG_LOCK_SPACE)
    " AND k.objid::bigint = w.id AND k.objsubid = 2"
    " AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())))) RETURNING id),"
    " orphans AS (SELECT r.id, r.attempts FROM runs r LEFT JOIN workers w ON w.id = r.worker_id"
    " WHERE r.status = 'running' AND r.worker_id IS NOT NULL"
    " AND (w.id IS NULL OR w.gone_at IS NOT NULL OR r.worker_id IN (SELECT id FROM dead))),"
    " back AS (UPDATE runs SET status = 'queued', worker_id = NULL, started_at = NULL, attempts = attempts + 1"
    " WHERE id IN (SELECT id FROM orphans WHERE attempts = 0) AND status = 'running' RETURNING id),"
    " failed AS (UPDATE runs SET status = 'failed', error_code = 'worker_crashed', result_json = $1,"
    " finished_at = gpulab_now_ms() WHERE id IN (SELECT id FROM orphans WHERE attempts > 0)"
    " AND status = 'running' RETURNING learner_id, gpu_ms_reserved),"
    " refund AS (UPDATE learners l SET gpu_ms_used = greatest(0, l.gpu_ms_used - f.ms) FROM (SELECT learner_id,"
    " sum(gpu_ms_reserved) AS ms FROM failed GROUP BY learner_id) f WHERE l.id = f.learner_id RETURNING 1),"
    " woken AS (SELECT pg_notify('" SRV_PG_NOTIFY "', '') FROM (SELECT 1 FROM back LIMIT 1) b)"
    " SELECT (SELECT count(*) FROM dead), (SELECT count(*) FROM back), (SELECT count(*) FROM failed),"
    " (SELECT count(*) FROM refund), (SELECT count(*) FROM woken)";

static int op_workers_reap(srv_store *s, int *handed_back, int *failed, lab_error *err) {
  lab_error why;
  lab_fail(&why, LAB_E_WORKER_CRASHED, NULL,
           "the GPU worker running this run stopped answering (its process, job or machine ended) after it had "
           "already been handed back once; run it again");
  cJSON *j = lab_error_json(&why);
  char *text = j ? cJSON_PrintUnformatted(j) : NULL;
  cJSON_Delete(j);
  pg_args a = {0};
  srv_pg_text(&a, text);
  PGresult *r = text ? srv_pg_one(srv_pg_impl(s), reap_sql, &a, "looking for stopped workers", err) : NULL;
  cJSON_free(text);
  if (!r) return text ? -1 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  *handed_back = (int)srv_pg_get_i64(r, 0, 1);
  *failed = (int)srv_pg_get_i64(r, 0, 2);
  PQclear(r);
  return 0;
}

static cJSON *worker_row(const PGresult *r, int i) {
  cJSON *o = cJSON_CreateObject();
  int alive = PQgetvalue(r, i, 13)[0] == 't', busy = srv_pg_get_i64(r, i, 8) > 0;
  int usable = PQgetvalue(r, i, 14)[0] == 't';
  const char *state = !alive ? "gone" : busy ? "busy" : usable ? "idle" : "unusable";
  int ok = srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
           srv_pg_add(o, "kind", srv_pg_col_text(r, i, 1)) && srv_pg_add(o, "host", srv_pg_col_text(r, i, 2)) &&
           srv_pg_add(o, "pid", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 3))) &&
           srv_pg_add(o, "gpu", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 4))) &&
           srv_pg_add(o, "cuda_visible_devices", srv_pg_col_text(r, i, 5)) &&
           srv_pg_add(o, "slurm_job_id", srv_pg_col_text(r, i, 6)) && srv_pg_add(o, "device", srv_pg_col_json(r, i, 7)) &&
           srv_pg_add(o, "state", cJSON_CreateString(state)) &&
           srv_pg_add(o, "alive", cJSON_CreateBool(alive)) &&
           srv_pg_add(o, "heartbeat_age_s", cJSON_CreateNumber(srv_pg_get_f64(r, i, 12) / 1000.0)) &&
           srv_pg_add(o, "run_id", busy ? cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 8)) : cJSON_CreateNull()) &&
           srv_pg_add(o, "runs_done", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 9))) &&
           srv_pg_add(o, "restarts", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 10))) &&
           srv_pg_add(o, "started_at", srv_pg_col_time(r, i, 11)) &&
           srv_pg_add(o, "usable", cJSON_CreateBool(usable)) &&
           srv_pg_add(o, "unusable_reason", srv_pg_col_text(r, i, 15)) &&
           srv_pg_add(o, "runs_failed", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 16))) &&
           srv_pg_add(o, "gpu_memory_total_bytes",
                      srv_pg_is_null(r, i, 17) ? cJSON_CreateNull() : cJSON_CreateNumber(srv_pg_get_f64(r, i, 17))) &&
           srv_pg_add(o, "gpu_memory_used_bytes",
                      srv_pg_is_null(r, i, 18) ? cJSON_CreateNull() : cJSON_CreateNumber(srv_pg_get_f64(r, i, 18)));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static int op_workers_list(srv_store *s, cJSON **out, lab_error *err) {
  return srv_pg_rows_of(srv_pg_impl(s),
                        "SELECT id, kind, host, pid, gpu, cuda_visible_devices, slurm_job_id, device_json,"
                        " coalesce(run_id, 0), runs_done, restarts, started_at, gpulab_now_ms() - heartbeat_at,"
                        " (" SRV_PG_ALIVE_SQL ") AS alive, usable, unusable_reason, runs_failed,"
                        " gpu_mem_total_bytes, gpu_mem_used_bytes FROM workers"
                        " WHERE gone_at IS NULL OR gone_at > gpulab_now_ms() - 3600000 ORDER BY alive DESC, id",
                        NULL, worker_row, "listing workers", out, err);
}

void srv_pg_workers_ops(srv_store_ops *ops) {
  ops->queue_wait = op_queue_wait;
  ops->worker_add = op_worker_add;
  ops->worker_beat = op_worker_beat;
  ops->worker_health = op_worker_health;
  ops->worker_gone = op_worker_gone;
  ops->workers_reap = op_workers_reap;
  ops->workers_list = op_workers_list;
}
