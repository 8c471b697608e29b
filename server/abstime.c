/* Absolute times for bounded waits (see abstime.h). */
#include "abstime.h"

struct timespec srv_abstime_after(double s) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + (s > 0 ? s : 0);
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  if (ts.tv_nsec < 0) ts.tv_nsec = 0;
  return ts;
}
