/* The SQLite store's kit runs handed in (store.h, handin_add): the file and
 * its summary per learner, the newest SRV_HANDINS_PER_LEARNER kept. A
 * learner hands in a few runs a course, so the statements are prepared per
 * call. */
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "store_sqlite_db.h"

static int do_handin_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *kit_json,
                         const char *summary_json, long keep, int64_t *id, long *kept, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(st->db, "INSERT INTO handins(learner_id, session_id, at, kit_json, summary_json)"
                                    " VALUES(?,?,?,?,?)", -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(q, 1, learner_id);
    sqlite3_bind_int64(q, 2, session_id);
    sqlite3_bind_int64(q, 3, srv_store_now_ms());
    sqlite3_bind_text(q, 4, kit_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 5, summary_json, -1, SQLITE_STATIC);
    rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(st->db);
  }
  sqlite3_finalize(q);
  q = NULL;
  *id = sqlite3_last_insert_rowid(st->db);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(st->db, "DELETE FROM handins WHERE learner_id=?1 AND id NOT IN (SELECT id FROM handins"
                                    " WHERE learner_id=?1 ORDER BY id DESC LIMIT ?2)", -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(q, 1, learner_id);
    sqlite3_bind_int64(q, 2, keep > 0 ? keep : 1);
    rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(st->db);
  }
  sqlite3_finalize(q);
  q = NULL;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(st->db, "SELECT count(*) FROM handins WHERE learner_id=?", -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(q, 1, learner_id);
    rc = sqlite3_step(q) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(st->db);
    *kept = rc == SQLITE_OK ? (long)sqlite3_column_int64(q, 0) : 0;
  }
  sqlite3_finalize(q);
  if (rc == SQLITE_OK) rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    if (!sqlite3_get_autocommit(st->db)) sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return srv_sqlite_fail(st, rc, "storing a run handed in", err);
  }
  return 0;
}

/* Rows of id, at, summary_json[, learner_id, name] into an array, newest first. */
static int list(sqlite_store *st, const char *sql, int64_t learner_id, cJSON **out, lab_error *err) {
  sqlite3_stmt *q = NULL;
  cJSON *arr = cJSON_CreateArray();
  int rc = arr ? sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) : SQLITE_NOMEM;
  if (rc == SQLITE_OK && learner_id) sqlite3_bind_int64(q, 1, learner_id);
  while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    char at[32];
    const char *summary = (const char *)sqlite3_column_text(q, 2);
    cJSON *o = cJSON_CreateObject(), *sj = summary ? cJSON_ParseWithLength(summary, (size_t)sqlite3_column_bytes(q, 2)) : NULL;
    srv_store_time_iso(sqlite3_column_int64(q, 1), at);
    if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(q, 0)) ||
        (!learner_id && (!cJSON_AddNumberToObject(o, "learner_id", (double)sqlite3_column_int64(q, 3)) ||
                         !cJSON_AddStringToObject(o, "name", (const char *)sqlite3_column_text(q, 4)))) ||
        !cJSON_AddStringToObject(o, "at", at) || !cJSON_AddItemToObject(o, "summary", sj ? sj : cJSON_CreateNull())) {
      rc = SQLITE_NOMEM;
      break;
    }
    rc = SQLITE_OK;
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE) {
    cJSON_Delete(arr);
    return rc == SQLITE_NOMEM ? lab_fail(err, LAB_E_NOMEM, NULL, NULL) : srv_sqlite_fail(st, rc, "reading runs handed in", err);
  }
  *out = arr;
  return 0;
}

static int do_handins_mine(srv_store *s, int64_t learner_id, cJSON **out, lab_error *err) {
  return list(srv_sqlite_impl(s), "SELECT id, at, summary_json FROM handins WHERE learner_id=? ORDER BY id DESC",
              learner_id ? learner_id : -1, out, err);
}

static int do_handins_class(srv_store *s, cJSON **out, lab_error *err) {
  return list(srv_sqlite_impl(s), "SELECT h.id, h.at, h.summary_json, h.learner_id, l.name FROM handins h"
                                  " JOIN learners l ON l.id=h.learner_id ORDER BY h.id DESC", 0, out, err);
}

SRV_SQLITE_LOCKED_OP(handin_add,
                     (srv_store * s, int64_t session_id, int64_t learner_id, const char *kit_json,
                      const char *summary_json, long keep, int64_t *id, long *kept, lab_error *err),
                     (s, session_id, learner_id, kit_json, summary_json, keep, id, kept, err))
SRV_SQLITE_LOCKED_OP(handins_mine, (srv_store * s, int64_t learner_id, cJSON **out, lab_error *err),
                     (s, learner_id, out, err))
SRV_SQLITE_LOCKED_OP(handins_class, (srv_store * s, cJSON **out, lab_error *err), (s, out, err))

void srv_sqlite_handins_ops(srv_store_ops *ops) {
  ops->handin_add = op_handin_add;
  ops->handins_mine = op_handins_mine;
  ops->handins_class = op_handins_class;
}
