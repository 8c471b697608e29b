/* The token bucket both stores keep their limits in (store.h: limit_check),
 * as arithmetic on its events alone: the bucket holds max_count events
 * (and max_cost of cost) and refills all of it in period_ms. It admits one
 * more while, for every recent event e (counting from the newest), the
 * events since e do not exceed what the bucket held then plus what it
 * refilled since — the "generic cell rate" form of a token bucket. Only
 * events of the last two periods can bind. */
#ifndef SRV_LIMIT_BUCKET_H
#define SRV_LIMIT_BUCKET_H

#include <stdint.h>

#define SRV_LIMIT_WINDOW_ROWS 4096 /* events read for one check, at most */
#define SRV_LIMIT_KEEP_MS (3600 * 1000) /* events older than this are dropped: longer than any window */

typedef struct srv_limit_event {
  int64_t at; /* ms */
  double cost;
} srv_limit_event;

/* How long until the bucket admits one more event (seconds, ≥ 1), or 0
 * when it does now. ev[0..n) oldest first. */
double srv_limit_wait_s(const srv_limit_event *ev, long n, int64_t now_ms, int64_t period_ms, long max_count,
                        double max_cost);

#endif
