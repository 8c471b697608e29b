/* The SQLite store's learners and limits (see store.h). A limit is a token
 * bucket kept as its events (limit_bucket.h): the events of the last two
 * periods are read in time order through the (kind, subject, at) index.
 * Events older than SRV_LIMIT_KEEP_MS are dropped every PRUNE_EVERY adds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limit_bucket.h"
#include "store_sqlite_db.h"

#define PRUNE_EVERY 256

/* X(id, sql) */
#define LIMIT_STATEMENTS(X) \
  X(LEARNER_ADD, "INSERT INTO learners(token_hash,name,created) VALUES(?,?,?)") \
  X(LEARNER_FIND, "SELECT id,name,gpu_ms_used,cpu_ms_used FROM learners WHERE token_hash=?") \
  X(LEARNER_NAME, "UPDATE learners SET name=? WHERE id=?") \
  X(WINDOW, "SELECT at,cost FROM limit_events WHERE kind=? AND subject=? AND at>? ORDER BY at LIMIT 4096") \
  X(EVENT_ADD, "INSERT INTO limit_events(kind,subject,at,cost) VALUES(?,?,?,?)") \
  X(EVENT_COST, "UPDATE limit_events SET cost=? WHERE id=?") \
  X(EVENT_UNDO, "DELETE FROM limit_events WHERE id=?") \
  X(EVENT_PRUNE, "DELETE FROM limit_events WHERE at<?")

enum {
#define X_ENUM(id, sql) LS_##id,
  LIMIT_STATEMENTS(X_ENUM)
#undef X_ENUM
      LS_COUNT
};

static const char *const limit_sql[] = {
#define X_SQL(id, sql) sql,
    LIMIT_STATEMENTS(X_SQL)
#undef X_SQL
};

struct srv_sqlite_limits {
  sqlite3_stmt *st[LS_COUNT];
  unsigned adds; /* since the last prune */
};

static sqlite3_stmt *stmt(sqlite_store *st, int id) { return srv_sqlite_reset(st->limits->st[id]); }

/* ---- learners ----------------------------------------------------------- */

static int do_learner_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          srv_store_learner *out, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = stmt(st, LS_LEARNER_ADD);
  sqlite3_bind_blob(q, 1, hash, SRV_HASH_BYTES, SQLITE_STATIC);
  srv_sqlite_bind_text(q, 2, name);
  sqlite3_bind_int64(q, 3, srv_store_now_ms());
  if (srv_sqlite_exec_done(st, q, "adding a learner", err) != 0) return -1;
  memset(out, 0, sizeof *out);
  out->id = sqlite3_last_insert_rowid(st->db);
  snprintf(out->name, sizeof out->name, "%s", name);
  return 0;
}

static int do_learner_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                           srv_store_learner *out, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = stmt(st, LS_LEARNER_FIND);
  sqlite3_bind_blob(q, 1, hash, SRV_HASH_BYTES, SQLITE_STATIC);
  int rc = sqlite3_step(q);
  if (rc != SQLITE_ROW) {
    sqlite3_reset(q);
    if (rc == SQLITE_DONE) return lab_fail(err, LAB_E_NO_SESSION, NULL, "no learner for this cookie; join the class");
    return srv_sqlite_fail(st, rc, "looking up a learner", err);
  }
  memset(out, 0, sizeof *out);
  out->id = sqlite3_column_int64(q, 0);
  snprintf(out->name, sizeof out->name, "%s", (const char *)sqlite3_column_text(q, 1));
  out->gpu_ms_used = sqlite3_column_double(q, 2);
  out->cpu_ms_used = sqlite3_column_double(q, 3);
  sqlite3_reset(q);
  if (!name || strcmp(name, out->name) == 0) return 0;
  q = stmt(st, LS_LEARNER_NAME);
  srv_sqlite_bind_text(q, 1, name);
  sqlite3_bind_int64(q, 2, out->id);
  if (srv_sqlite_exec_done(st, q, "renaming a learner", err) != 0) return -1;
  snprintf(out->name, sizeof out->name, "%s", name);
  return 0;
}

/* ---- limit windows -------------------------------------------------------- */

static int do_limit_check(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                          double max_cost, double *retry_after_s, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  *retry_after_s = 0;
  int64_t now = srv_store_now_ms();
  sqlite3_stmt *q = stmt(st, LS_WINDOW);
  srv_sqlite_bind_text(q, 1, kind);
  srv_sqlite_bind_text(q, 2, subject);
  sqlite3_bind_int64(q, 3, now - 2 * window_ms);
  srv_limit_event *ev = malloc(SRV_LIMIT_WINDOW_ROWS * sizeof *ev);
  if (!ev) {
    sqlite3_reset(q);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  long n = 0;
  int rc;
  while (n < SRV_LIMIT_WINDOW_ROWS && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    ev[n].at = sqlite3_column_int64(q, 0);
    ev[n].cost = sqlite3_column_double(q, 1);
    n++;
  }
  if (n == SRV_LIMIT_WINDOW_ROWS) rc = SQLITE_DONE;
  sqlite3_reset(q);
  if (rc != SQLITE_DONE) {
    free(ev);
    return srv_sqlite_fail(st, rc, "reading a limit window", err);
  }
  *retry_after_s = srv_limit_wait_s(ev, n, now, window_ms, max_count, max_cost);
  free(ev);
  if (*retry_after_s == 0) return 0;
  return lab_fail(err, LAB_E_RATE_LIMITED, NULL, "too many %s for now; retry in %.0f s", kind, *retry_after_s);
}

static int do_limit_add(srv_store *s, const char *kind, const char *subject, double cost, int64_t *event_id,
                        lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  int64_t now = srv_store_now_ms();
  if (++st->limits->adds >= PRUNE_EVERY) {
    st->limits->adds = 0;
    sqlite3_stmt *p = stmt(st, LS_EVENT_PRUNE);
    sqlite3_bind_int64(p, 1, now - SRV_LIMIT_KEEP_MS);
    lab_error ignored; /* dropping old rows can wait for the next time */
    (void)srv_sqlite_exec_done(st, p, "dropping old limit events", &ignored);
  }
  sqlite3_stmt *q = stmt(st, LS_EVENT_ADD);
  srv_sqlite_bind_text(q, 1, kind);
  srv_sqlite_bind_text(q, 2, subject);
  sqlite3_bind_int64(q, 3, now);
  sqlite3_bind_double(q, 4, cost);
  if (srv_sqlite_exec_done(st, q, "counting a request", err) != 0) return -1;
  if (event_id) *event_id = sqlite3_last_insert_rowid(st->db);
  return 0;
}

static int do_limit_cost(srv_store *s, int64_t event_id, double cost, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = stmt(st, LS_EVENT_COST);
  sqlite3_bind_double(q, 1, cost);
  sqlite3_bind_int64(q, 2, event_id);
  return srv_sqlite_exec_done(st, q, "charging a request", err);
}

static int do_limit_undo(srv_store *s, int64_t event_id, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = stmt(st, LS_EVENT_UNDO);
  sqlite3_bind_int64(q, 1, event_id);
  return srv_sqlite_exec_done(st, q, "uncounting a request", err);
}

/* One process owns an SQLite store: under its lock, check and add are one step. */
static int do_limit_take(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                         double max_cost, double *retry_after_s, int64_t *event_id, lab_error *err) {
  if (do_limit_check(s, kind, subject, window_ms, max_count, max_cost, retry_after_s, err) != 0) return -1;
  return do_limit_add(s, kind, subject, 0, event_id, err);
}

/* ---- under the lock; open and close ---------------------------------------- */

SRV_SQLITE_LOCKED_OP(learner_add,
                     (srv_store * s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                      srv_store_learner *out, lab_error *err),
                     (s, hash, name, out, err))
SRV_SQLITE_LOCKED_OP(learner_find,
                     (srv_store * s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                      srv_store_learner *out, lab_error *err),
                     (s, hash, name, out, err))
SRV_SQLITE_LOCKED_OP(limit_check,
                     (srv_store * s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                      double max_cost, double *retry_after_s, lab_error *err),
                     (s, kind, subject, window_ms, max_count, max_cost, retry_after_s, err))
SRV_SQLITE_LOCKED_OP(limit_add,
                     (srv_store * s, const char *kind, const char *subject, double cost, int64_t *event_id,
                      lab_error *err),
                     (s, kind, subject, cost, event_id, err))
SRV_SQLITE_LOCKED_OP(limit_cost, (srv_store * s, int64_t event_id, double cost, lab_error *err),
                     (s, event_id, cost, err))
SRV_SQLITE_LOCKED_OP(limit_undo, (srv_store * s, int64_t event_id, lab_error *err), (s, event_id, err))
SRV_SQLITE_LOCKED_OP(limit_take,
                     (srv_store * s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                      double max_cost, double *retry_after_s, int64_t *event_id, lab_error *err),
                     (s, kind, subject, window_ms, max_count, max_cost, retry_after_s, event_id, err))

void srv_sqlite_limits_ops(srv_store_ops *ops) {
  ops->learner_add = op_learner_add;
  ops->learner_find = op_learner_find;
  ops->limit_check = op_limit_check;
  ops->limit_add = op_limit_add;
  ops->limit_cost = op_limit_cost;
  ops->limit_undo = op_limit_undo;
  ops->limit_take = op_limit_take;
}

int srv_sqlite_limits_open(sqlite_store *st, lab_error *err) {
  if (!(st->limits = calloc(1, sizeof *st->limits))) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  for (int i = 0; i < LS_COUNT; i++) {
    int rc = sqlite3_prepare_v3(st->db, limit_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->limits->st[i], NULL);
    if (rc != SQLITE_OK) return srv_sqlite_fail(st, rc, "preparing statements", err);
  }
  return 0;
}

void srv_sqlite_limits_close(sqlite_store *st) {
  if (!st->limits) return;
  for (int i = 0; i < LS_COUNT; i++) sqlite3_finalize(st->limits->st[i]);
  free(st->limits);
  st->limits = NULL;
}
