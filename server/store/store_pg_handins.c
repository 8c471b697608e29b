/* The PostgreSQL store's kit runs handed in (store.h, handin_add): the file
 * and its summary per learner, the newest SRV_HANDINS_PER_LEARNER kept.
 * One transaction adds the new one and deletes what falls past the bound
 * under a lock of the learner's row, so two servers taking the same
 * learner's hand-ins at once keep the bound. */
#include "cjson_compat.h"
#include "store_pg.h"

static int op_handin_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *kit_json,
                         const char *summary_json, long keep, int64_t *id, long *kept, lab_error *err) {
  pg_store *st = srv_pg_impl(s);
  pg_args me = {0}, add = {0}, trim = {0};
  srv_pg_i64(&me, learner_id);
  srv_pg_i64(&add, learner_id);
  srv_pg_i64(&add, session_id);
  srv_pg_text(&add, kit_json);
  srv_pg_text(&add, summary_json);
  srv_pg_i64(&trim, learner_id);
  srv_pg_i64(&trim, keep > 0 ? keep : 1);
  PGconn *c = srv_pg_take(st, err);
  PGresult *r = NULL;
  int rc = -1, found = 0;
  if (!c) return -1;
  /* The learner's row locked first: two hand-ins of one learner, on two
   * servers, take turns, and each statement after the lock sees the other's
   * rows, so the bound holds. */
  if (srv_pg_do(st, c, "BEGIN", NULL, "storing a run handed in", err) != 0) goto done;
  if (!(r = srv_pg_run(st, c, "SELECT id FROM learners WHERE id = $1 FOR UPDATE", &me, "storing a run handed in", err)))
    goto done;
  found = PQntuples(r) == 1;
  PQclear(r);
  if (!found) {
    lab_fail(err, LAB_E_NO_SESSION, NULL, "no learner %lld; join the class again", (long long)learner_id);
    goto done;
  }
  if (!(r = srv_pg_run(st, c, "INSERT INTO handins(learner_id, session_id, at, kit_json, summary_json)"
                              " VALUES($1, $2, gpulab_now_ms(), $3, $4) RETURNING id", &add, "storing a run handed in", err)))
    goto done;
  *id = srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  if (srv_pg_do(st, c, "DELETE FROM handins WHERE id IN (SELECT id FROM handins WHERE learner_id = $1"
                       " ORDER BY id DESC OFFSET $2)", &trim, "storing a run handed in", err) != 0 ||
      !(r = srv_pg_run(st, c, "SELECT count(*) FROM handins WHERE learner_id = $1", &me, "storing a run handed in", err)))
    goto done;
  *kept = (long)srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  rc = srv_pg_do(st, c, "COMMIT", NULL, "storing a run handed in", err);
done:
  if (rc != 0) srv_pg_rollback(c);
  srv_pg_give(st, c);
  return rc;
}

static cJSON *handin_row(const PGresult *r, int row) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && cJSON_AddNumberToObject(o, "id", (double)srv_pg_get_i64(r, row, 0)) &&
           srv_pg_add(o, "at", srv_pg_col_time(r, row, 1)) && srv_pg_add(o, "summary", srv_pg_col_json(r, row, 2));
  if (ok && PQnfields(r) > 3)
    ok = cJSON_AddNumberToObject(o, "learner_id", (double)srv_pg_get_i64(r, row, 3)) &&
         srv_pg_add(o, "name", srv_pg_col_text(r, row, 4));
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static int op_handins_mine(srv_store *s, int64_t learner_id, cJSON **out, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, learner_id);
  return srv_pg_rows_of(srv_pg_impl(s), "SELECT id, at, summary_json FROM handins WHERE learner_id = $1 ORDER BY id DESC",
                        &a, handin_row, "reading runs handed in", out, err);
}

static int op_handins_class(srv_store *s, cJSON **out, lab_error *err) {
  return srv_pg_rows_of(srv_pg_impl(s),
                        "SELECT h.id, h.at, h.summary_json, h.learner_id, l.name FROM handins h"
                        " JOIN learners l ON l.id = h.learner_id ORDER BY h.id DESC",
                        NULL, handin_row, "reading runs handed in", out, err);
}

void srv_pg_handins_ops(srv_store_ops *ops) {
  ops->handin_add = op_handin_add;
  ops->handins_mine = op_handins_mine;
  ops->handins_class = op_handins_class;
}
