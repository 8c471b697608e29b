/* Round-to-nearest-even by bit manipulation for bf16/TF32 (drop low mantissa
 * bits of the fp32 pattern), and by scaling for fp16, whose narrower
 * exponent also needs overflow and a fixed step in its subnormal range. */
#include "bf16.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Keeps the top (32 - drop) bits of x's pattern, rounding to nearest even.
 * A carry out of the mantissa correctly bumps the exponent (and turns the
 * largest finite values into infinity, as the hardware does). */
static float round_bits(float x, int drop) {
  uint32_t u;
  if (isnan(x)) return x;
  memcpy(&u, &x, sizeof u);
  uint32_t half = 1u << (drop - 1), lsb = (u >> drop) & 1u;
  u += half - 1 + lsb;
  u &= ~((1u << drop) - 1);
  memcpy(&x, &u, sizeof u);
  return x;
}

float lab_round_bf16(float x) { return round_bits(x, 16); }

float lab_round_tf32(float x) { return round_bits(x, 13); }

float lab_round_fp16(float x) {
  if (isnan(x) || isinf(x)) return x;
  float a = fabsf(x), q;
  if (a >= 0x1p-14f) {
    q = round_bits(a, 13); /* normal: 11 significant bits, like TF32 */
    if (q > LAB_FP16_MAX) q = INFINITY;
  } else {
    q = nearbyintf(a * 0x1p24f) * 0x1p-24f; /* subnormal: a fixed step of 2^-24, ties to even */
  }
  return x < 0 ? -q : q;
}
