/* The PostgreSQL store's runs and the instructor's view (see store.h): the
 * same answers as SQLite's, each change one statement (its charges to the
 * learner and the session in the same statement, as data-modifying CTEs).
 * Runs take their times from the database's clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "store_pg.h"

#define LIST_LIMIT "200"          /* rows one learner's lists show */
#define OVERVIEW_QUIZ_LIMIT "5000" /* (learner, lesson) summaries the instructor view reads */

/* Why an update of run_id changed nothing: unknown, or in the wrong state. */
static int run_not_changed(pg_store *st, int64_t run_id, const char *wanted, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  PGresult *r = srv_pg_one(st, "SELECT status FROM runs WHERE id = $1", &a, "reading a run", err);
  if (!r) return -1;
  char status[16] = "";
  int found = PQntuples(r) == 1;
  if (found) snprintf(status, sizeof status, "%s", PQgetvalue(r, 0, 0));
  PQclear(r);
  if (!found)
    return lab_fail(err, LAB_E_UNKNOWN_RUN, "id", "no run %lld; GET /api/session lists your runs", (long long)run_id);
  return lab_fail(err, LAB_E_NOT_CANCELLABLE, "id", "run %lld is %s, so it cannot be %s", (long long)run_id, status,
                  wanted);
}

static int op_run_add(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                      const char *backend, double reserve_ms, int64_t *run_id, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, session_id);
  srv_pg_text(&a, experiment);
  srv_pg_text(&a, params_json);
  srv_pg_text(&a, backend ? backend : "auto");
  srv_pg_f64(&a, reserve_ms >= 0 ? reserve_ms : 0);
  PGresult *r = srv_pg_one(srv_pg_impl(s),
                           "WITH run AS (INSERT INTO runs(session_id, learner_id, experiment, params_json, backend,"
                           " status, queued_at, gpu_ms_reserved) SELECT id, learner_id, $2, $3, $4, 'queued',"
                           " gpulab_now_ms(), $5 FROM sessions WHERE id = $1 RETURNING id, learner_id),"
                           " charged AS (UPDATE learners SET gpu_ms_used = gpu_ms_used + $5"
                           " WHERE id = (SELECT learner_id FROM run) RETURNING 1)"
                           " SELECT id, (SELECT count(*) FROM charged) FROM run",
                           &a, "adding a run", err);
  if (!r) return -1;
  int added = PQntuples(r) == 1;
  if (added) *run_id = srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  return added ? 0 : lab_fail(err, LAB_E_NO_SESSION, NULL, "no lab session %lld; join the class again", (long long)session_id);
}

static int op_run_record(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                         const char *backend, const char *result_json, double cpu_ms, long keep, int64_t *run_id,
                         lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, session_id);
  srv_pg_text(&a, experiment);
  srv_pg_text(&a, params_json);
  srv_pg_text(&a, backend ? backend : "simulated");
  srv_pg_text(&a, result_json);
  srv_pg_f64(&a, cpu_ms >= 0 ? cpu_ms : 0);
  srv_pg_i64(&a, keep > 0 ? keep : 1);
  /* Stored as done in one step, charged, and what one learner may store
   * stays bounded: the oldest answers go first. */
  PGresult *r = srv_pg_one(
      srv_pg_impl(s),
      "WITH run AS (INSERT INTO runs(session_id, learner_id, experiment, params_json, backend, status, result_json,"
      " queued_at, started_at, finished_at) SELECT id, learner_id, $2, $3, $4, 'done', $5, gpulab_now_ms(),"
      " gpulab_now_ms(), gpulab_now_ms() FROM sessions WHERE id = $1 RETURNING id, learner_id),"
      " charged AS (UPDATE learners SET cpu_ms_used = cpu_ms_used + $6 WHERE id = (SELECT learner_id FROM run)"
      " RETURNING 1),"
      " pruned AS (DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE learner_id = (SELECT learner_id FROM run)"
      " AND status = 'done' AND backend <> 'cuda' ORDER BY id DESC OFFSET $7 - 1) RETURNING 1)"
      " SELECT id, (SELECT count(*) FROM charged), (SELECT count(*) FROM pruned) FROM run",
      &a, "storing a run", err);
  if (!r) return -1;
  int added = PQntuples(r) == 1;
  if (added) *run_id = srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  return added ? 0 : lab_fail(err, LAB_E_NO_SESSION, NULL, "no lab session %lld; join the class again", (long long)session_id);
}

static int op_run_start(srv_store *s, int64_t run_id, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  PGresult *r = srv_pg_one(st, "UPDATE runs SET status = 'running', started_at = gpulab_now_ms() WHERE id = $1"
                               " AND status = 'queued'",
                           &a, "starting a run", err);
  if (!r) return -1;
  int changed = atoi(PQcmdTuples(r));
  PQclear(r);
  return changed ? 0 : run_not_changed(st, run_id, "started", err);
}

/* A run's end and its charges: the session adds gpu_ms, the learner's
 * reserved estimate is settled to it. $1 run, $2 status, $3 code, $4
 * result, $5 gpu_ms; `which` narrows the runs that may end. */
#define FINISH_SQL(which)                                                                                         \
  "WITH run AS (UPDATE runs SET status = $2, error_code = $3, result_json = $4, gpu_ms = $5,"                     \
  " finished_at = gpulab_now_ms() WHERE id = $1 AND " which " RETURNING session_id, learner_id, gpu_ms_reserved),"  \
  " s AS (UPDATE sessions SET gpu_ms_used = gpu_ms_used + $5 WHERE id = (SELECT session_id FROM run) RETURNING 1)," \
  " l AS (UPDATE learners SET gpu_ms_used = greatest(0, gpu_ms_used + $5 - (SELECT gpu_ms_reserved FROM run))"    \
  " WHERE id = (SELECT learner_id FROM run) RETURNING 1)"

const char srv_pg_finish_sql[] = FINISH_SQL("status IN ('queued', 'running')")
    " SELECT count(*), (SELECT count(*) FROM s), (SELECT count(*) FROM l) FROM run";

/* $6: the worker that must hold the run. */
const char srv_pg_worker_finish_sql[] =
    FINISH_SQL("status = 'running' AND worker_id = $6")
    ", w AS (UPDATE workers SET runs_done = runs_done + 1, runs_failed = runs_failed + (CASE WHEN $2 = 'failed'"
    " THEN 1 ELSE 0 END), run_id = NULL WHERE id = $6 AND EXISTS (SELECT 1 FROM run)"
    " RETURNING 1) SELECT count(*), (SELECT count(*) FROM s), (SELECT count(*) FROM l), (SELECT count(*) FROM w)"
    " FROM run";

int srv_pg_finish(pg_store *st, const char *sql, int64_t worker_id, int64_t run_id, const char *status,
                  const char *error_code, const char *result_json, double gpu_ms, int *changed, lab_error *err) {
  if (!status || (strcmp(status, "done") && strcmp(status, "failed") && strcmp(status, "cancelled")))
    return lab_fail(err, LAB_E_INTERNAL, NULL, "a run finishes as done, failed or cancelled, not %.20s",
                    status ? status : "(null)");
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  srv_pg_text(&a, status);
  srv_pg_text(&a, error_code);
  srv_pg_text(&a, result_json);
  srv_pg_f64(&a, gpu_ms >= 0 ? gpu_ms : 0);
  if (worker_id) srv_pg_i64(&a, worker_id);
  PGresult *r = srv_pg_one(st, sql, &a, "finishing a run", err);
  if (!r) return -1;
  *changed = (int)srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  return 0;
}

static int op_run_finish(srv_store *s, int64_t run_id, const char *status, const char *error_code,
                         const char *result_json, double gpu_ms, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  int changed = 0;
  if (srv_pg_finish(st, srv_pg_finish_sql, 0, run_id, status, error_code, result_json, gpu_ms, &changed, err) != 0)
    return -1;
  if (changed) return 0;
  return run_not_changed(st, run_id, strcmp(status, "cancelled") == 0 ? "cancelled" : "finished again", err);
}

static int op_run_get(srv_store *s, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  srv_pg_i64(&a, session_id);
  PGresult *r = srv_pg_one(srv_pg_impl(s),
                           "SELECT id, experiment, params_json, backend, status, error_code, result_json, queued_at,"
                           " started_at, finished_at, gpu_ms FROM runs WHERE id = $1 AND session_id = $2",
                           &a, "reading a run", err);
  if (!r) return -1;
  if (PQntuples(r) != 1) {
    PQclear(r);
    /* Another session's run answers exactly like a run that does not exist. */
    return lab_fail(err, LAB_E_UNKNOWN_RUN, "id", "no run %lld in your session; GET /api/session lists your runs",
                    (long long)run_id);
  }
  cJSON *o = cJSON_CreateObject();
  int ok = srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, 0, 0))) &&
           srv_pg_add(o, "experiment", srv_pg_col_text(r, 0, 1)) && srv_pg_add(o, "params", srv_pg_col_json(r, 0, 2)) &&
           srv_pg_add(o, "backend", srv_pg_col_text(r, 0, 3)) && srv_pg_add(o, "status", srv_pg_col_text(r, 0, 4)) &&
           srv_pg_add(o, "error_code", srv_pg_col_text(r, 0, 5)) && srv_pg_add(o, "result", srv_pg_col_json(r, 0, 6)) &&
           srv_pg_add(o, "queued_at", srv_pg_col_time(r, 0, 7)) &&
           srv_pg_add(o, "started_at", srv_pg_col_time(r, 0, 8)) &&
           srv_pg_add(o, "finished_at", srv_pg_col_time(r, 0, 9)) &&
           srv_pg_add(o, "gpu_ms", cJSON_CreateNumber(srv_pg_get_f64(r, 0, 10)));
  PQclear(r);
  if (!ok) {
    cJSON_Delete(o);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  *out = o;
  return 0;
}

static cJSON *run_row(const PGresult *r, int i) {
  cJSON *o = cJSON_CreateObject();
  int ok = srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
           srv_pg_add(o, "experiment", srv_pg_col_text(r, i, 1)) && srv_pg_add(o, "backend", srv_pg_col_text(r, i, 2)) &&
           srv_pg_add(o, "status", srv_pg_col_text(r, i, 3)) && srv_pg_add(o, "error_code", srv_pg_col_text(r, i, 4)) &&
           srv_pg_add(o, "queued_at", srv_pg_col_time(r, i, 5)) &&
           srv_pg_add(o, "started_at", srv_pg_col_time(r, i, 6)) &&
           srv_pg_add(o, "finished_at", srv_pg_col_time(r, i, 7));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

/* A query with one bigint parameter (or none), its rows as an array. */
static int rows_of(pg_store *st, const char *sql, const int64_t *id, srv_pg_row_fn row, const char *what, cJSON **out,
                   lab_error *err) {
  pg_args a = {0};
  if (id) srv_pg_i64(&a, *id);
  return srv_pg_rows_of(st, sql, &a, row, what, out, err);
}

static int op_runs_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err) {
  return rows_of(srv_pg_impl(s),
                 "SELECT id, experiment, backend, status, error_code, queued_at, started_at, finished_at FROM runs"
                 " WHERE session_id = $1 ORDER BY id DESC LIMIT " LIST_LIMIT,
                 &session_id, run_row, "listing runs", out, err);
}

static cJSON *unfinished_row(const PGresult *r, int i) {
  cJSON *o = cJSON_CreateObject();
  int ok = srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
           srv_pg_add(o, "session_id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 1))) &&
           srv_pg_add(o, "experiment", srv_pg_col_text(r, i, 2)) && srv_pg_add(o, "params", srv_pg_col_json(r, i, 3)) &&
           srv_pg_add(o, "backend", srv_pg_col_text(r, i, 4)) && srv_pg_add(o, "status", srv_pg_col_text(r, i, 5)) &&
           srv_pg_add(o, "queued_at", srv_pg_col_time(r, i, 6)) &&
           srv_pg_add(o, "learner_id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 7)));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static int op_runs_unfinished(srv_store *s, cJSON **out, lab_error *err) {
  return rows_of(srv_pg_impl(s),
                 "SELECT id, session_id, experiment, params_json, backend, status, queued_at, coalesce(learner_id, 0)"
                 " FROM runs WHERE status IN ('queued', 'running') ORDER BY id",
                 NULL, unfinished_row, "listing unfinished runs", out, err);
}

/* ---- the instructor's view --------------------------------------------------- */

static cJSON *learner_row(const PGresult *r, int i) {
  cJSON *o = cJSON_CreateObject();
  double live = srv_pg_get_f64(r, i, 4);
  int ok = srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
           srv_pg_add(o, "name", srv_pg_col_text(r, i, 1)) && srv_pg_add(o, "created", srv_pg_col_time(r, i, 2)) &&
           srv_pg_add(o, "last_seen", srv_pg_col_time(r, i, 3)) &&
           srv_pg_add(o, "active", cJSON_CreateBool(live > 0)) &&
           srv_pg_add(o, "gpu_seconds_used", cJSON_CreateNumber(srv_pg_get_f64(r, i, 6) / 1000.0));
  double counts[6];
  for (int k = 0; k < 6; k++) counts[k] = srv_pg_get_f64(r, i, 7 + k);
  if (ok && srv_store_learner_runs(o, counts, live, srv_pg_get_f64(r, i, 5)) == 0) return o;
  cJSON_Delete(o);
  return NULL;
}

/* learner_id, lesson, attempts, best score, total, passed once, last attempt */
static cJSON *overview_quiz_row(const PGresult *r, int i) {
  cJSON *o = cJSON_CreateObject();
  int ok = srv_pg_add(o, "learner_id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
           srv_pg_add(o, "lesson", srv_pg_col_text(r, i, 1)) &&
           srv_pg_add(o, "attempts", cJSON_CreateNumber(srv_pg_get_f64(r, i, 2))) &&
           srv_pg_add(o, "best_score", cJSON_CreateNumber(srv_pg_get_f64(r, i, 3))) &&
           srv_pg_add(o, "total", cJSON_CreateNumber(srv_pg_get_f64(r, i, 4))) &&
           srv_pg_add(o, "passed", cJSON_CreateBool(PQgetvalue(r, i, 5)[0] == 't')) &&
           srv_pg_add(o, "last_at", srv_pg_col_time(r, i, 6));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static cJSON *waiting_row(const PGresult *r, int i) {
  cJSON *o = cJSON_CreateObject();
  int ok = srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
           srv_pg_add(o, "session_id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 1))) &&
           srv_pg_add(o, "name", srv_pg_col_text(r, i, 2)) && srv_pg_add(o, "experiment", srv_pg_col_text(r, i, 3)) &&
           srv_pg_add(o, "status", srv_pg_col_text(r, i, 4)) && srv_pg_add(o, "queued_at", srv_pg_col_time(r, i, 5));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static int op_class_overview(srv_store *s, cJSON **out, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  cJSON *learners = NULL, *quiz = NULL, *waiting = NULL;
  if (rows_of(st,
              "SELECT l.id, l.name, l.created, (SELECT max(last_seen) FROM sessions WHERE learner_id = l.id),"
              " (SELECT count(*) FROM sessions WHERE learner_id = l.id AND ended IS NULL),"
              " (SELECT count(*) FROM sessions WHERE learner_id = l.id),"
              " (SELECT coalesce(sum(gpu_ms_used), 0) FROM sessions WHERE learner_id = l.id), count(r.id),"
              " count(*) FILTER (WHERE r.status = 'queued'), count(*) FILTER (WHERE r.status = 'running'),"
              " count(*) FILTER (WHERE r.status = 'done'), count(*) FILTER (WHERE r.status = 'failed'),"
              " count(*) FILTER (WHERE r.status = 'cancelled') FROM learners l"
              " LEFT JOIN sessions s ON s.learner_id = l.id LEFT JOIN runs r ON r.session_id = s.id"
              " GROUP BY l.id ORDER BY l.id",
              NULL, learner_row, "listing learners", &learners, err) != 0 ||
      rows_of(st,
              "SELECT s.learner_id, q.lesson, count(*), max(q.score), max(q.total), bool_or(q.passed), max(q.at)"
              " FROM quiz_attempts q JOIN sessions s ON s.id = q.session_id WHERE s.learner_id IS NOT NULL"
              " GROUP BY s.learner_id, q.lesson ORDER BY s.learner_id, q.lesson LIMIT " OVERVIEW_QUIZ_LIMIT,
              NULL, overview_quiz_row, "listing quiz attempts", &quiz, err) != 0 ||
      rows_of(st,
              "SELECT r.id, r.session_id, s.name, r.experiment, r.status, r.queued_at FROM runs r"
              " JOIN sessions s ON s.id = r.session_id WHERE r.status IN ('queued', 'running') ORDER BY r.id",
              NULL, waiting_row, "listing waiting runs", &waiting, err) != 0)
    goto fail;
  return srv_store_overview_assemble(learners, quiz, waiting, out, err);
fail:
  cJSON_Delete(learners);
  cJSON_Delete(quiz);
  cJSON_Delete(waiting);
  return -1;
}

/* id, session_id, then the attempt's fields */
static cJSON *page_row(const PGresult *r, int i) {
  cJSON *o = srv_pg_quiz_fields(r, i, 2);
  if (o && !(srv_pg_add(o, "id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 0))) &&
             srv_pg_add(o, "session_id", cJSON_CreateNumber((double)srv_pg_get_i64(r, i, 1))))) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* The count, then the page, as in SQLite (an attempt stored in between
 * shows on a page and not yet in the count: harmless). */
static int op_quiz_page(srv_store *s, int64_t learner_id, int64_t offset, long limit, cJSON **out, int64_t *total,
                        lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args a = {0};
  srv_pg_i64(&a, learner_id);
  PGresult *r = srv_pg_one(st,
                           "SELECT count(*) FROM quiz_attempts q JOIN sessions s ON s.id = q.session_id"
                           " WHERE s.learner_id = $1",
                           &a, "counting quiz attempts", err);
  if (!r) return -1;
  *total = PQntuples(r) == 1 ? srv_pg_get_i64(r, 0, 0) : 0;
  PQclear(r);
  srv_pg_i64(&a, offset);
  srv_pg_i64(&a, limit);
  return srv_pg_rows_of(st,
                        "SELECT q.id, q.session_id, q.lesson, q.score, q.total, q.passed, q.at FROM quiz_attempts q"
                        " JOIN sessions s ON s.id = q.session_id WHERE s.learner_id = $1 ORDER BY q.id DESC"
                        " LIMIT $3 OFFSET $2",
                        &a, page_row, "listing quiz attempts", out, err);
}

void srv_pg_runs_ops(srv_store_ops *ops) {
  ops->run_add = op_run_add;
  ops->run_record = op_run_record;
  ops->run_start = op_run_start;
  ops->run_finish = op_run_finish;
  ops->run_get = op_run_get;
  ops->runs_list = op_runs_list;
  ops->runs_unfinished = op_runs_unfinished;
  ops->class_overview = op_class_overview;
  ops->quiz_page = op_quiz_page;
}
