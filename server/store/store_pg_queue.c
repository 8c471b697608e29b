/* The shared GPU queue is the runs table (see store.h). Fair claiming is one
 * statement: the oldest queued run of the learner served longest ago, taken
 * with FOR UPDATE … SKIP LOCKED — on the run and on its learner, so two
 * workers claiming at once take two learners, not one learner's two runs —
 * marked running and the learner marked served. Adding takes a transaction
 * advisory lock, so the learner's cap and the queue's length are checked
 * and the run inserted as one step across every server; NOTIFY inside the
 * same transaction wakes the workers once the run is there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "store_pg.h"

#define QUEUE_LOCK 7347 /* pg_advisory_xact_lock key: one queue_add at a time */

static int op_queue_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *experiment,
                        const char *params_json, double reserve_ms, long learner_cap, long queue_max,
                        const char *request_id, int64_t *run_id, int *mine, int *waiting, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  const char *what = "queueing a run";
  PGconn *c = srv_pg_take(st, err);
  if (!c) return -1;
  pg_args key = {0}, who = {0}, a = {0};
  srv_pg_i64(&key, QUEUE_LOCK);
  srv_pg_i64(&who, learner_id);
  PGresult *r = NULL;
  int rc = -1;
  if (srv_pg_do(st, c, "BEGIN", NULL, what, err) != 0 ||
      srv_pg_do(st, c, "SELECT pg_advisory_xact_lock($1)", &key, what, err) != 0 ||
      !(r = srv_pg_run(st, c,
                       "SELECT count(*) FILTER (WHERE learner_id = $1), count(*) FILTER (WHERE status = 'queued')"
                       " FROM runs WHERE status IN ('queued', 'running')",
                       &who, what, err)))
    goto done;
  *mine = (int)srv_pg_get_i64(r, 0, 0);
  *waiting = (int)srv_pg_get_i64(r, 0, 1);
  PQclear(r);
  r = NULL;
  if (learner_cap > 0 && *mine >= learner_cap) {
    lab_fail(err, LAB_E_TOO_MANY_QUEUED, NULL, "%d runs of this learner are queued or running", *mine);
    goto done;
  }
  if (*mine > 0 && *waiting >= queue_max) { /* a learner's first run always has room */
    lab_fail(err, LAB_E_QUEUE_FULL, NULL, "%d runs wait", *waiting);
    goto done;
  }
  srv_pg_i64(&a, session_id);
  srv_pg_text(&a, experiment);
  srv_pg_text(&a, params_json);
  srv_pg_f64(&a, reserve_ms >= 0 ? reserve_ms : 0);
  srv_pg_text(&a, request_id && request_id[0] ? request_id : NULL);
  r = srv_pg_run(st, c,
                 "WITH run AS (INSERT INTO runs(session_id, learner_id, experiment, params_json, backend, status,"
                 " queued_at, gpu_ms_reserved, request_id) SELECT id, learner_id, $2, $3, 'cuda', 'queued',"
                 " gpulab_now_ms(), $4, $5"
                 " FROM sessions WHERE id = $1 RETURNING id, learner_id),"
                 " charged AS (UPDATE learners SET gpu_ms_used = gpu_ms_used + $4"
                 " WHERE id = (SELECT learner_id FROM run) RETURNING 1)"
                 " SELECT id, (SELECT count(*) FROM charged), pg_notify('" SRV_PG_NOTIFY "', '') FROM run",
                 &a, what, err);
  if (!r) goto done;
  if (PQntuples(r) != 1) {
    lab_fail(err, LAB_E_NO_SESSION, NULL, "no lab session %lld; join the class again", (long long)session_id);
    goto done;
  }
  *run_id = srv_pg_get_i64(r, 0, 0);
  rc = srv_pg_do(st, c, "COMMIT", NULL, what, err);
done:
  PQclear(r);
  if (rc != 0) srv_pg_rollback(c);
  srv_pg_give(st, c);
  return rc;
}

static int op_queue_claim(srv_store *s, int64_t worker_id, srv_store_claim *out, int *got, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, worker_id);
  memset(out, 0, sizeof *out);
  *got = 0;
  PGresult *r = srv_pg_one(
      srv_pg_impl(s),
      "WITH next AS (SELECT r.id FROM runs r JOIN learners l ON l.id = r.learner_id WHERE r.status = 'queued'"
      " AND (r.handed_back_by IS DISTINCT FROM $1 OR NOT EXISTS (SELECT 1 FROM workers o WHERE o.id <> $1"
      " AND o.usable AND " SRV_PG_ALIVE_SQL ")) ORDER BY l.last_served NULLS FIRST, r.id LIMIT 1 FOR UPDATE OF r, l SKIP LOCKED),"
      " claimed AS (UPDATE runs r SET status = 'running', started_at = gpulab_now_ms(), worker_id = $1 FROM next"
      " WHERE r.id = next.id RETURNING r.id, r.session_id, r.learner_id, r.experiment, r.params_json, r.request_id),"
      " served AS (UPDATE learners SET last_served = nextval('serve_seq') WHERE id = (SELECT learner_id FROM claimed)"
      " RETURNING 1),"
      " w AS (UPDATE workers SET run_id = (SELECT id FROM claimed) WHERE id = $1 AND EXISTS (SELECT 1 FROM claimed)"
      " RETURNING 1)"
      " SELECT id, session_id, learner_id, experiment, params_json, (SELECT count(*) FROM served),"
      " (SELECT count(*) FROM w), request_id FROM claimed",
      &a, "taking a run from the queue", err);
  if (!r) return -1;
  if (PQntuples(r) == 1) {
    out->run_id = srv_pg_get_i64(r, 0, 0);
    out->session_id = srv_pg_get_i64(r, 0, 1);
    out->learner_id = srv_pg_get_i64(r, 0, 2);
    snprintf(out->experiment, sizeof out->experiment, "%s", PQgetvalue(r, 0, 3));
    out->params_json = strdup(srv_pg_is_null(r, 0, 4) ? "{}" : PQgetvalue(r, 0, 4));
    if (!srv_pg_is_null(r, 0, 7)) snprintf(out->request_id, sizeof out->request_id, "%s", PQgetvalue(r, 0, 7));
    *got = out->params_json != NULL;
  }
  PQclear(r);
  return *got || !out->run_id ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

static int op_queue_finish(srv_store *s, int64_t worker_id, int64_t run_id, const char *status, const char *error_code,
                           const char *result_json, double gpu_ms, lab_error *err) {
  int changed = 0;
  if (srv_pg_finish(srv_pg_impl(s), srv_pg_worker_finish_sql, worker_id, run_id, status, error_code, result_json,
                    gpu_ms, &changed, err) != 0)
    return -1;
  if (changed) return 0;
  return lab_fail(err, LAB_E_NOT_CANCELLABLE, "id",
                  "run %lld is no longer this worker's: it was handed back while the worker seemed gone, and runs "
                  "(or ran) on another",
                  (long long)run_id);
}

/* Hands a run back (queued again, in its old place: its id; left to
 * another worker) the first time, and fails it after that; the learner's
 * estimate is refunded when it fails (nothing was charged for the attempt
 * that went back: the charge settles when a run ends). The worker counts
 * one more run failed. $1 the run, $2 its worker, $3 the failure's
 * envelope, $4 its code. Wakes the workers when one went back. */
static const char hand_back_sql[] =
    "WITH back AS (UPDATE runs SET status = 'queued', worker_id = NULL, started_at = NULL, attempts = attempts + 1,"
    " handed_back_by = $2 WHERE id = $1 AND worker_id = $2 AND status = 'running' AND attempts = 0 RETURNING id),"
    " failed AS (UPDATE runs SET status = 'failed', error_code = $4, result_json = $3,"
    " finished_at = gpulab_now_ms() WHERE id = $1 AND worker_id = $2 AND status = 'running' AND attempts > 0"
    " RETURNING learner_id, gpu_ms_reserved),"
    " refund AS (UPDATE learners l SET gpu_ms_used = greatest(0, l.gpu_ms_used - f.gpu_ms_reserved) FROM failed f"
    " WHERE l.id = f.learner_id RETURNING 1),"
    " w AS (UPDATE workers SET runs_failed = runs_failed + 1, run_id = NULL WHERE id = $2"
    " AND (EXISTS (SELECT 1 FROM back) OR EXISTS (SELECT 1 FROM failed)) RETURNING 1),"
    " woken AS (SELECT pg_notify('" SRV_PG_NOTIFY "', '') FROM back)"
    " SELECT (SELECT count(*) FROM back), (SELECT count(*) FROM failed), (SELECT count(*) FROM refund),"
    " (SELECT count(*) FROM woken), (SELECT count(*) FROM w)";

int srv_pg_hand_back(pg_store *st, int64_t worker_id, int64_t run_id, const char *error_code, const char *fail_json,
                     int *requeued, int *failed, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  srv_pg_i64(&a, worker_id);
  srv_pg_text(&a, fail_json);
  srv_pg_text(&a, error_code ? error_code : "worker_crashed");
  PGresult *r = srv_pg_one(st, hand_back_sql, &a, "handing a run back", err);
  if (!r) return -1;
  *requeued = (int)srv_pg_get_i64(r, 0, 0);
  *failed = (int)srv_pg_get_i64(r, 0, 1);
  PQclear(r);
  return 0;
}

static int op_queue_hand_back(srv_store *s, int64_t worker_id, int64_t run_id, const char *error_code,
                              const char *fail_json, int *requeued, lab_error *err) {
  int failed = 0;
  if (srv_pg_hand_back(srv_pg_impl(s), worker_id, run_id, error_code, fail_json, requeued, &failed, err) != 0)
    return -1;
  if (*requeued || failed) return 0;
  return lab_fail(err, LAB_E_NOT_CANCELLABLE, "id", "run %lld is no longer this worker's", (long long)run_id);
}

static int op_queue_cancel(srv_store *s, int64_t session_id, int64_t run_id, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  srv_pg_i64(&a, session_id);
  PGresult *r = srv_pg_one(
      srv_pg_impl(s),
      "WITH c AS (UPDATE runs SET status = 'cancelled', finished_at = gpulab_now_ms() WHERE id = $1"
      " AND session_id = $2 AND status = 'queued' RETURNING learner_id, gpu_ms_reserved),"
      " refund AS (UPDATE learners l SET gpu_ms_used = greatest(0, l.gpu_ms_used - c.gpu_ms_reserved) FROM c"
      " WHERE l.id = c.learner_id RETURNING 1)"
      " SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM refund),"
      " (SELECT status FROM runs WHERE id = $1 AND session_id = $2)",
      &a, "cancelling a run", err);
  if (!r) return -1;
  int cancelled = (int)srv_pg_get_i64(r, 0, 0), known = !srv_pg_is_null(r, 0, 2);
  char status[16];
  snprintf(status, sizeof status, "%s", PQgetvalue(r, 0, 2));
  PQclear(r);
  if (cancelled) return 0;
  if (!known)
    return lab_fail(err, LAB_E_UNKNOWN_RUN, "id", "no run %lld in your session; GET /api/session lists your runs",
                    (long long)run_id);
  return lab_fail(err, LAB_E_NOT_CANCELLABLE, "id", "run %lld has %s; only a queued run can be cancelled",
                  (long long)run_id,
                  strcmp(status, "running") == 0 ? "started on a GPU (it ends at its deadline at the latest)"
                                                 : "finished");
}

/* ---- the queue as it stands ---------------------------------------------------- */

static srv_store_queued_run *runs_of(const PGresult *r, int with_worker) {
  int n = PQntuples(r);
  srv_store_queued_run *v = calloc((size_t)(n ? n : 1), sizeof *v);
  for (int i = 0; v && i < n; i++) {
    v[i].run_id = srv_pg_get_i64(r, i, 0);
    v[i].session_id = srv_pg_get_i64(r, i, 1);
    v[i].learner_id = srv_pg_get_i64(r, i, 2);
    snprintf(v[i].experiment, sizeof v[i].experiment, "%s", PQgetvalue(r, i, 3));
    if (with_worker) {
      v[i].worker_id = srv_pg_get_i64(r, i, 4);
      v[i].elapsed_s = srv_pg_get_f64(r, i, 5) / 1000.0;
    }
  }
  return v;
}

/* Queued runs in the order they will start — round k is every learner's
 * k-th waiting run, learners served longest ago first (store.h) —, running
 * ones, each experiment's mean over its last 8 GPU runs (of the last 2000
 * runs), and the live workers. One read-only snapshot. */
static int op_queue_snapshot(srv_store *s, srv_store_queue_view **out, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  const char *what = "reading the queue";
  PGconn *c = srv_pg_take(st, err);
  if (!c) return -1;
  srv_store_queue_view *v = calloc(1, sizeof *v);
  PGresult *q = NULL, *run = NULL, *alive = NULL, *est = NULL;
  int rc = -1;
  if (!v) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto done;
  }
  if (srv_pg_do(st, c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, what, err) != 0 ||
      !(q = srv_pg_run(st, c,
                       "SELECT q.id, q.session_id, q.learner_id, q.experiment FROM (SELECT id, session_id, learner_id,"
                       " experiment, row_number() OVER (PARTITION BY learner_id ORDER BY id) AS round,"
                       " min(id) OVER (PARTITION BY learner_id) AS first FROM runs WHERE status = 'queued') q"
                       " JOIN learners l ON l.id = q.learner_id ORDER BY q.round, l.last_served NULLS FIRST, q.first",
                       NULL, what, err)) ||
      !(run = srv_pg_run(st, c,
                         "SELECT id, session_id, learner_id, experiment, coalesce(worker_id, 0),"
                         " gpulab_now_ms() - coalesce(started_at, gpulab_now_ms()) FROM runs WHERE status = 'running'"
                         " ORDER BY started_at",
                         NULL, what, err)) ||
      !(alive = srv_pg_run(st, c,
                           "SELECT count(*) FILTER (WHERE usable), count(*) FILTER (WHERE NOT usable) FROM workers"
                           " WHERE " SRV_PG_ALIVE_SQL,
                           NULL, what, err)) ||
      !(est = srv_pg_run(st, c,
                         "SELECT experiment, avg(gpu_ms) / 1000.0, count(*) FROM (SELECT experiment, gpu_ms,"
                         " row_number() OVER (PARTITION BY experiment ORDER BY id DESC) AS k FROM runs"
                         " WHERE status = 'done' AND backend = 'cuda' AND id > (SELECT coalesce(max(id), 0) - 2000"
                         " FROM runs)) t WHERE k <= 8 GROUP BY experiment ORDER BY experiment",
                         NULL, what, err)))
    goto done;
  v->queued = runs_of(q, 0);
  v->n_queued = PQntuples(q);
  v->running = runs_of(run, 1);
  v->n_running = PQntuples(run);
  v->workers_alive = (int)srv_pg_get_i64(alive, 0, 0);
  v->workers_unusable = (int)srv_pg_get_i64(alive, 0, 1);
  double sum = 0, count = 0;
  for (int i = 0; i < PQntuples(est) && i < SRV_STORE_ESTIMATES; i++) {
    snprintf(v->est[i].experiment, sizeof v->est[i].experiment, "%s", PQgetvalue(est, i, 0));
    v->est[i].run_s = srv_pg_get_f64(est, i, 1);
    sum += v->est[i].run_s * srv_pg_get_f64(est, i, 2);
    count += srv_pg_get_f64(est, i, 2);
    v->n_est = i + 1;
  }
  v->all_run_s = count > 0 ? sum / count : 0;
  if (!v->queued || !v->running) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto done;
  }
  rc = srv_pg_do(st, c, "COMMIT", NULL, what, err);
done:
  PQclear(q);
  PQclear(run);
  PQclear(alive);
  PQclear(est);
  srv_pg_give(st, c);
  if (rc != 0) srv_store_queue_view_free(v);
  else *out = v;
  return rc;
}

void srv_pg_queue_ops(srv_store_ops *ops) {
  ops->queue_add = op_queue_add;
  ops->queue_claim = op_queue_claim;
  ops->queue_finish = op_queue_finish;
  ops->queue_hand_back = op_queue_hand_back;
  ops->queue_cancel = op_queue_cancel;
  ops->queue_snapshot = op_queue_snapshot;
  srv_pg_totals_ops(ops);
}
