/* Roles on the PostgreSQL store (store.h): one connection per role, outside
 * the pool, whose session holds two advisory locks — a shared one that says
 * "this process can take the role" (others count them in pg_locks) and,
 * while it has the role, the exclusive one. A holder that dies, or whose
 * connection breaks, ends its session and so frees the role at once; the
 * next role_hold of another process takes it. */
#include <stdio.h>
#include <stdlib.h>

#include "store_pg.h"

typedef struct pg_role {
  srv_store_role base; /* first */
  srv_store_role_id id;
  PGconn *c; /* NULL until the first hold, and after a failure */
  int held;
} pg_role;

static int op_role_open(srv_store *s, srv_store_role_id id, srv_store_role **out, lab_error *err) {
  pg_role *r = calloc(1, sizeof *r);
  if (!r) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  r->base.store = s;
  r->id = id;
  *out = &r->base;
  return 0;
}

/* Takes the role if this session does not have it (try: never waits), and
 * counts the other sessions that could. One round trip: also the check
 * that the session, and so the lock, still lives. */
static const char hold_sql[] =
    "SELECT CASE WHEN $3::boolean THEN true ELSE pg_try_advisory_lock($1::int, $2::int) END,"
    " (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int::oid"
    "  AND objid = ($2::int + 1)::oid AND objsubid = 2 AND granted AND pid <> pg_backend_pid())";

static int op_role_hold(srv_store_role *base, int *held, int *others, lab_error *err) {
  pg_role *r = (pg_role *)base;
  pg_store *st = srv_pg_impl(base->store);
  *held = 0;
  *others = 0;
  if (!r->c) {
    r->held = 0;
    if (!(r->c = srv_pg_connect(st, err))) return -1;
    /* A holder cut off from the database (not dead: its socket never
     * closes) loses the role when PostgreSQL's keepalives give up on it,
     * within about 25 s instead of the system's default two hours. */
    if (srv_pg_do(st, r->c,
                  "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3", NULL,
                  "setting a role's keepalives", err) != 0)
      goto lost;
    pg_args a = {0};
    srv_pg_i64(&a, SRV_PG_ROLE_SPACE);
    srv_pg_i64(&a, 2 * (int64_t)r->id + 1);
    if (srv_pg_do(st, r->c, "SELECT pg_advisory_lock_shared($1::int, $2::int)", &a, "joining a role", err) != 0)
      goto lost;
  }
  pg_args a = {0};
  srv_pg_i64(&a, SRV_PG_ROLE_SPACE);
  srv_pg_i64(&a, 2 * (int64_t)r->id);
  srv_pg_text(&a, r->held ? "true" : "false");
  PGresult *res = srv_pg_run(st, r->c, hold_sql, &a, "taking a role", err);
  if (!res) goto lost;
  r->held = PQgetvalue(res, 0, 0)[0] == 't';
  *others = (int)srv_pg_get_i64(res, 0, 1);
  PQclear(res);
  *held = r->held;
  return 0;
lost:
  /* The session is gone or unusable: so is the role, whatever it said. */
  PQfinish(r->c);
  r->c = NULL;
  r->held = 0;
  return -1;
}

static void op_role_close(srv_store_role *base) {
  pg_role *r = (pg_role *)base;
  PQfinish(r->c); /* the session ends: both locks are released */
  free(r);
}

void srv_pg_role_ops(srv_store_ops *ops) {
  ops->role_open = op_role_open;
  ops->role_hold = op_role_hold;
  ops->role_close = op_role_close;
}
