/* The course's run totals (store.h: run_totals) for /metrics: runs by
 * state and the queue-wait histogram, in one scan of the runs table. The
 * server caches the answer a few seconds (api_metrics.c), so a scrape every
 * 15 s from each Prometheus costs one query per server. And the claim by
 * which each finished run is counted in one server's run metrics, once. */
#include <stdio.h>
#include <string.h>

#include "store_pg.h"

static int op_run_totals(srv_store *s, srv_store_totals *out, lab_error *err) {
  static const double le[SRV_QUEUE_WAIT_BUCKETS] = SRV_QUEUE_WAIT_LE_S;
  /* The statement is built once from the bucket table: one FILTER per state
   * and per bucket (started_at is reset when a run is handed back, so a
   * wait ends at the claim that ran it). */
  char sql[2048];
  size_t at = (size_t)snprintf(sql, sizeof sql, "SELECT count(*) FILTER (WHERE started_at IS NOT NULL),"
                                                " coalesce(sum(started_at - queued_at) FILTER (WHERE started_at IS NOT NULL), 0)");
  for (int i = 0; i < SRV_RUN_STATES && at < sizeof sql; i++)
    at += (size_t)snprintf(sql + at, sizeof sql - at, ", count(*) FILTER (WHERE status = '%s')", srv_store_run_state[i]);
  for (int i = 0; i < SRV_QUEUE_WAIT_BUCKETS && at < sizeof sql; i++)
    at += (size_t)snprintf(sql + at, sizeof sql - at, ", count(*) FILTER (WHERE started_at - queued_at <= %.0f)",
                           le[i] * 1000.0);
  if (at >= sizeof sql - 64) return lab_fail(err, LAB_E_INTERNAL, NULL, "the totals statement is too long");
  snprintf(sql + at, sizeof sql - at, " FROM runs WHERE backend = 'cuda'");
  PGresult *r = srv_pg_one(srv_pg_impl(s), sql, NULL, "reading the run totals", err);
  if (!r) return -1;
  out->waited = (long)srv_pg_get_i64(r, 0, 0);
  out->waited_s = srv_pg_get_f64(r, 0, 1) / 1000.0;
  for (int i = 0; i < SRV_RUN_STATES; i++) out->by_state[i] = (long)srv_pg_get_i64(r, 0, 2 + i);
  for (int i = 0; i < SRV_QUEUE_WAIT_BUCKETS; i++)
    out->waited_le[i] = (long)srv_pg_get_i64(r, 0, 2 + SRV_RUN_STATES + i);
  PQclear(r);
  return 0;
}

/* One statement marks the runs counted and returns them; SKIP LOCKED lets
 * servers sweeping at once take different runs, and the NOT counted test
 * under the row lock makes a run's claim happen once. */
static int op_runs_count_claim(srv_store *s, int64_t run_id, int max, srv_store_counted *out, int *n,
                               lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, run_id);
  srv_pg_i64(&a, max > 0 ? max : 1);
  PGresult *r = srv_pg_one(srv_pg_impl(s),
                           "UPDATE runs SET counted = true WHERE id IN (SELECT id FROM runs WHERE NOT counted"
                           " AND backend = 'cuda' AND status IN ('done','failed','cancelled') AND ($1::bigint <= 0 OR id = $1::bigint)"
                           " ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED) AND NOT counted"
                           " RETURNING id, status, gpu_ms",
                           &a, "counting finished runs", err);
  if (!r) return -1;
  int rows = PQntuples(r);
  for (int i = 0; i < rows && i < max; i++) {
    out[i].run_id = srv_pg_get_i64(r, i, 0);
    snprintf(out[i].status, sizeof out[i].status, "%s", PQgetvalue(r, i, 1));
    out[i].gpu_ms = srv_pg_get_f64(r, i, 2);
    *n = i + 1;
  }
  PQclear(r);
  return 0;
}

void srv_pg_totals_ops(srv_store_ops *ops) {
  ops->run_totals = op_run_totals;
  ops->runs_count_claim = op_runs_count_claim;
}
