/* pthread_cond_timedwait and pthread_mutex_timedlock take an absolute
 * CLOCK_REALTIME time: this is "now plus s seconds" in that form, written
 * once for every wait with a bound. */
#ifndef SRV_ABSTIME_H
#define SRV_ABSTIME_H

#include <time.h>

struct timespec srv_abstime_after(double s);

#endif
