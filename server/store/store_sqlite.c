/* The embedded class store: one SQLite database in WAL mode (readers never
 * wait for the writer), foreign keys on, a busy timeout, prepared statements
 * only. One connection guarded by a mutex: a class's write rate is tens per
 * second, far below what one connection commits. synchronous=FULL, so a
 * finished run survives a power cut, not only a server restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cjson_compat.h"
#include "store_sqlite_db.h"

#define BUSY_TIMEOUT_MS 2000
#define SCHEMA_VERSION 4
#define LIST_LIMIT 200           /* rows one learner's lists show */
#define OVERVIEW_QUIZ_LIMIT 5000 /* (learner, lesson) summaries the instructor view reads */

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS sessions("
    " id INTEGER PRIMARY KEY, token_hash BLOB NOT NULL UNIQUE, name TEXT NOT NULL,"
    " created INTEGER NOT NULL, last_seen INTEGER NOT NULL, gpu_ms_used REAL NOT NULL DEFAULT 0,"
    " ended INTEGER);"
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id),"
    " experiment TEXT NOT NULL, params_json TEXT, backend TEXT NOT NULL,"
    " status TEXT NOT NULL CHECK(status IN ('queued','running','done','failed','cancelled')),"
    " error_code TEXT, result_json TEXT, gpu_ms REAL NOT NULL DEFAULT 0,"
    " queued_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER);"
    "CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_id, id);"
    "CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, id);"
    "CREATE TABLE IF NOT EXISTS quiz_attempts("
    " id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id), lesson TEXT NOT NULL,"
    " score REAL NOT NULL, total REAL NOT NULL, passed INTEGER NOT NULL, answers_json TEXT, at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS quiz_by_session ON quiz_attempts(session_id, id);";

/* Version 2: learners (a session belongs to one; limits and quotas are the
 * learner's), what a queued run reserved of the quota, and the limit
 * windows. Applied to a new database and to one of version 1 alike. */
static const char schema_v2[] =
    "CREATE TABLE learners("
    " id INTEGER PRIMARY KEY, token_hash BLOB NOT NULL UNIQUE, name TEXT NOT NULL, created INTEGER NOT NULL,"
    " gpu_ms_used REAL NOT NULL DEFAULT 0, cpu_ms_used REAL NOT NULL DEFAULT 0);"
    "ALTER TABLE sessions ADD COLUMN learner_id INTEGER REFERENCES learners(id);"
    "CREATE INDEX sessions_by_learner ON sessions(learner_id);"
    "ALTER TABLE runs ADD COLUMN gpu_ms_reserved REAL NOT NULL DEFAULT 0;"
    "CREATE TABLE limit_events("
    " id INTEGER PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL, at INTEGER NOT NULL,"
    " cost REAL NOT NULL DEFAULT 0);"
    "CREATE INDEX limit_events_by_subject ON limit_events(kind, subject, at);";

/* Version 3: the class itself (one row), so a restart keeps its join code
 * and instructor token and adopts its settings (store.h: class_get). */
static const char schema_v3[] =
    "CREATE TABLE class(id INTEGER PRIMARY KEY CHECK(id=1), config_json TEXT NOT NULL,"
    " instructor_hash BLOB NOT NULL, created INTEGER NOT NULL);";

/* Version 4: the measurement kit runs learners hand in (store.h,
 * handin_add), each with its learner, kept until the class's database goes. */
static const char schema_v4[] =
    "CREATE TABLE handins(id INTEGER PRIMARY KEY, learner_id INTEGER NOT NULL REFERENCES learners(id),"
    " session_id INTEGER NOT NULL REFERENCES sessions(id), at INTEGER NOT NULL, kit_json TEXT NOT NULL,"
    " summary_json TEXT NOT NULL);"
    "CREATE INDEX handins_by_learner ON handins(learner_id, id);";

/* X(id, sql) */
#define STATEMENTS(X) \
  X(BEGIN, "BEGIN IMMEDIATE") \
  X(COMMIT, "COMMIT") \
  X(SESSION_ADD, "INSERT INTO sessions(token_hash,name,created,last_seen,learner_id) VALUES(?,?,?,?,?)") \
  X(SESSION_FIND, "SELECT s.id,s.name,s.created,s.last_seen,s.learner_id,l.gpu_ms_used,l.cpu_ms_used FROM sessions s" \
                  " LEFT JOIN learners l ON l.id=s.learner_id WHERE s.token_hash=? AND s.ended IS NULL") \
  X(SESSION_TOUCH, "UPDATE sessions SET last_seen=? WHERE id=?") \
  X(SESSION_END, "UPDATE sessions SET ended=? WHERE id=? AND ended IS NULL") \
  X(SESSION_TRIM, "UPDATE sessions SET ended=? WHERE learner_id=? AND ended IS NULL AND id NOT IN (SELECT id FROM" \
                  " sessions WHERE learner_id=? AND ended IS NULL ORDER BY id DESC LIMIT " \
                  LIMIT_TEXT(SRV_LIVE_SESSIONS_PER_LEARNER) ")") \
  X(LEARNER_GPU, "SELECT gpu_ms_used FROM learners WHERE id=?") \
  X(SESSIONS_ACTIVE, "SELECT count(*) FROM sessions WHERE ended IS NULL") \
  X(RUN_ADD, "INSERT INTO runs(session_id,experiment,params_json,backend,status,queued_at,gpu_ms_reserved)" \
             " VALUES(?,?,?,?,'queued',?,?)") \
  X(RUN_RESERVE, "UPDATE learners SET gpu_ms_used=gpu_ms_used+? WHERE id=(SELECT learner_id FROM sessions WHERE id=?)") \
  X(RUN_RECORD, "INSERT INTO runs(session_id,experiment,params_json,backend,status,result_json,queued_at,started_at," \
                "finished_at) VALUES(?,?,?,?,'done',?,?,?,?)") \
  X(RUN_CPU, "UPDATE learners SET cpu_ms_used=cpu_ms_used+? WHERE id=(SELECT learner_id FROM sessions WHERE id=?)") \
  X(RUN_PRUNE, "DELETE FROM runs WHERE id IN (SELECT r.id FROM runs r JOIN sessions s ON s.id=r.session_id" \
               " WHERE s.learner_id=(SELECT learner_id FROM sessions WHERE id=?) AND r.backend<>'cuda'" \
               " AND r.status='done' ORDER BY r.id DESC LIMIT -1 OFFSET ?)") \
  X(RUN_START, "UPDATE runs SET status='running', started_at=? WHERE id=? AND status='queued'") \
  X(RUN_FINISH, "UPDATE runs SET status=?, error_code=?, result_json=?, gpu_ms=?, finished_at=?" \
                " WHERE id=? AND status IN ('queued','running')") \
  X(RUN_CHARGE, "UPDATE sessions SET gpu_ms_used=gpu_ms_used+? WHERE id=(SELECT session_id FROM runs WHERE id=?)") \
  X(RUN_SETTLE, "UPDATE learners SET gpu_ms_used=max(0,gpu_ms_used+?-(SELECT gpu_ms_reserved FROM runs WHERE id=?))" \
                " WHERE id=(SELECT s.learner_id FROM runs r JOIN sessions s ON s.id=r.session_id WHERE r.id=?)") \
  X(RUN_EXISTS, "SELECT status FROM runs WHERE id=?") \
  X(RUN_GET, "SELECT id,experiment,params_json,backend,status,error_code,result_json,queued_at,started_at," \
             "finished_at,gpu_ms FROM runs WHERE id=? AND session_id=?") \
  X(RUNS_LIST, "SELECT id,experiment,backend,status,error_code,queued_at,started_at,finished_at FROM runs" \
               " WHERE session_id=? ORDER BY id DESC LIMIT " LIMIT_TEXT(LIST_LIMIT)) \
  X(RUNS_UNFINISHED, "SELECT r.id,r.session_id,r.experiment,r.params_json,r.backend,r.status,r.queued_at," \
                     "s.learner_id FROM runs r JOIN sessions s ON s.id=r.session_id" \
                     " WHERE r.status IN ('queued','running') ORDER BY r.id") \
  X(QUIZ_ADD, "INSERT INTO quiz_attempts(session_id,lesson,score,total,passed,answers_json,at) VALUES(?,?,?,?,?,?,?)") \
  X(QUIZ_LIST, "SELECT lesson,score,total,passed,at FROM quiz_attempts WHERE session_id=? ORDER BY id DESC LIMIT " \
               LIMIT_TEXT(LIST_LIMIT)) \
  X(OV_LEARNERS, "SELECT l.id,l.name,l.created,(SELECT max(last_seen) FROM sessions WHERE learner_id=l.id)," \
                 "(SELECT count(*) FROM sessions WHERE learner_id=l.id AND ended IS NULL)," \
                 "(SELECT count(*) FROM sessions WHERE learner_id=l.id)," \
                 "(SELECT total(gpu_ms_used) FROM sessions WHERE learner_id=l.id),count(r.id)," \
                 "sum(r.status='queued'),sum(r.status='running'),sum(r.status='done'),sum(r.status='failed')," \
                 "sum(r.status='cancelled') FROM learners l LEFT JOIN sessions s ON s.learner_id=l.id" \
                 " LEFT JOIN runs r ON r.session_id=s.id GROUP BY l.id ORDER BY l.id") \
  X(OV_QUIZ, "SELECT s.learner_id,q.lesson,count(*),max(q.score),max(q.total),max(q.passed),max(q.at)" \
             " FROM quiz_attempts q JOIN sessions s ON s.id=q.session_id WHERE s.learner_id IS NOT NULL" \
             " GROUP BY s.learner_id,q.lesson ORDER BY s.learner_id,q.lesson LIMIT " LIMIT_TEXT(OVERVIEW_QUIZ_LIMIT)) \
  X(QUIZ_COUNT, "SELECT count(*) FROM quiz_attempts q JOIN sessions s ON s.id=q.session_id WHERE s.learner_id=?") \
  X(QUIZ_PAGE, "SELECT q.id,q.session_id,q.lesson,q.score,q.total,q.passed,q.at FROM quiz_attempts q" \
               " JOIN sessions s ON s.id=q.session_id WHERE s.learner_id=? ORDER BY q.id DESC LIMIT ? OFFSET ?") \
  X(OV_WAITING, "SELECT r.id,r.session_id,s.name,r.experiment,r.status,r.queued_at FROM runs r" \
                " JOIN sessions s ON s.id=r.session_id WHERE r.status IN ('queued','running') ORDER BY r.id")

#define LIMIT_TEXT_(n) #n
#define LIMIT_TEXT(n) LIMIT_TEXT_(n)

enum {
#define X_ENUM(id, sql) ST_##id,
  STATEMENTS(X_ENUM)
#undef X_ENUM
      ST_COUNT
};

static const char *const statement_sql[] = {
#define X_SQL(id, sql) sql,
    STATEMENTS(X_SQL)
#undef X_SQL
};

#define impl srv_sqlite_impl


static sqlite3_stmt *stmt(sqlite_store *st, int id) { return srv_sqlite_reset(st->st[id]); }

static int begin(sqlite_store *st, const char *what, lab_error *err) {
  return srv_sqlite_exec_done(st, stmt(st, ST_BEGIN), what, err);
}

static int commit(sqlite_store *st, const char *what, lab_error *err) {
  return srv_sqlite_exec_done(st, stmt(st, ST_COMMIT), what, err);
}

/* After a failure inside a transaction: undo it if SQLite has not already. */
static void rollback(sqlite_store *st) {
  if (!sqlite3_get_autocommit(st->db)) sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}


/* ---- JSON of columns ---------------------------------------------------- */

static cJSON *iso_time(int64_t ms) {
  char out[32];
  srv_store_time_iso(ms, out);
  return cJSON_CreateString(out);
}

static cJSON *col_time(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? cJSON_CreateNull() : iso_time(sqlite3_column_int64(s, i));
}

static cJSON *col_text(sqlite3_stmt *s, int i) {
  const unsigned char *t = sqlite3_column_text(s, i);
  return t ? cJSON_CreateString((const char *)t) : cJSON_CreateNull();
}

/* A stored JSON column back as JSON (null if absent or damaged). */
static cJSON *col_json(sqlite3_stmt *s, int i) {
  const char *t = (const char *)sqlite3_column_text(s, i);
  cJSON *j = t ? cJSON_ParseWithLength(t, (size_t)sqlite3_column_bytes(s, i)) : NULL;
  return j ? j : cJSON_CreateNull();
}

/* Adds item to o; on a NULL item (no memory) returns 0. */
static int add(cJSON *o, const char *key, cJSON *item) {
  if (!item) return 0;
  if (!cJSON_AddItemToObject(o, key, item)) {
    cJSON_Delete(item);
    return 0;
  }
  return 1;
}

/* Fetches the rows of a prepared query into a new array, one object per row
 * built by row(); NULL and err set on failure. */
typedef cJSON *(*row_fn)(sqlite3_stmt *s);

static cJSON *fetch_rows(sqlite_store *st, sqlite3_stmt *s, row_fn row, const char *what, lab_error *err) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    cJSON *o = row(s);
    if (!o || !cJSON_AddItemToArray(arr, o)) {
      cJSON_Delete(o);
      cJSON_Delete(arr);
      sqlite3_reset(s);
      lab_fail(err, LAB_E_NOMEM, NULL, NULL);
      return NULL;
    }
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    cJSON_Delete(arr);
    srv_sqlite_fail(st, rc, what, err);
    return NULL;
  }
  return arr;
}

/* ---- sessions ----------------------------------------------------------- */

static int do_session_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          int64_t learner_id, srv_store_session *out, lab_error *err) {
  sqlite_store *st = impl(s);
  int64_t t = srv_store_now_ms();
  if (begin(st, "adding a session", err) != 0) return -1;
  sqlite3_stmt *q = stmt(st, ST_SESSION_ADD);
  sqlite3_bind_blob(q, 1, hash, SRV_HASH_BYTES, SQLITE_STATIC);
  srv_sqlite_bind_text(q, 2, name);
  sqlite3_bind_int64(q, 3, t);
  sqlite3_bind_int64(q, 4, t);
  sqlite3_bind_int64(q, 5, learner_id);
  int rc = sqlite3_step(q);
  sqlite3_reset(q);
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
    lab_fail(err, LAB_E_NO_SESSION, NULL, "no learner %lld; join the class again", (long long)learner_id);
    goto fail;
  }
  if (rc != SQLITE_DONE) {
    srv_sqlite_fail(st, rc, "adding a session", err);
    goto fail;
  }
  memset(out, 0, sizeof *out);
  out->id = sqlite3_last_insert_rowid(st->db);
  /* the learner's oldest live sessions beyond the cap end with this join */
  q = stmt(st, ST_SESSION_TRIM);
  sqlite3_bind_int64(q, 1, t);
  sqlite3_bind_int64(q, 2, learner_id);
  sqlite3_bind_int64(q, 3, learner_id);
  if (srv_sqlite_exec_done(st, q, "ending a learner's oldest sessions", err) != 0 ||
      commit(st, "adding a session", err) != 0)
    goto fail;
  out->learner_id = learner_id;
  snprintf(out->name, sizeof out->name, "%s", name);
  out->created_ms = out->last_seen_ms = t;
  return 0;
fail:
  rollback(st);
  return -1;
}

static int do_session_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], int64_t touch_after_ms,
                           srv_store_session *out, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_SESSION_FIND);
  sqlite3_bind_blob(q, 1, hash, SRV_HASH_BYTES, SQLITE_STATIC);
  int rc = sqlite3_step(q);
  if (rc == SQLITE_DONE) {
    sqlite3_reset(q);
    return lab_fail(err, LAB_E_NO_SESSION, NULL,
                    "no lab session for this cookie (it ended, or was never valid); join the class again with the "
                    "join code");
  }
  if (rc != SQLITE_ROW) {
    sqlite3_reset(q);
    return srv_sqlite_fail(st, rc, "looking up a session", err);
  }
  memset(out, 0, sizeof *out);
  out->id = sqlite3_column_int64(q, 0);
  snprintf(out->name, sizeof out->name, "%s", (const char *)sqlite3_column_text(q, 1));
  out->created_ms = sqlite3_column_int64(q, 2);
  out->last_seen_ms = sqlite3_column_int64(q, 3);
  out->learner_id = sqlite3_column_int64(q, 4); /* NULL reads as 0 */
  out->gpu_ms_used = sqlite3_column_double(q, 5);
  out->cpu_ms_used = sqlite3_column_double(q, 6);
  int64_t t = srv_store_now_ms();
  sqlite3_reset(q);
  if (t - out->last_seen_ms >= touch_after_ms) {
    /* Best effort: a busy database must not refuse a learner's request
     * because "last seen" could not be noted this minute. */
    sqlite3_stmt *u = stmt(st, ST_SESSION_TOUCH);
    sqlite3_bind_int64(u, 1, t);
    sqlite3_bind_int64(u, 2, out->id);
    lab_error ignored;
    (void)srv_sqlite_exec_done(st, u, "noting a session's last request", &ignored);
  }
  return 0;
}

static int do_session_end(srv_store *s, int64_t session_id, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_SESSION_END);
  sqlite3_bind_int64(q, 1, srv_store_now_ms());
  sqlite3_bind_int64(q, 2, session_id);
  if (srv_sqlite_exec_done(st, q, "ending a session", err) != 0) return -1;
  if (sqlite3_changes(st->db) == 0)
    return lab_fail(err, LAB_E_NO_SESSION, NULL, "this lab session has already ended; join the class again");
  return 0;
}

static int single_number(sqlite_store *st, sqlite3_stmt *q, double *out, const char *what, lab_error *err) {
  int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) *out = sqlite3_column_double(q, 0);
  sqlite3_reset(q);
  if (rc == SQLITE_DONE) return lab_fail(err, LAB_E_NO_SESSION, NULL, "no such lab session; join the class again");
  if (rc != SQLITE_ROW) return srv_sqlite_fail(st, rc, what, err);
  return 0;
}

static int do_learner_gpu_ms(srv_store *s, int64_t learner_id, double *ms, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_LEARNER_GPU);
  sqlite3_bind_int64(q, 1, learner_id);
  return single_number(st, q, ms, "reading a learner's GPU time", err);
}

static int do_sessions_active(srv_store *s, int64_t *count, lab_error *err) {
  sqlite_store *st = impl(s);
  double n = 0;
  if (single_number(st, stmt(st, ST_SESSIONS_ACTIVE), &n, "counting sessions", err) != 0) return -1;
  *count = (int64_t)n;
  return 0;
}

/* ---- runs --------------------------------------------------------------- */

/* Steps an INSERT that names a session: an unknown session is no_session. */
static int insert_for_session(sqlite_store *st, sqlite3_stmt *q, int64_t session_id, const char *what,
                              lab_error *err) {
  int rc = sqlite3_step(q);
  sqlite3_reset(q);
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
    return lab_fail(err, LAB_E_NO_SESSION, NULL, "no lab session %lld; join the class again", (long long)session_id);
  if (rc != SQLITE_DONE) return srv_sqlite_fail(st, rc, what, err);
  return 0;
}

/* The learner of session_id pays cost_ms (negative: a refund) into the column
 * of statement `id` (ST_RUN_RESERVE: GPU time, ST_RUN_CPU: CPU time). */
static int charge(sqlite_store *st, int id, int64_t session_id, double cost_ms, lab_error *err) {
  sqlite3_stmt *q = stmt(st, id);
  sqlite3_bind_double(q, 1, cost_ms);
  sqlite3_bind_int64(q, 2, session_id);
  return srv_sqlite_exec_done(st, q, "charging a learner", err);
}

static int do_run_add(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                      const char *backend, double reserve_ms, int64_t *run_id, lab_error *err) {
  sqlite_store *st = impl(s);
  if (!(reserve_ms >= 0)) reserve_ms = 0;
  if (begin(st, "adding a run", err) != 0) return -1;
  sqlite3_stmt *q = stmt(st, ST_RUN_ADD);
  sqlite3_bind_int64(q, 1, session_id);
  srv_sqlite_bind_text(q, 2, experiment);
  srv_sqlite_bind_text(q, 3, params_json);
  srv_sqlite_bind_text(q, 4, backend ? backend : "auto");
  sqlite3_bind_int64(q, 5, srv_store_now_ms());
  sqlite3_bind_double(q, 6, reserve_ms);
  if (insert_for_session(st, q, session_id, "adding a run", err) != 0) goto fail;
  *run_id = sqlite3_last_insert_rowid(st->db);
  if (charge(st, ST_RUN_RESERVE, session_id, reserve_ms, err) != 0 || commit(st, "adding a run", err) != 0) goto fail;
  return 0;
fail:
  rollback(st);
  return -1;
}

static int do_run_record(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                         const char *backend, const char *result_json, double cpu_ms, long keep, int64_t *run_id,
                         lab_error *err) {
  sqlite_store *st = impl(s);
  int64_t t = srv_store_now_ms();
  if (begin(st, "storing a run", err) != 0) return -1;
  sqlite3_stmt *q = stmt(st, ST_RUN_RECORD);
  sqlite3_bind_int64(q, 1, session_id);
  srv_sqlite_bind_text(q, 2, experiment);
  srv_sqlite_bind_text(q, 3, params_json);
  srv_sqlite_bind_text(q, 4, backend ? backend : "simulated");
  srv_sqlite_bind_text(q, 5, result_json);
  for (int i = 6; i <= 8; i++) sqlite3_bind_int64(q, i, t);
  if (insert_for_session(st, q, session_id, "storing a run", err) != 0) goto fail;
  *run_id = sqlite3_last_insert_rowid(st->db);
  if (charge(st, ST_RUN_CPU, session_id, cpu_ms >= 0 ? cpu_ms : 0, err) != 0) goto fail;
  /* What one learner may store is bounded: the oldest answers go first. */
  q = stmt(st, ST_RUN_PRUNE);
  sqlite3_bind_int64(q, 1, session_id);
  sqlite3_bind_int64(q, 2, keep > 0 ? keep : 1);
  if (srv_sqlite_exec_done(st, q, "dropping a learner's oldest runs", err) != 0 || commit(st, "storing a run", err) != 0)
    goto fail;
  return 0;
fail:
  rollback(st);
  return -1;
}

/* Why an update of run_id changed nothing: unknown, or in the wrong state. */
static int run_not_changed(sqlite_store *st, int64_t run_id, const char *wanted, lab_error *err) {
  sqlite3_stmt *q = stmt(st, ST_RUN_EXISTS);
  sqlite3_bind_int64(q, 1, run_id);
  int rc = sqlite3_step(q);
  char status[16] = "";
  if (rc == SQLITE_ROW) snprintf(status, sizeof status, "%s", (const char *)sqlite3_column_text(q, 0));
  sqlite3_reset(q);
  if (rc == SQLITE_DONE)
    return lab_fail(err, LAB_E_UNKNOWN_RUN, "id", "no run %lld; GET /api/session lists your runs", (long long)run_id);
  if (rc != SQLITE_ROW) return srv_sqlite_fail(st, rc, "reading a run", err);
  return lab_fail(err, LAB_E_NOT_CANCELLABLE, "id", "run %lld is %s, so it cannot be %s", (long long)run_id, status,
                  wanted);
}

static int do_run_start(srv_store *s, int64_t run_id, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_RUN_START);
  sqlite3_bind_int64(q, 1, srv_store_now_ms());
  sqlite3_bind_int64(q, 2, run_id);
  if (srv_sqlite_exec_done(st, q, "starting a run", err) != 0) return -1;
  return sqlite3_changes(st->db) ? 0 : run_not_changed(st, run_id, "started", err);
}

static int do_run_finish(srv_store *s, int64_t run_id, const char *status, const char *error_code,
                         const char *result_json, double gpu_ms, lab_error *err) {
  sqlite_store *st = impl(s);
  if (!status || (strcmp(status, "done") && strcmp(status, "failed") && strcmp(status, "cancelled")))
    return lab_fail(err, LAB_E_INTERNAL, NULL, "a run finishes as done, failed or cancelled, not %.20s",
                    status ? status : "(null)");
  if (!(gpu_ms >= 0)) gpu_ms = 0;
  if (begin(st, "finishing a run", err) != 0) return -1;
  sqlite3_stmt *q = stmt(st, ST_RUN_FINISH);
  srv_sqlite_bind_text(q, 1, status);
  srv_sqlite_bind_text(q, 2, error_code);
  srv_sqlite_bind_text(q, 3, result_json);
  sqlite3_bind_double(q, 4, gpu_ms);
  sqlite3_bind_int64(q, 5, srv_store_now_ms());
  sqlite3_bind_int64(q, 6, run_id);
  if (srv_sqlite_exec_done(st, q, "finishing a run", err) != 0) goto fail;
  if (sqlite3_changes(st->db) == 0) {
    run_not_changed(st, run_id, strcmp(status, "cancelled") == 0 ? "cancelled" : "finished again", err);
    goto fail;
  }
  q = stmt(st, ST_RUN_CHARGE);
  sqlite3_bind_double(q, 1, gpu_ms);
  sqlite3_bind_int64(q, 2, run_id);
  if (srv_sqlite_exec_done(st, q, "adding a run's GPU time", err) != 0) goto fail;
  /* The learner paid an estimate when the run was queued: now the real time. */
  q = stmt(st, ST_RUN_SETTLE);
  sqlite3_bind_double(q, 1, gpu_ms);
  sqlite3_bind_int64(q, 2, run_id);
  sqlite3_bind_int64(q, 3, run_id);
  if (srv_sqlite_exec_done(st, q, "settling a learner's GPU time", err) != 0) goto fail;
  if (commit(st, "finishing a run", err) != 0) goto fail;
  return 0;
fail:
  rollback(st);
  return -1;
}

static int do_run_get(srv_store *s, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_RUN_GET);
  sqlite3_bind_int64(q, 1, run_id);
  sqlite3_bind_int64(q, 2, session_id);
  int rc = sqlite3_step(q);
  if (rc != SQLITE_ROW) {
    sqlite3_reset(q);
    /* Another session's run answers exactly like a run that does not exist. */
    if (rc == SQLITE_DONE)
      return lab_fail(err, LAB_E_UNKNOWN_RUN, "id", "no run %lld in your session; GET /api/session lists your runs",
                      (long long)run_id);
    return srv_sqlite_fail(st, rc, "reading a run", err);
  }
  cJSON *o = cJSON_CreateObject();
  int ok = o && add(o, "id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
           add(o, "experiment", col_text(q, 1)) && add(o, "params", col_json(q, 2)) &&
           add(o, "backend", col_text(q, 3)) && add(o, "status", col_text(q, 4)) &&
           add(o, "error_code", col_text(q, 5)) && add(o, "result", col_json(q, 6)) &&
           add(o, "queued_at", col_time(q, 7)) && add(o, "started_at", col_time(q, 8)) &&
           add(o, "finished_at", col_time(q, 9)) && add(o, "gpu_ms", cJSON_CreateNumber(sqlite3_column_double(q, 10)));
  sqlite3_reset(q);
  if (!ok) {
    cJSON_Delete(o);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  *out = o;
  return 0;
}

static cJSON *run_row(sqlite3_stmt *q) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && add(o, "id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
           add(o, "experiment", col_text(q, 1)) && add(o, "backend", col_text(q, 2)) &&
           add(o, "status", col_text(q, 3)) && add(o, "error_code", col_text(q, 4)) &&
           add(o, "queued_at", col_time(q, 5)) && add(o, "started_at", col_time(q, 6)) &&
           add(o, "finished_at", col_time(q, 7));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static int do_runs_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_RUNS_LIST);
  sqlite3_bind_int64(q, 1, session_id);
  return (*out = fetch_rows(st, q, run_row, "listing runs", err)) ? 0 : -1;
}

static cJSON *unfinished_row(sqlite3_stmt *q) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && add(o, "id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
           add(o, "session_id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 1))) &&
           add(o, "experiment", col_text(q, 2)) && add(o, "params", col_json(q, 3)) &&
           add(o, "backend", col_text(q, 4)) && add(o, "status", col_text(q, 5)) &&
           add(o, "queued_at", col_time(q, 6)) &&
           add(o, "learner_id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 7)));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static int do_runs_unfinished(srv_store *s, cJSON **out, lab_error *err) {
  sqlite_store *st = impl(s);
  return (*out = fetch_rows(st, stmt(st, ST_RUNS_UNFINISHED), unfinished_row, "listing unfinished runs", err)) ? 0
                                                                                                                : -1;
}

/* ---- quiz attempts ------------------------------------------------------ */

static int do_quiz_add(srv_store *s, int64_t session_id, const char *lesson, double score, double total, int passed,
                       const char *answers_json, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_QUIZ_ADD);
  sqlite3_bind_int64(q, 1, session_id);
  srv_sqlite_bind_text(q, 2, lesson);
  sqlite3_bind_double(q, 3, score);
  sqlite3_bind_double(q, 4, total);
  sqlite3_bind_int(q, 5, passed ? 1 : 0);
  srv_sqlite_bind_text(q, 6, answers_json);
  sqlite3_bind_int64(q, 7, srv_store_now_ms());
  return insert_for_session(st, q, session_id, "storing a quiz attempt", err);
}

/* Columns from `first`: lesson, score, total, passed, at. */
static cJSON *quiz_fields(sqlite3_stmt *q, int first) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && add(o, "lesson", col_text(q, first)) &&
           add(o, "score", cJSON_CreateNumber(sqlite3_column_double(q, first + 1))) &&
           add(o, "total", cJSON_CreateNumber(sqlite3_column_double(q, first + 2))) &&
           add(o, "passed", cJSON_CreateBool(sqlite3_column_int(q, first + 3))) && add(o, "at", col_time(q, first + 4));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static cJSON *quiz_row(sqlite3_stmt *q) { return quiz_fields(q, 0); }

static int do_quiz_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err) {
  sqlite_store *st = impl(s);
  sqlite3_stmt *q = stmt(st, ST_QUIZ_LIST);
  sqlite3_bind_int64(q, 1, session_id);
  return (*out = fetch_rows(st, q, quiz_row, "listing quiz attempts", err)) ? 0 : -1;
}

/* ---- the instructor's view ---------------------------------------------- */

static cJSON *learner_row(sqlite3_stmt *q) {
  cJSON *o = cJSON_CreateObject();
  double live = (double)sqlite3_column_int64(q, 4);
  int ok = o && add(o, "id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
           add(o, "name", col_text(q, 1)) && add(o, "created", col_time(q, 2)) && add(o, "last_seen", col_time(q, 3)) &&
           add(o, "active", cJSON_CreateBool(live > 0)) &&
           add(o, "gpu_seconds_used", cJSON_CreateNumber(sqlite3_column_double(q, 6) / 1000.0));
  double counts[6];
  for (int i = 0; i < 6; i++) counts[i] = (double)sqlite3_column_int64(q, 7 + i);
  if (ok && srv_store_learner_runs(o, counts, live, (double)sqlite3_column_int64(q, 5)) == 0) return o;
  cJSON_Delete(o);
  return NULL;
}

/* learner_id, lesson, attempts, best score, total, passed once, last attempt */
static cJSON *overview_quiz_row(sqlite3_stmt *q) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && add(o, "learner_id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
           add(o, "lesson", col_text(q, 1)) &&
           add(o, "attempts", cJSON_CreateNumber((double)sqlite3_column_int64(q, 2))) &&
           add(o, "best_score", cJSON_CreateNumber(sqlite3_column_double(q, 3))) &&
           add(o, "total", cJSON_CreateNumber(sqlite3_column_double(q, 4))) &&
           add(o, "passed", cJSON_CreateBool(sqlite3_column_int(q, 5))) && add(o, "last_at", col_time(q, 6));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

/* id, session_id, then the attempt's fields */
static cJSON *page_row(sqlite3_stmt *q) {
  cJSON *o = quiz_fields(q, 2);
  if (o && !(add(o, "id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
             add(o, "session_id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 1))))) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static int do_quiz_page(srv_store *s, int64_t learner_id, int64_t offset, long limit, cJSON **out, int64_t *total,
                        lab_error *err) {
  sqlite_store *st = impl(s);
  double n = 0;
  sqlite3_stmt *q = stmt(st, ST_QUIZ_COUNT);
  sqlite3_bind_int64(q, 1, learner_id);
  if (single_number(st, q, &n, "counting quiz attempts", err) != 0) return -1;
  *total = (int64_t)n;
  q = stmt(st, ST_QUIZ_PAGE);
  sqlite3_bind_int64(q, 1, learner_id);
  sqlite3_bind_int64(q, 2, limit);
  sqlite3_bind_int64(q, 3, offset);
  return (*out = fetch_rows(st, q, page_row, "listing quiz attempts", err)) ? 0 : -1;
}

static cJSON *waiting_row(sqlite3_stmt *q) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && add(o, "id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 0))) &&
           add(o, "session_id", cJSON_CreateNumber((double)sqlite3_column_int64(q, 1))) &&
           add(o, "name", col_text(q, 2)) && add(o, "experiment", col_text(q, 3)) && add(o, "status", col_text(q, 4)) &&
           add(o, "queued_at", col_time(q, 5));
  if (!ok) cJSON_Delete(o);
  return ok ? o : NULL;
}

static int do_class_overview(srv_store *s, cJSON **out, lab_error *err) {
  sqlite_store *st = impl(s);
  cJSON *learners = NULL, *quiz = NULL, *waiting = NULL;
  if (!(learners = fetch_rows(st, stmt(st, ST_OV_LEARNERS), learner_row, "listing learners", err))) goto fail;
  if (!(quiz = fetch_rows(st, stmt(st, ST_OV_QUIZ), overview_quiz_row, "listing quiz attempts", err))) goto fail;
  if (!(waiting = fetch_rows(st, stmt(st, ST_OV_WAITING), waiting_row, "listing waiting runs", err))) goto fail;
  return srv_store_overview_assemble(learners, quiz, waiting, out, err);
fail:
  cJSON_Delete(learners);
  cJSON_Delete(quiz);
  cJSON_Delete(waiting);
  return -1;
}

/* ---- every operation under the connection's lock ------------------------ */

#define LOCKED_OP SRV_SQLITE_LOCKED_OP

LOCKED_OP(session_add,
          (srv_store * s, const unsigned char hash[SRV_HASH_BYTES], const char *name, int64_t learner_id,
           srv_store_session *out, lab_error *err),
          (s, hash, name, learner_id, out, err))
LOCKED_OP(session_find,
          (srv_store * s, const unsigned char hash[SRV_HASH_BYTES], int64_t touch_after_ms, srv_store_session *out,
           lab_error *err),
          (s, hash, touch_after_ms, out, err))
LOCKED_OP(session_end, (srv_store * s, int64_t session_id, lab_error *err), (s, session_id, err))
LOCKED_OP(learner_gpu_ms, (srv_store * s, int64_t learner_id, double *ms, lab_error *err), (s, learner_id, ms, err))
LOCKED_OP(sessions_active, (srv_store * s, int64_t *count, lab_error *err), (s, count, err))
LOCKED_OP(run_add,
          (srv_store * s, int64_t session_id, const char *experiment, const char *params_json, const char *backend,
           double reserve_ms, int64_t *run_id, lab_error *err),
          (s, session_id, experiment, params_json, backend, reserve_ms, run_id, err))
LOCKED_OP(run_record,
          (srv_store * s, int64_t session_id, const char *experiment, const char *params_json, const char *backend,
           const char *result_json, double cpu_ms, long keep, int64_t *run_id, lab_error *err),
          (s, session_id, experiment, params_json, backend, result_json, cpu_ms, keep, run_id, err))
LOCKED_OP(run_start, (srv_store * s, int64_t run_id, lab_error *err), (s, run_id, err))
LOCKED_OP(run_finish,
          (srv_store * s, int64_t run_id, const char *status, const char *error_code, const char *result_json,
           double gpu_ms, lab_error *err),
          (s, run_id, status, error_code, result_json, gpu_ms, err))
LOCKED_OP(run_get, (srv_store * s, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err),
          (s, session_id, run_id, out, err))
LOCKED_OP(runs_list, (srv_store * s, int64_t session_id, cJSON **out, lab_error *err), (s, session_id, out, err))
LOCKED_OP(runs_unfinished, (srv_store * s, cJSON **out, lab_error *err), (s, out, err))
LOCKED_OP(quiz_add,
          (srv_store * s, int64_t session_id, const char *lesson, double score, double total, int passed,
           const char *answers_json, lab_error *err),
          (s, session_id, lesson, score, total, passed, answers_json, err))
LOCKED_OP(quiz_list, (srv_store * s, int64_t session_id, cJSON **out, lab_error *err), (s, session_id, out, err))
LOCKED_OP(class_overview, (srv_store * s, cJSON **out, lab_error *err), (s, out, err))
LOCKED_OP(quiz_page,
          (srv_store * s, int64_t learner_id, int64_t offset, long limit, cJSON **out, int64_t *total,
           lab_error *err),
          (s, learner_id, offset, limit, out, total, err))

/* ---- open / close ------------------------------------------------------- */

static void op_close(srv_store *s) {
  sqlite_store *st = impl(s);
  srv_sqlite_limits_close(st);
  for (int i = 0; st->st && i < ST_COUNT; i++) sqlite3_finalize(st->st[i]);
  free(st->st);
  sqlite3_close(st->db);
  pthread_mutex_destroy(&st->lock);
  free(st);
}

/* Completed by store_sqlite_limits.c's operations at the first open. */
static srv_store_ops sqlite_ops = {
    .kind = "sqlite",
    .close = op_close,
    .session_add = op_session_add,
    .session_find = op_session_find,
    .session_end = op_session_end,
    .learner_gpu_ms = op_learner_gpu_ms,
    .sessions_active = op_sessions_active,
    .run_add = op_run_add,
    .run_record = op_run_record,
    .run_start = op_run_start,
    .run_finish = op_run_finish,
    .run_get = op_run_get,
    .runs_list = op_runs_list,
    .runs_unfinished = op_runs_unfinished,
    .quiz_add = op_quiz_add,
    .quiz_list = op_quiz_list,
    .class_overview = op_class_overview,
    .quiz_page = op_quiz_page,
};

/* One-row PRAGMA (or query) whose first column is text: copies it out. */
static int pragma_text(sqlite_store *st, const char *sql, char *out, size_t n, lab_error *err) {
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(st->db, sql, -1, &q, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(q, 0);
    snprintf(out, n, "%s", t ? (const char *)t : "");
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    out[0] = 0;
    rc = SQLITE_OK;
  }
  sqlite3_finalize(q);
  return rc == SQLITE_OK ? 0 : srv_sqlite_fail(st, rc, "opening the database", err);
}

static int setup(sqlite_store *st, lab_error *err) {
  char mode[16], version[16];
  int rc = sqlite3_extended_result_codes(st->db, 1);
  if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
  if (rc != SQLITE_OK) return srv_sqlite_fail(st, rc, "opening the database", err);
  if (pragma_text(st, "PRAGMA journal_mode=WAL", mode, sizeof mode, err) != 0) return -1;
  if (strcmp(mode, "wal") != 0)
    return lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
                    "the class database %.200s cannot use write-ahead logging (journal mode %s); put it on a local "
                    "disk",
                    st->path, mode);
  if (pragma_text(st, "PRAGMA foreign_keys=ON", mode, sizeof mode, err) != 0 ||
      pragma_text(st, "PRAGMA synchronous=FULL", mode, sizeof mode, err) != 0 ||
      pragma_text(st, "PRAGMA user_version", version, sizeof version, err) != 0)
    return -1;
  if (atoi(version) > SCHEMA_VERSION)
    return lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
                    "the class database %.200s was written by a newer gpulab (schema %s); use that version or "
                    "another --db",
                    st->path, version);
  char *msg = NULL;
  rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(st->db, schema, NULL, NULL, &msg);
  if (rc == SQLITE_OK && atoi(version) < 2) rc = sqlite3_exec(st->db, schema_v2, NULL, NULL, &msg);
  if (rc == SQLITE_OK && atoi(version) < 3) rc = sqlite3_exec(st->db, schema_v3, NULL, NULL, &msg);
  if (rc == SQLITE_OK && atoi(version) < 4) rc = sqlite3_exec(st->db, schema_v4, NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(st->db, "PRAGMA user_version=" LIMIT_TEXT(SCHEMA_VERSION), NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
  sqlite3_free(msg);
  if (rc != SQLITE_OK) {
    srv_sqlite_fail(st, rc, "creating the tables", err);
    rollback(st);
    return -1;
  }
  if (!(st->st = calloc(ST_COUNT, sizeof *st->st))) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  for (int i = 0; i < ST_COUNT; i++) {
    rc = sqlite3_prepare_v3(st->db, statement_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->st[i], NULL);
    if (rc != SQLITE_OK) return srv_sqlite_fail(st, rc, "preparing statements", err);
  }
  return srv_sqlite_limits_open(st, err);
}

int srv_store_open(const char *path, srv_store **out, lab_error *err) {
  *out = NULL;
  if (!path || !path[0])
    return lab_fail(err, LAB_E_USAGE, "db", "the class database needs a file name (--db FILE)");
  sqlite_store *st = calloc(1, sizeof *st);
  if (!st) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  srv_sqlite_limits_ops(&sqlite_ops);
  srv_sqlite_class_ops(&sqlite_ops);
  srv_sqlite_handins_ops(&sqlite_ops);
  st->base.ops = &sqlite_ops;
  snprintf(st->path, sizeof st->path, "%s", path);
  pthread_mutex_init(&st->lock, NULL);
  /* NOMUTEX: the store's own lock serialises every use of the connection
   * (a statement's step and column reads must not interleave). */
  int rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK) {
    if ((rc & 0xff) == SQLITE_CANTOPEN)
      lab_fail(err, LAB_E_STORE_UNAVAILABLE, "db",
               "cannot open the class database %.200s: check that its folder exists and is writable", path);
    else
      srv_sqlite_fail(st, rc, "opening the database", err);
    op_close(&st->base);
    return -1;
  }
  struct stat file;
  if (setup(st, err) != 0) {
    op_close(&st->base);
    return -1;
  }
  if (stat(path, &file) != 0) {
    lab_fail(err, LAB_E_STORE_UNAVAILABLE, "db", "cannot find the class database %.200s it just opened", path);
    op_close(&st->base);
    return -1;
  }
  st->dev = file.st_dev;
  st->ino = file.st_ino;
  *out = &st->base;
  return 0;
}

int srv_store_sqlite_cap_pages(srv_store *s, long extra_pages, lab_error *err) {
  if (s->ops != &sqlite_ops) return lab_fail(err, LAB_E_USAGE, NULL, "the page cap is a test hook of the SQLite store");
  sqlite_store *st = impl(s);
  char n[32], sql[64];
  pthread_mutex_lock(&st->lock);
  int rc = pragma_text(st, "PRAGMA page_count", n, sizeof n, err);
  if (rc == 0) {
    snprintf(sql, sizeof sql, "PRAGMA max_page_count=%lld", atoll(n) + (long long)extra_pages);
    rc = pragma_text(st, sql, n, sizeof n, err);
  }
  pthread_mutex_unlock(&st->lock);
  return rc;
}
