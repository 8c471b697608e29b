/* The simulator's model of GPU compute: how long a matmul takes on a
 * profile, on the SIMT cores (fp32 sgemm) or on the tensor cores. Large
 * matrices reach the peak × the profile's efficiency; small and medium ones
 * reach less, because their output tiles fill only part of the last wave of
 * SMs (wave quantization) and their inner loop is too short to hide the
 * pipeline's start. A power-limited card (power_cap < 1) cannot hold its
 * clock through large runs. */
#ifndef LAB_GPU_MODEL_H
#define LAB_GPU_MODEL_H

#include "profiles.h"

/* Share of the fp32 peak an (m×k)·(k×n) sgemm reaches, in (0, gemm_efficiency]. */
double lab_gemm_efficiency(const lab_profile *prof, double m, double n, double k);
/* Execution time on the GPU (µs) of that sgemm, at least kernel_min_us;
 * launch cost is not included (the stream model adds it). */
double lab_gemm_us(const lab_profile *prof, double m, double n, double k);
/* Share of a tensor-core peak the same product reaches with in_bytes-byte
 * inputs (2: FP16/BF16, 4: TF32, whose tiles hold half as many elements),
 * in (0, tc_efficiency]. */
double lab_tc_efficiency(const lab_profile *prof, double m, double n, double k, int in_bytes);

#endif
