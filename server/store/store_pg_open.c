/* Opening and closing the PostgreSQL store: the operations table filled
 * from the backend's files, the pool's first connection and the schema. */
#include <stdio.h>
#include <stdlib.h>

#include "store_pg.h"

/* ---- open / close --------------------------------------------------------------------- */

static void op_close(srv_store *s) {
  pg_store *st = srv_pg_impl(s);
  srv_pg_listener_free(st);
  for (int i = 0; i < SRV_PG_POOL; i++) PQfinish(st->conns[i]);
  pthread_cond_destroy(&st->freed);
  pthread_mutex_destroy(&st->lock);
  free(st);
}

static const char *op_transport(const srv_store *s) { return ((const pg_store *)s)->tls; }

static srv_store_ops pg_ops = {.kind = "postgresql", .close = op_close, .transport = op_transport};

int srv_store_pg_open(const char *uri, srv_store **out, lab_error *err) {
  *out = NULL;
  if (!PQisthreadsafe())
    return lab_fail(err, LAB_E_STORE_UNAVAILABLE, "store", "this libpq was built without thread safety");
  pg_store *st = calloc(1, sizeof *st);
  if (!st) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  srv_pg_class_ops(&pg_ops);
  srv_pg_runs_ops(&pg_ops);
  srv_pg_queue_ops(&pg_ops);
  srv_pg_workers_ops(&pg_ops);
  srv_pg_limits_ops(&pg_ops);
  srv_pg_role_ops(&pg_ops);
  srv_pg_handins_ops(&pg_ops);
  st->base.ops = &pg_ops;
  snprintf(st->uri, sizeof st->uri, "%s", uri);
  srv_store_where(uri, st->where, sizeof st->where);
  pthread_mutex_init(&st->lock, NULL);
  pthread_cond_init(&st->freed, NULL);
  PGconn *c = srv_pg_connect(st, err);
  if (!c || srv_pg_migrate(st, c, err) != 0) {
    PQfinish(c);
    op_close(&st->base);
    return -1;
  }
  srv_pg_describe_tls(c, st->tls, sizeof st->tls); /* every later connection is made from the same URI */
  st->conns[0] = c; /* the first pooled connection */
  *out = &st->base;
  return 0;
}
