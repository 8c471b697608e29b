/* The pieces of a training step that train_step.cu and profile.cu share:
 * the mean of the per-row losses (one block, a fixed order, so the result
 * is the same every run) and the bias gradient (one warp per column).
 * Header-only: each file gets its own copy of the kernels (no relocatable
 * device code). */
#ifndef KERN_LOSS_CUH
#define KERN_LOSS_CUH

#include "common.cuh"

/* hist[step] = mean of row_loss[0..rows); launch with 1 block of 256 threads. */
static __global__ void kern_mean_loss_kernel(const float *row_loss, int rows, float *hist, int step) {
  __shared__ float part[256];
  float s = 0;
  for (int i = threadIdx.x; i < rows; i += blockDim.x) s += row_loss[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) hist[step] = part[0] / rows;
}

/* db[j] = Σ_i dz[i, j] over a row-major [rows×cols]; one warp per column. */
static __global__ void kern_bias_grad_kernel(const float *dz, float *db, int rows, int cols) {
  int j = blockIdx.x * (blockDim.x / KERN_WARP) + threadIdx.x / KERN_WARP, lane = threadIdx.x % KERN_WARP;
  if (j >= cols) return;
  float s = 0;
  for (int i = lane; i < rows; i += KERN_WARP) s += dz[(size_t)i * cols + j];
  s = kern_warp_sum(s);
  if (lane == 0) db[j] = s;
}

#endif
