/* clock_gettime(CLOCK_MONOTONIC): never jumps with wall-clock changes.
 * In a browser its resolution is ~5 µs cross-origin isolated, ~100 µs
 * otherwise, so callers time batches of work, never one tiny call. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clock.h"

#include <time.h>

double lab_clock_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double lab_clock_s(void) { return lab_clock_ms() / 1e3; }
