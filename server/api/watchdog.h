/* The watchdog: a thread that notices what would otherwise hang quietly —
 * a request that has run far past every deadline it should have, a device
 * check that does not answer, a class store that cannot be written — and
 * says so in the log and in GET /api/health ("status":"degraded" with the
 * reasons). It only reports: what it reports is fixed elsewhere (deadlines,
 * the stop path), or needs a person (a full disk). */
#ifndef SRV_WATCHDOG_H
#define SRV_WATCHDOG_H

#include <stddef.h>

#include "runner.h"
#include "store.h"

typedef struct srv_watchdog srv_watchdog;

typedef struct srv_watchdog_opts {
  srv_runner *runner;  /* its device probe is watched */
  srv_store *store;    /* a class's store, written once per store_every_s; NULL: none */
  double stuck_s;      /* a request running longer than this is stuck */
  double probe_stuck_s; /* a device check running longer than this is stuck */
  double store_every_s;
} srv_watchdog_opts;

/* Starts the thread; NULL when it cannot (the server runs without it). */
srv_watchdog *srv_watchdog_start(const srv_watchdog_opts *o);
void srv_watchdog_stop(srv_watchdog *w);
/* 0 while all is well; 1 degraded, with the reasons ("; "-joined) in out.
 * w may be NULL (0). Never waits on anything the watchdog watches. */
int srv_watchdog_status(srv_watchdog *w, char *out, size_t n);
/* Called from CivetWeb's begin/end callbacks on the request's own thread. */
void srv_watchdog_request_begin(const char *method, const char *uri);
void srv_watchdog_request_end(void);
/* The requests in progress and the oldest's age and name (for the stop
 * path's last word). */
int srv_watchdog_requests(double *oldest_s, char *what, size_t n);

#endif
