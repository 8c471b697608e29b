/* A monotonic clock for timing real CPU work, the same natively and under
 * Emscripten (which maps CLOCK_MONOTONIC to performance.now()). */
#ifndef LAB_CLOCK_H
#define LAB_CLOCK_H

/* Milliseconds since an arbitrary origin; only differences mean anything. */
double lab_clock_ms(void);
/* The same clock in seconds (deadlines, rate windows, queue estimates). */
double lab_clock_s(void);

#endif
