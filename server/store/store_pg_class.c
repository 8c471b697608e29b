/* The PostgreSQL store's class row, learners, sessions and quiz attempts
 * (see store.h), each one statement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "store_pg.h"

/* ---- the class ------------------------------------------------------------- */

static int read_class(pg_store *st, srv_store_class *out, int *exists, lab_error *err) {
  PGresult *r = srv_pg_one(st, "SELECT config_json, encode(instructor_hash, 'hex') FROM class WHERE id = 1", NULL,
                           "reading the class", err);
  if (!r) return -1;
  *exists = PQntuples(r) == 1;
  if (*exists) {
    memset(out, 0, sizeof *out);
    snprintf(out->config_json, sizeof out->config_json, "%s", PQgetvalue(r, 0, 0));
    const char *hex = PQgetvalue(r, 0, 1);
    for (int i = 0; i < SRV_HASH_BYTES && strlen(hex) == 2 * SRV_HASH_BYTES; i++) {
      unsigned v = 0;
      sscanf(hex + 2 * i, "%2x", &v);
      out->instructor_hash[i] = (unsigned char)v;
    }
  }
  PQclear(r);
  return 0;
}

static int op_class_get(srv_store *s, srv_store_class *out, int *exists, lab_error *err) {
  return read_class(srv_pg_impl(s), out, exists, err);
}

static int op_class_create(srv_store *s, const srv_store_class *wanted, srv_store_class *out, int *created,
                           lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args a = {0};
  srv_pg_text(&a, wanted->config_json);
  srv_pg_hash(&a, wanted->instructor_hash);
  srv_pg_i64(&a, srv_store_now_ms());
  /* Of servers starting together on an empty store, one row wins. */
  PGresult *r = srv_pg_one(st,
                           "INSERT INTO class(id, config_json, instructor_hash, created) VALUES(1, $1, $2, $3)"
                           " ON CONFLICT (id) DO NOTHING",
                           &a, "storing the class", err);
  if (!r) return -1;
  *created = atoi(PQcmdTuples(r)) == 1;
  PQclear(r);
  int exists = 0;
  return read_class(st, out, &exists, err);
}

static int op_class_update(srv_store *s, const char *config_json, const unsigned char *hash, lab_error *err) {
  pg_args a = {0};
  srv_pg_text(&a, config_json);
  if (hash) srv_pg_hash(&a, hash);
  else srv_pg_text(&a, NULL);
  PGresult *r = srv_pg_one(srv_pg_impl(s),
                           "UPDATE class SET config_json = $1, instructor_hash = coalesce($2::bytea, instructor_hash)"
                           " WHERE id = 1",
                           &a, "updating the class", err);
  PQclear(r);
  return r ? 0 : -1;
}

/* ---- learners ------------------------------------------------------------------ */

static int op_learner_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          srv_store_learner *out, lab_error *err) {
  pg_args a = {0};
  srv_pg_hash(&a, hash);
  srv_pg_text(&a, name);
  srv_pg_i64(&a, srv_store_now_ms());
  PGresult *r = srv_pg_one(srv_pg_impl(s), "INSERT INTO learners(token_hash, name, created) VALUES($1, $2, $3) RETURNING id",
                           &a, "adding a learner", err);
  if (!r) return -1;
  memset(out, 0, sizeof *out);
  out->id = srv_pg_get_i64(r, 0, 0);
  snprintf(out->name, sizeof out->name, "%s", name);
  PQclear(r);
  return 0;
}

static int op_learner_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                           srv_store_learner *out, lab_error *err) {
  pg_args a = {0};
  srv_pg_hash(&a, hash);
  srv_pg_text(&a, name);
  /* Found and renamed (when a name is given) in one statement. */
  PGresult *r = srv_pg_one(srv_pg_impl(s),
                           "UPDATE learners SET name = coalesce($2, name) WHERE token_hash = $1"
                           " RETURNING id, name, gpu_ms_used, cpu_ms_used",
                           &a, "looking up a learner", err);
  if (!r) return -1;
  int found = PQntuples(r) == 1;
  if (found) {
    memset(out, 0, sizeof *out);
    out->id = srv_pg_get_i64(r, 0, 0);
    snprintf(out->name, sizeof out->name, "%s", PQgetvalue(r, 0, 1));
    out->gpu_ms_used = srv_pg_get_f64(r, 0, 2);
    out->cpu_ms_used = srv_pg_get_f64(r, 0, 3);
  }
  PQclear(r);
  return found ? 0 : lab_fail(err, LAB_E_NO_SESSION, NULL, "no learner for this cookie; join the class");
}

static int single_number(pg_store *st, const char *sql, const pg_args *a, double *out, const char *what,
                         lab_error *err) {
  PGresult *r = srv_pg_one(st, sql, a, what, err);
  if (!r) return -1;
  int found = PQntuples(r) == 1;
  if (found) *out = srv_pg_get_f64(r, 0, 0);
  PQclear(r);
  return found ? 0 : lab_fail(err, LAB_E_NO_SESSION, NULL, "no such lab session; join the class again");
}

static int op_learner_gpu_ms(srv_store *s, int64_t learner_id, double *ms, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, learner_id);
  return single_number(srv_pg_impl(s), "SELECT gpu_ms_used FROM learners WHERE id = $1", &a, ms,
                       "reading a learner's GPU time", err);
}

/* ---- sessions -------------------------------------------------------------------- */

static int op_session_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          int64_t learner_id, srv_store_session *out, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  int64_t t = srv_store_now_ms();
  pg_args a = {0};
  srv_pg_hash(&a, hash);
  srv_pg_text(&a, name);
  srv_pg_i64(&a, t);
  srv_pg_i64(&a, learner_id);
  srv_pg_i64(&a, SRV_LIVE_SESSIONS_PER_LEARNER - 1);
  /* With the new session, the learner's live sessions beyond the newest
   * SRV_LIVE_SESSIONS_PER_LEARNER - 1 others end (the CTE's snapshot does
   * not see the row it inserts). Two joins of one learner at the same
   * instant may leave one more live until the next join. */
  PGresult *r = srv_pg_one(st,
                           "WITH added AS (INSERT INTO sessions(token_hash, name, created, last_seen, learner_id)"
                           " SELECT $1, $2, $3, $3, id FROM learners WHERE id = $4 RETURNING id),"
                           " trimmed AS (UPDATE sessions SET ended = $3 WHERE learner_id = $4 AND ended IS NULL"
                           " AND EXISTS (SELECT 1 FROM added) AND id NOT IN (SELECT id FROM sessions WHERE"
                           " learner_id = $4 AND ended IS NULL ORDER BY id DESC LIMIT $5))"
                           " SELECT id FROM added",
                           &a, "adding a session", err);
  if (!r) return -1;
  int added = PQntuples(r) == 1;
  memset(out, 0, sizeof *out);
  if (added) out->id = srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  if (!added) return lab_fail(err, LAB_E_NO_SESSION, NULL, "no learner %lld; join the class again", (long long)learner_id);
  out->learner_id = learner_id;
  snprintf(out->name, sizeof out->name, "%s", name);
  out->created_ms = out->last_seen_ms = t;
  return 0;
}

static int op_session_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], int64_t touch_after_ms,
                           srv_store_session *out, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args a = {0};
  srv_pg_hash(&a, hash);
  PGresult *r = srv_pg_one(st,
                           "SELECT s.id, s.name, s.created, s.last_seen, coalesce(s.learner_id, 0),"
                           " coalesce(l.gpu_ms_used, 0), coalesce(l.cpu_ms_used, 0) FROM sessions s"
                           " LEFT JOIN learners l ON l.id = s.learner_id WHERE s.token_hash = $1 AND s.ended IS NULL",
                           &a, "looking up a session", err);
  if (!r) return -1;
  if (PQntuples(r) != 1) {
    PQclear(r);
    return lab_fail(err, LAB_E_NO_SESSION, NULL,
                    "no lab session for this cookie (it ended, or was never valid); join the class again with the "
                    "join code");
  }
  memset(out, 0, sizeof *out);
  out->id = srv_pg_get_i64(r, 0, 0);
  snprintf(out->name, sizeof out->name, "%s", PQgetvalue(r, 0, 1));
  out->created_ms = srv_pg_get_i64(r, 0, 2);
  out->last_seen_ms = srv_pg_get_i64(r, 0, 3);
  out->learner_id = srv_pg_get_i64(r, 0, 4);
  out->gpu_ms_used = srv_pg_get_f64(r, 0, 5);
  out->cpu_ms_used = srv_pg_get_f64(r, 0, 6);
  PQclear(r);
  int64_t t = srv_store_now_ms();
  if (t - out->last_seen_ms >= touch_after_ms) {
    /* Best effort, as in SQLite: noting "last seen" never refuses a request. */
    pg_args u = {0};
    srv_pg_i64(&u, t);
    srv_pg_i64(&u, out->id);
    lab_error ignored;
    PQclear(srv_pg_one(st, "UPDATE sessions SET last_seen = $1 WHERE id = $2", &u, "noting a request", &ignored));
  }
  return 0;
}

static int op_session_end(srv_store *s, int64_t session_id, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, srv_store_now_ms());
  srv_pg_i64(&a, session_id);
  PGresult *r = srv_pg_one(srv_pg_impl(s), "UPDATE sessions SET ended = $1 WHERE id = $2 AND ended IS NULL", &a,
                           "ending a session", err);
  if (!r) return -1;
  int changed = atoi(PQcmdTuples(r));
  PQclear(r);
  return changed ? 0 : lab_fail(err, LAB_E_NO_SESSION, NULL, "this lab session has already ended; join the class again");
}

static int op_sessions_active(srv_store *s, int64_t *count, lab_error *err) {
  double n = 0;
  if (single_number(srv_pg_impl(s), "SELECT count(*) FROM sessions WHERE ended IS NULL", NULL, &n,
                    "counting sessions", err) != 0)
    return -1;
  *count = (int64_t)n;
  return 0;
}

/* ---- quiz attempts ------------------------------------------------------------------ */

static int op_quiz_add(srv_store *s, int64_t session_id, const char *lesson, double score, double total, int passed,
                       const char *answers_json, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, session_id);
  srv_pg_text(&a, lesson);
  srv_pg_f64(&a, score);
  srv_pg_f64(&a, total);
  srv_pg_text(&a, passed ? "true" : "false");
  srv_pg_text(&a, answers_json);
  srv_pg_i64(&a, srv_store_now_ms());
  PGresult *r = srv_pg_one(srv_pg_impl(s),
                           "INSERT INTO quiz_attempts(session_id, lesson, score, total, passed, answers_json, at)"
                           " SELECT id, $2, $3, $4, $5, $6, $7 FROM sessions WHERE id = $1",
                           &a, "storing a quiz attempt", err);
  if (!r) return -1;
  int added = atoi(PQcmdTuples(r));
  PQclear(r);
  return added ? 0 : lab_fail(err, LAB_E_NO_SESSION, NULL, "no lab session %lld; join the class again", (long long)session_id);
}

cJSON *srv_pg_quiz_fields(const PGresult *r, int row, int first) {
  cJSON *o = cJSON_CreateObject();
  int ok = srv_pg_add(o, "lesson", srv_pg_col_text(r, row, first)) &&
           srv_pg_add(o, "score", cJSON_CreateNumber(srv_pg_get_f64(r, row, first + 1))) &&
           srv_pg_add(o, "total", cJSON_CreateNumber(srv_pg_get_f64(r, row, first + 2))) &&
           srv_pg_add(o, "passed", cJSON_CreateBool(PQgetvalue(r, row, first + 3)[0] == 't')) &&
           srv_pg_add(o, "at", srv_pg_col_time(r, row, first + 4));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static cJSON *quiz_row(const PGresult *r, int row) { return srv_pg_quiz_fields(r, row, 0); }

static int op_quiz_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, session_id);
  return srv_pg_rows_of(srv_pg_impl(s),
                        "SELECT lesson, score, total, passed, at FROM quiz_attempts WHERE session_id = $1"
                        " ORDER BY id DESC LIMIT 200",
                        &a, quiz_row, "listing quiz attempts", out, err);
}

void srv_pg_class_ops(srv_store_ops *ops) {
  ops->class_get = op_class_get;
  ops->class_create = op_class_create;
  ops->class_update = op_class_update;
  ops->learner_add = op_learner_add;
  ops->learner_find = op_learner_find;
  ops->learner_gpu_ms = op_learner_gpu_ms;
  ops->session_add = op_session_add;
  ops->session_find = op_session_find;
  ops->session_end = op_session_end;
  ops->sessions_active = op_sessions_active;
  ops->quiz_add = op_quiz_add;
  ops->quiz_list = op_quiz_list;
}
