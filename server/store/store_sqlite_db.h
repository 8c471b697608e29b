/* Inside the SQLite store: the handle and the helpers its files share,
 * defined in store_sqlite_db.c, which calls none of the others (as
 * store_pg.h is store_pg.c's): store_sqlite.c (sessions, runs, quiz, the
 * instructor's view, open and close) fills the operations table from
 * store_sqlite_limits.c (learners and the limit windows),
 * store_sqlite_class.c (the class) and store_sqlite_handins.c (the kit runs
 * handed in). Nothing outside the store includes
 * this; callers use store.h. */
#ifndef SRV_STORE_SQLITE_DB_H
#define SRV_STORE_SQLITE_DB_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/types.h>

#include "store_backend.h"

struct srv_sqlite_limits; /* store_sqlite_limits.c's prepared statements */

typedef struct sqlite_store {
  srv_store base; /* first: a srv_store* is a sqlite_store* */
  sqlite3 *db;
  sqlite3_stmt **st; /* store_sqlite.c's prepared statements */
  struct srv_sqlite_limits *limits;
  pthread_mutex_t lock; /* every use of db, statement step to last column read */
  char path[512];
  dev_t dev; /* the database file opened, to notice it removed or replaced */
  ino_t ino;
} sqlite_store;

static inline sqlite_store *srv_sqlite_impl(srv_store *s) { return (sqlite_store *)s; }

/* Maps an SQLite result to gpulab's errors: a lock held elsewhere is
 * store_busy, a full disk or any I/O trouble store_unavailable. Returns -1. */
int srv_sqlite_fail(sqlite_store *st, int rc, const char *what, lab_error *err);
/* Resets a statement (clearing bindings) for its next use; returns it. */
sqlite3_stmt *srv_sqlite_reset(sqlite3_stmt *s);
/* Steps a statement that returns no rows; 0 or -1 with err. */
int srv_sqlite_exec_done(sqlite_store *st, sqlite3_stmt *s, const char *what, lab_error *err);
/* NULL text binds NULL. */
int srv_sqlite_bind_text(sqlite3_stmt *s, int i, const char *text);
/* 0 while the database file is the one opened; store_unavailable once it
 * was removed or replaced (writes would go to a file nobody will read). */
int srv_sqlite_file_ok(sqlite_store *st, lab_error *err);

/* An operation `static int op_NAME params` that runs `do_NAME args` under
 * the connection's lock, after checking the file is still there. */
#define SRV_SQLITE_LOCKED_OP(name, params, args)                  \
  static int op_##name params {                                   \
    sqlite_store *st_ = srv_sqlite_impl(s);                       \
    pthread_mutex_lock(&st_->lock);                               \
    int rc_ = srv_sqlite_file_ok(st_, err) ? -1 : do_##name args; \
    pthread_mutex_unlock(&st_->lock);                             \
    return rc_;                                                   \
  }

/* store_sqlite_limits.c: prepares its statements once the schema is there. */
int srv_sqlite_limits_open(sqlite_store *st, lab_error *err);
void srv_sqlite_limits_close(sqlite_store *st);
/* Its operations, for the ops table. */
void srv_sqlite_limits_ops(srv_store_ops *ops);
/* store_sqlite_class.c's operations: the class row. */
void srv_sqlite_class_ops(srv_store_ops *ops);
/* store_sqlite_handins.c's: the kit runs learners hand in. */
void srv_sqlite_handins_ops(srv_store_ops *ops);

#endif
