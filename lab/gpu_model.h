/* The simulator's model of GPU compute: how long an fp32 matmul (sgemm)
 * takes on a profile. Large matrices reach fp32_tflops × gemm_efficiency;
 * small ones reach far less, because they fill only a few of the GPU's SMs
 * and their inner loop is too short to hide memory latency. */
#ifndef LAB_GPU_MODEL_H
#define LAB_GPU_MODEL_H

#include "profiles.h"

/* Share of the fp32 peak an (m×k)·(k×n) sgemm reaches, in (0, gemm_efficiency]. */
double lab_gemm_efficiency(const lab_profile *prof, double m, double n, double k);
/* Execution time on the GPU (µs) of that sgemm, at least kernel_min_us;
 * launch cost is not included (the stream model adds it). */
double lab_gemm_us(const lab_profile *prof, double m, double n, double k);

#endif
