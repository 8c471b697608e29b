/* The API's resources, one file each, and the state they share. The route
 * table is routes.c (routes.h); serve.c registers it. */
#ifndef SRV_API_H
#define SRV_API_H

#include "runner.h"

struct mg_connection;
struct srv_class;

typedef struct srv_app {
  srv_runner runner;
  char web_root[4096];  /* static files and the public lesson bundles */
  char lesson_keys[4096]; /* server-only quiz answer keys */
  size_t max_body_bytes;
  struct srv_class *cls; /* class mode (class.h); NULL for a single learner */
  struct srv_conn_limit *conns; /* connections per client address (conn_limit.h, conn_gate.h) */
  struct srv_inflight *reader_uploads; /* reader runs in flight, per address and learner (reader_run.h) */
  struct srv_watchdog *watchdog; /* what hangs quietly, for /api/health (watchdog.h); NULL: none */
} srv_app;

int srv_api_health(struct mg_connection *conn, void *app);
int srv_api_device(struct mg_connection *conn, void *app);
int srv_api_experiments(struct mg_connection *conn, void *app);
int srv_api_profiles(struct mg_connection *conn, void *app);
int srv_api_lessons(struct mg_connection *conn, void *app);
int srv_api_not_found(struct mg_connection *conn, void *app);
int srv_static(struct mg_connection *conn, void *app);

/* Class mode: /api/class/join|leave, /api/session, /api/instructor/class. */
int srv_api_class(struct mg_connection *conn, void *app);
int srv_api_session(struct mg_connection *conn, void *app);
int srv_api_instructor(struct mg_connection *conn, void *app);
/* "cuda" when a GPU takes the class's runs (a worker of a shared store seen
 * alive, or this server's own), else "cpu": runs are simulated in browsers
 * and GPU time is absent, not 0 s. The word GET /api/health uses. */
const char *srv_api_class_mode(srv_app *app);
/* Class mode's GPU runs (api_runs.c) and the Prometheus metrics (api_metrics.c). */
int srv_api_runs(struct mg_connection *conn, void *app);
int srv_api_metrics(struct mg_connection *conn, void *app);
/* POST /api/explain: a pasted error explained, never stored (api_explain.c). */
int srv_api_explain(struct mg_connection *conn, void *app);
/* POST /api/doctor: a profiler trace read, never stored (api_doctor.c). */
int srv_api_doctor(struct mg_connection *conn, void *app);
/* POST /api/plan: training settings planned, never stored (api_plan.c). */
int srv_api_plan(struct mg_connection *conn, void *app);
/* Class mode: POST /api/handins, a learner's kit run handed in and kept;
 * GET /api/handins, theirs (api_handins.c). */
int srv_api_handins(struct mg_connection *conn, void *app);

#endif
