/* Reduced-precision rounding emulated in portable C: what storing an fp32
 * value as bfloat16, TF32 or IEEE half does to it (round to nearest, ties to
 * even). The precision experiment uses these to compute, on any CPU, the
 * real error of each format and a real mixed-precision training run. */
#ifndef LAB_BF16_H
#define LAB_BF16_H

/* bfloat16: fp32's 8-bit exponent, 7 stored mantissa bits (unit roundoff
 * 2^-8). Same range as fp32, so it underflows only where fp32 does. */
float lab_round_bf16(float x);
/* TF32 (what tensor cores read an fp32 input as): 8-bit exponent, 10
 * mantissa bits (unit roundoff 2^-11). */
float lab_round_tf32(float x);
/* IEEE half (fp16): 5-bit exponent, 10 mantissa bits. Largest finite 65504
 * (beyond it: infinity), smallest normal 2^-14 ≈ 6.1e-5, smallest subnormal
 * 2^-24 ≈ 6.0e-8; anything below half of that flushes to zero. */
float lab_round_fp16(float x);

#define LAB_FP16_MAX 65504.0f

#endif
