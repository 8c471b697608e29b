/* What a measurement does to the simulator's exact model times, so that
 * simulated figures read like measured ones: CUDA events resolve about
 * 0.5 µs, and jitter is drawn once per sample and shared across the sizes
 * of that sample, so it never reverses an order the physics guarantees
 * (a larger copy or matmul never finishes before a smaller one). */
#ifndef LAB_SIM_MEASURE_H
#define LAB_SIM_MEASURE_H

/* cudaEventElapsedTime: "in milliseconds with a resolution of around 0.5
 * microseconds" (CUDA runtime API; cuda-event-doc in lab/sim/profiles_refs.c). */
#define LAB_EVENT_RESOLUTION_US 0.5

/* An interval timed with CUDA events, as they report it: a multiple of the
 * resolution (never negative). */
double lab_event_us(double us);
double lab_event_ms(double ms);

#endif
