/* A small seeded PRNG (xorshift64*) shared by the simulators (jitter, so
 * simulated samples have a spread that is the same for the same params) and
 * by the experiments that need random normal input data. */
#ifndef LAB_RNG_H
#define LAB_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct lab_rng {
  uint64_t state;
} lab_rng;

void lab_rng_seed(lab_rng *r, uint64_t seed);
double lab_rng_uniform(lab_rng *r); /* [0, 1) */
/* A multiplicative noise factor 1 + u*pct/100 with u uniform in [-1, 1]. */
double lab_rng_jitter(lab_rng *r, double pct);
double lab_rng_normal(lab_rng *r); /* standard normal (Box-Muller) */
/* Fills x[0..n) with standard normal values from `seed`. */
void lab_fill_normal(float *x, size_t n, uint64_t seed);

#endif
