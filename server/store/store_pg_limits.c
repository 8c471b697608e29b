/* The PostgreSQL store's limit windows (see store.h and limit_bucket.h):
 * the same token buckets as SQLite's, kept as events with the database's
 * clock, so every server counts them alike. limit_take checks and adds in
 * one transaction under an advisory lock on (kind, subject): two servers
 * can never both admit the last event a bucket holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limit_bucket.h"
#include "store_pg.h"

#define PRUNE_EVERY 256 /* adds (per process) between drops of old events */

/* Reads the window of (kind, subject) on c and says how long until it
 * admits one more (0: now); *now_ms is the database's time. */
static int window_wait(pg_store *st, PGconn *c, const char *kind, const char *subject, int64_t window_ms,
                       long max_count, double max_cost, double *retry_after_s, int64_t *now_ms, lab_error *err) {
  pg_args a = {0};
  srv_pg_text(&a, kind);
  srv_pg_text(&a, subject);
  srv_pg_i64(&a, 2 * window_ms);
  /* The last row is the clock: at = now, cost = -1 (never an event's). */
  PGresult *r = srv_pg_run(st, c,
                           "SELECT at, cost, 0 AS k FROM (SELECT at, cost FROM limit_events WHERE kind = $1"
                           " AND subject = $2 AND at > gpulab_now_ms() - $3 ORDER BY at LIMIT "
                           SRV_PG_STR(SRV_LIMIT_WINDOW_ROWS) ") e UNION ALL SELECT gpulab_now_ms(), -1, 1 ORDER BY k, at",
                           &a, "reading a limit window", err);
  if (!r) return -1;
  long n = PQntuples(r) - 1;
  srv_limit_event *ev = malloc((size_t)(n > 0 ? n : 1) * sizeof *ev);
  if (!ev) {
    PQclear(r);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  for (long i = 0; i < n; i++) {
    ev[i].at = srv_pg_get_i64(r, (int)i, 0);
    ev[i].cost = srv_pg_get_f64(r, (int)i, 1);
  }
  *now_ms = srv_pg_get_i64(r, (int)n, 0);
  PQclear(r);
  *retry_after_s = srv_limit_wait_s(ev, n, *now_ms, window_ms, max_count, max_cost);
  free(ev);
  return 0;
}

static int limited(const char *kind, double retry_after_s, lab_error *err) {
  return lab_fail(err, LAB_E_RATE_LIMITED, NULL, "too many %s for now; retry in %.0f s", kind, retry_after_s);
}

static int op_limit_check(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                          double max_cost, double *retry_after_s, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  *retry_after_s = 0;
  PGconn *c = srv_pg_take(st, err);
  if (!c) return -1;
  int64_t now = 0;
  int rc = window_wait(st, c, kind, subject, window_ms, max_count, max_cost, retry_after_s, &now, err);
  srv_pg_give(st, c);
  if (rc != 0) return -1;
  return *retry_after_s == 0 ? 0 : limited(kind, *retry_after_s, err);
}

/* Inserts one event on c (and now and then drops old ones). */
static int add_event(pg_store *st, PGconn *c, const char *kind, const char *subject, double cost, int64_t *event_id,
                     lab_error *err) {
  if (++st->limit_adds % PRUNE_EVERY == 0) {
    pg_args p = {0};
    srv_pg_i64(&p, SRV_LIMIT_KEEP_MS);
    lab_error ignored; /* dropping old rows can wait for the next time */
    (void)srv_pg_do(st, c, "DELETE FROM limit_events WHERE at < gpulab_now_ms() - $1", &p, "dropping old limit events",
                    &ignored);
  }
  pg_args a = {0};
  srv_pg_text(&a, kind);
  srv_pg_text(&a, subject);
  srv_pg_f64(&a, cost);
  PGresult *r = srv_pg_run(st, c,
                           "INSERT INTO limit_events(kind, subject, at, cost) VALUES($1, $2, gpulab_now_ms(), $3)"
                           " RETURNING id",
                           &a, "counting a request", err);
  if (!r) return -1;
  if (event_id) *event_id = srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  return 0;
}

static int op_limit_add(srv_store *s, const char *kind, const char *subject, double cost, int64_t *event_id,
                        lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  PGconn *c = srv_pg_take(st, err);
  if (!c) return -1;
  int rc = add_event(st, c, kind, subject, cost, event_id, err);
  srv_pg_give(st, c);
  return rc;
}

static int op_limit_take(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                         double max_cost, double *retry_after_s, int64_t *event_id, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  const char *what = "counting a request";
  *retry_after_s = 0;
  PGconn *c = srv_pg_take(st, err);
  if (!c) return -1;
  pg_args key = {0};
  srv_pg_text(&key, kind);
  srv_pg_text(&key, subject);
  int64_t now = 0;
  int rc = -1;
  if (srv_pg_do(st, c, "BEGIN", NULL, what, err) == 0 &&
      srv_pg_do(st, c, "SELECT pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))", &key, what, err) == 0 &&
      window_wait(st, c, kind, subject, window_ms, max_count, max_cost, retry_after_s, &now, err) == 0) {
    if (*retry_after_s > 0) limited(kind, *retry_after_s, err);
    else if (add_event(st, c, kind, subject, 0, event_id, err) == 0) rc = srv_pg_do(st, c, "COMMIT", NULL, what, err);
  }
  if (rc != 0) srv_pg_rollback(c);
  srv_pg_give(st, c);
  return rc;
}

static int by_id(srv_store *s, const char *sql, int64_t event_id, const double *cost, const char *what,
                 lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, event_id);
  if (cost) srv_pg_f64(&a, *cost);
  PGresult *r = srv_pg_one(srv_pg_impl(s), sql, &a, what, err);
  PQclear(r);
  return r ? 0 : -1;
}

static int op_limit_cost(srv_store *s, int64_t event_id, double cost, lab_error *err) {
  return by_id(s, "UPDATE limit_events SET cost = $2 WHERE id = $1", event_id, &cost, "charging a request", err);
}

static int op_limit_undo(srv_store *s, int64_t event_id, lab_error *err) {
  return by_id(s, "DELETE FROM limit_events WHERE id = $1", event_id, NULL, "uncounting a request", err);
}

void srv_pg_limits_ops(srv_store_ops *ops) {
  ops->limit_check = op_limit_check;
  ops->limit_add = op_limit_add;
  ops->limit_take = op_limit_take;
  ops->limit_cost = op_limit_cost;
  ops->limit_undo = op_limit_undo;
}
