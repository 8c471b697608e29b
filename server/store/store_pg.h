/* Inside the PostgreSQL store: the handle, its connections and the helpers
 * its files share (store_pg.c: connections, errors, open and close;
 * store_pg_schema.c: migrations; store_pg_class.c: the class, learners,
 * sessions, quiz; store_pg_runs.c: runs and the instructor's view;
 * store_pg_queue.c: the shared GPU queue; store_pg_workers.c: workers,
 * LISTEN and liveness; store_pg_limits.c: limit windows;
 * store_pg_handins.c: the kit runs learners hand in). Nothing outside
 * the store includes this; callers use store.h. */
#ifndef SRV_STORE_PG_H
#define SRV_STORE_PG_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>

#include "store_backend.h"

#define SRV_PG_POOL 6     /* connections a process holds for requests */
#define SRV_PG_MAX_ARGS 12 /* parameters of one statement, at most */
#define SRV_PG_NOTIFY "gpulab_runs" /* the channel workers LISTEN on */
#define SRV_PG_LOCK_SPACE 7346 /* advisory locks (SPACE, worker id) say a worker's connection lives */
#define SRV_PG_ROLE_SPACE 7347 /* advisory locks (SPACE, 2 × role): its holder; (SPACE, 2 × role + 1): who may hold it */

#define SRV_PG_STR_(x) #x
#define SRV_PG_STR(x) SRV_PG_STR_(x)
/* Workers alive: a heartbeat at most SRV_WORKER_ALIVE_MS old, not gone. */
#define SRV_PG_ALIVE_SQL "gone_at IS NULL AND heartbeat_at >= gpulab_now_ms() - " SRV_PG_STR(SRV_WORKER_ALIVE_MS)

struct srv_pg_listener; /* store_pg_workers.c */

typedef struct pg_store {
  srv_store base; /* first: a srv_store* is a pg_store* */
  char uri[4096];
  char where[512]; /* the URI without its password, for messages */
  char tls[128];   /* how the first connection was made: "TLS (TLSv1.3, …, sslmode=…)" or "no TLS (sslmode=…)" */
  pthread_mutex_t lock; /* the pool */
  pthread_cond_t freed;
  PGconn *conns[SRV_PG_POOL];
  int busy[SRV_PG_POOL];
  double down_until_s; /* after a failed connect, calls fail at once until then (lab_clock_s) */
  char down_why[200];
  int probing; /* a call is trying to connect while the database seemed down */
  struct srv_pg_listener *listener;
  _Atomic unsigned limit_adds; /* since the last prune of old limit events */
} pg_store;

static inline pg_store *srv_pg_impl(srv_store *s) { return (pg_store *)s; }

/* Text parameters of one statement; NULL text is SQL NULL. */
typedef struct pg_args {
  const char *v[SRV_PG_MAX_ARGS];
  char buf[SRV_PG_MAX_ARGS][72];
  int n;
} pg_args;
void srv_pg_i64(pg_args *a, int64_t v);
void srv_pg_f64(pg_args *a, double v);
void srv_pg_text(pg_args *a, const char *text);
void srv_pg_hash(pg_args *a, const unsigned char hash[SRV_HASH_BYTES]); /* as bytea */

/* Opens a new connection to st's database (statement and lock timeouts
 * set); NULL with err on failure. */
PGconn *srv_pg_connect(pg_store *st, lab_error *err);
/* How c is carried: "TLS (protocol, cipher, sslmode=…)" or "no TLS (sslmode=…)". */
void srv_pg_describe_tls(PGconn *c, char *out, size_t n);
/* Borrows a pooled connection (connecting, or reconnecting one the server
 * closed, first); NULL with err (store_unavailable, or store_busy when all
 * are in use for long). Give it back with srv_pg_give. */
PGconn *srv_pg_take(pg_store *st, lab_error *err);
void srv_pg_give(pg_store *st, PGconn *c);

/* Runs one statement; returns its result (tuples or command OK), or NULL
 * with err mapped from the failure (srv_pg_fail). The caller PQclears. */
PGresult *srv_pg_run(pg_store *st, PGconn *c, const char *sql, const pg_args *a, const char *what, lab_error *err);
/* srv_pg_run on a borrowed connection, given back at once; a plain SELECT
 * whose connection broke under it runs once more on a fresh connection. */
PGresult *srv_pg_one(pg_store *st, const char *sql, const pg_args *a, const char *what, lab_error *err);
/* Runs a statement whose result is not needed; 0 or -1 with err. */
int srv_pg_do(pg_store *st, PGconn *c, const char *sql, const pg_args *a, const char *what, lab_error *err);
/* Maps a failed result (or connection) to gpulab's errors: a lost or
 * refused connection, a shutdown or a full disk is store_unavailable; a
 * lock or statement timeout, a deadlock or too many connections
 * store_busy. Returns -1. */
int srv_pg_fail(pg_store *st, PGconn *c, const PGresult *r, const char *what, lab_error *err);
/* The SQLSTATE of a failed result ("" when none). */
const char *srv_pg_state(const PGresult *r);
/* After a failure inside BEGIN … COMMIT on c: ROLLBACK, if the connection lives. */
void srv_pg_rollback(PGconn *c);

/* Column readers (row r, column c). */
int64_t srv_pg_get_i64(const PGresult *r, int row, int col);
double srv_pg_get_f64(const PGresult *r, int row, int col);
int srv_pg_is_null(const PGresult *r, int row, int col);
/* JSON of columns: ms → ISO time (or null), text (or null), stored JSON text (or null). */
cJSON *srv_pg_col_time(const PGresult *r, int row, int col);
cJSON *srv_pg_col_text(const PGresult *r, int row, int col);
cJSON *srv_pg_col_json(const PGresult *r, int row, int col);
/* Adds item to o; 0 (and item freed) when either is NULL or adding fails. */
int srv_pg_add(cJSON *o, const char *key, cJSON *item);
/* Every row of r as an array, one object per row built by row(); NULL and
 * err (out of memory) on failure. */
typedef cJSON *(*srv_pg_row_fn)(const PGresult *r, int row);
cJSON *srv_pg_rows(const PGresult *r, srv_pg_row_fn row, lab_error *err);
/* Runs a query on a borrowed connection and turns its rows into *out. */
int srv_pg_rows_of(pg_store *st, const char *sql, const pg_args *a, srv_pg_row_fn row, const char *what, cJSON **out,
                   lab_error *err);

/* store_pg_class.c: a quiz attempt's columns from `first` (lesson, score,
 * total, passed, at) as JSON; the instructor's view uses it too. */
cJSON *srv_pg_quiz_fields(const PGresult *r, int row, int first);

/* store_pg_runs.c: ends a run and settles its charges with `sql`
 * (srv_pg_finish_sql: any queued or running run; srv_pg_worker_finish_sql:
 * only while worker_id holds it). *changed 0 when no run was in that state. */
extern const char srv_pg_finish_sql[], srv_pg_worker_finish_sql[];
int srv_pg_finish(pg_store *st, const char *sql, int64_t worker_id, int64_t run_id, const char *status,
                  const char *error_code, const char *result_json, double gpu_ms, int *changed, lab_error *err);

/* store_pg_queue.c: hands run_id back from worker_id (see store.h:
 * queue_hand_back); *requeued or *failed is 1 for what happened. */
int srv_pg_hand_back(pg_store *st, int64_t worker_id, int64_t run_id, const char *error_code, const char *fail_json,
                     int *requeued, int *failed, lab_error *err);

/* store_pg_schema.c: creates or upgrades the schema under an advisory lock. */
int srv_pg_migrate(pg_store *st, PGconn *c, lab_error *err);

/* Each file's operations, for the ops table. */
void srv_pg_class_ops(srv_store_ops *ops);
void srv_pg_runs_ops(srv_store_ops *ops);
void srv_pg_queue_ops(srv_store_ops *ops);
void srv_pg_workers_ops(srv_store_ops *ops);
void srv_pg_limits_ops(srv_store_ops *ops);
void srv_pg_totals_ops(srv_store_ops *ops); /* store_pg_totals.c */
void srv_pg_role_ops(srv_store_ops *ops);
void srv_pg_handins_ops(srv_store_ops *ops); /* store_pg_handins.c: the kit runs learners hand in */
/* store_pg_workers.c: stops the listener (at close). */
void srv_pg_listener_free(pg_store *st);

#endif
