/* xorshift64* seeded through splitmix64, plus Box-Muller normals. Not for
 * cryptography: only for reproducible jitter and matmul inputs. */
#include "rng.h"

#include <math.h>

void lab_rng_seed(lab_rng *r, uint64_t seed) {
  /* splitmix64 of the seed, so nearby seeds give unrelated streams; never 0. */
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  r->state = z ? z : 0x2545F4914F6CDD1Dull;
}

double lab_rng_uniform(lab_rng *r) {
  uint64_t x = r->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->state = x;
  return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

double lab_rng_jitter(lab_rng *r, double pct) { return 1.0 + (2.0 * lab_rng_uniform(r) - 1.0) * pct / 100.0; }

double lab_rng_normal(lab_rng *r) {
  double u1 = 1.0 - lab_rng_uniform(r); /* (0, 1]: log stays finite */
  double u2 = lab_rng_uniform(r);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void lab_fill_normal(float *x, size_t n, uint64_t seed) {
  lab_rng r;
  lab_rng_seed(&r, seed);
  /* Both Box-Muller outputs are used: half the log/sqrt calls. */
  for (size_t i = 0; i < n; i += 2) {
    double u1 = 1.0 - lab_rng_uniform(&r), u2 = lab_rng_uniform(&r);
    double rad = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
    x[i] = (float)(rad * cos(th));
    if (i + 1 < n) x[i + 1] = (float)(rad * sin(th));
  }
}
