/* A thread that calls one function every period until stopped: the
 * watchdog's looks and the class settings' refresh. Stopping wakes it at
 * once (a call in progress finishes first) and joins it, so a server's
 * SIGTERM never waits out a period. */
#ifndef SRV_TICKER_H
#define SRV_TICKER_H

typedef struct srv_ticker srv_ticker;

/* Calls tick(arg) every period_s seconds on a thread of its own, the first
 * time at once when at_start, else after one period. NULL when the thread
 * (or its lock) could not be made. */
srv_ticker *srv_ticker_start(double period_s, int at_start, void (*tick)(void *arg), void *arg);
/* Stops and frees it; NULL is a no-op. */
void srv_ticker_stop(srv_ticker *t);

#endif
