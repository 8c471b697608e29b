/* The token bucket's arithmetic (see limit_bucket.h). */
#include "limit_bucket.h"

double srv_limit_wait_s(const srv_limit_event *ev, long n, int64_t now_ms, int64_t period_ms, long max_count,
                        double max_cost) {
  double wait_ms = 0, count = 0, cost = 0;
  for (long i = n - 1; i >= 0; i--) {
    double since_ms = (double)(now_ms - ev[i].at);
    count += 1;
    cost += ev[i].cost;
    /* count events since ev[i], plus this one, within max_count refilled at max_count per period */
    double need = (count + 1 - (double)max_count) * (double)period_ms / (double)max_count - since_ms;
    if (need > wait_ms) wait_ms = need;
    if (max_cost > 0) { /* room for any cost at all: strictly under the cost refilled since */
      need = (cost - max_cost) * (double)period_ms / max_cost - since_ms + 1;
      if (need > wait_ms) wait_ms = need;
    }
  }
  if (wait_ms <= 0) return 0;
  return wait_ms < 1000 ? 1 : wait_ms / 1000.0;
}
