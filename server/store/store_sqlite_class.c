/* The SQLite store's class row (see store.h): created once, by the first
 * server that opens the file, and read back by every later start. Rare
 * (start-up only), so its statements are prepared per call. */
#include <stdio.h>
#include <string.h>

#include "store_sqlite_db.h"

/* Reads the class row into out; *exists 0 when there is none. */
static int read_class(sqlite_store *st, srv_store_class *out, int *exists, lab_error *err) {
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(st->db, "SELECT config_json, instructor_hash FROM class WHERE id=1", -1, &q, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(q);
  *exists = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW) {
    const void *hash = sqlite3_column_blob(q, 1);
    memset(out, 0, sizeof *out);
    snprintf(out->config_json, sizeof out->config_json, "%s", (const char *)sqlite3_column_text(q, 0));
    if (hash && sqlite3_column_bytes(q, 1) == SRV_HASH_BYTES) memcpy(out->instructor_hash, hash, SRV_HASH_BYTES);
    rc = SQLITE_DONE;
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? 0 : srv_sqlite_fail(st, rc, "reading the class", err);
}

static int do_class_get(srv_store *s, srv_store_class *out, int *exists, lab_error *err) {
  return read_class(srv_sqlite_impl(s), out, exists, err);
}

static int do_class_create(srv_store *s, const srv_store_class *wanted, srv_store_class *out, int *created,
                           lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(st->db,
                              "INSERT INTO class(id, config_json, instructor_hash, created) VALUES(1,?,?,?)"
                              " ON CONFLICT(id) DO NOTHING",
                              -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(q, 1, wanted->config_json, -1, SQLITE_STATIC);
    sqlite3_bind_blob(q, 2, wanted->instructor_hash, SRV_HASH_BYTES, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, srv_store_now_ms());
    rc = sqlite3_step(q);
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE) return srv_sqlite_fail(st, rc, "storing the class", err);
  *created = sqlite3_changes(st->db) > 0;
  int exists = 0;
  return read_class(st, out, &exists, err);
}

static int do_class_update(srv_store *s, const char *config_json, const unsigned char *hash, lab_error *err) {
  sqlite_store *st = srv_sqlite_impl(s);
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(
      st->db, "UPDATE class SET config_json=?, instructor_hash=coalesce(?, instructor_hash) WHERE id=1", -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(q, 1, config_json, -1, SQLITE_STATIC);
    if (hash) sqlite3_bind_blob(q, 2, hash, SRV_HASH_BYTES, SQLITE_STATIC);
    else sqlite3_bind_null(q, 2);
    rc = sqlite3_step(q);
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? 0 : srv_sqlite_fail(st, rc, "updating the class", err);
}

SRV_SQLITE_LOCKED_OP(class_get, (srv_store * s, srv_store_class *out, int *exists, lab_error *err),
                     (s, out, exists, err))
SRV_SQLITE_LOCKED_OP(class_create,
                     (srv_store * s, const srv_store_class *wanted, srv_store_class *out, int *created,
                      lab_error *err),
                     (s, wanted, out, created, err))
SRV_SQLITE_LOCKED_OP(class_update, (srv_store * s, const char *config_json, const unsigned char *hash, lab_error *err),
                     (s, config_json, hash, err))

void srv_sqlite_class_ops(srv_store_ops *ops) {
  ops->class_get = op_class_get;
  ops->class_create = op_class_create;
  ops->class_update = op_class_update;
}
