/* The SQLite backend's shared helpers (store_sqlite_db.h): errors mapped to
 * gpulab's, statements reset and stepped, the file still the one opened.
 * The backend's other files call these; nothing here calls them back. */
#include <sys/stat.h>

#include "store_sqlite_db.h"

/* Maps an SQLite result to gpulab's errors: a lock held elsewhere is
 * store_busy (retry soon), a full disk or any I/O trouble store_unavailable. */
int srv_sqlite_fail(sqlite_store *st, int rc, const char *what, lab_error *err) {
  const char *detail = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return lab_fail(err, LAB_E_STORE_BUSY, NULL,
                    "the class database is locked by another process while %s (%s); retry in a few seconds", what,
                    detail);
  case SQLITE_FULL:
    return lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
                    "the class database is full while %s (the disk or its size limit): free disk space on the "
                    "server; runs already finished are kept",
                    what);
  case SQLITE_IOERR:
  case SQLITE_READONLY:
  case SQLITE_CANTOPEN:
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
  case SQLITE_PERM:
  case SQLITE_PROTOCOL:
    return lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
                    "the class database %.200s cannot be used while %s (%s); check that the disk is writable and "
                    "not full",
                    st->path, what, detail);
  case SQLITE_NOMEM:
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  default:
    return lab_fail(err, LAB_E_INTERNAL, NULL, "the class database failed while %s (%s)", what, detail);
  }
}

sqlite3_stmt *srv_sqlite_reset(sqlite3_stmt *s) {
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return s;
}

int srv_sqlite_exec_done(sqlite_store *st, sqlite3_stmt *s, const char *what, lab_error *err) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) return srv_sqlite_fail(st, rc, what, err);
  return 0;
}

int srv_sqlite_file_ok(sqlite_store *st, lab_error *err) {
  struct stat now;
  if (stat(st->path, &now) == 0 && now.st_dev == st->dev && now.st_ino == st->ino) return 0;
  return lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
                  "the class database %.200s was removed or replaced while the server ran, so nothing more is "
                  "stored; put it back (or restart the server to begin a new one) and tell your instructor",
                  st->path);
}

int srv_sqlite_bind_text(sqlite3_stmt *s, int i, const char *text) {
  return text ? sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}
