/* placement on a real GPU: the fields the learner chose are copied to the
 * GPU (cudaMemcpy from pageable memory, as tensor.to("cuda") does), then the
 * portable preflight checks every tensor's device BEFORE any kernel runs.
 * When it passes, the linear layer runs via cuBLAS and a small kernel
 * applies the bias and the mask and scores the arg-max against the labels.
 * Copies and layer are timed with CUDA events (median after warm-up); the
 * output is checked against a double-precision CPU reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "placement.h"
}

#define COPY_SAMPLES 5
#define FWD_SAMPLES 10
#define WARMUP 2

/* One thread per row: out[i,:] = mask[i]·(out[i,:] + bias); rows with mask 1
 * count a hit when their arg-max is the label. */
static __global__ void mask_score_kernel(float *out, const float *bias, const float *mask, const int *labels,
                                         int rows, int cols, int *correct) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float m = mask[i];
  float *row = out + (size_t)i * cols;
  int best = 0;
  float best_v = -INFINITY;
  for (int j = 0; j < cols; j++) {
    float v = m * (row[j] + bias[j]);
    row[j] = v;
    if (v > best_v) best_v = v, best = j;
  }
  if (m != 0.0f && best == labels[i]) atomicAdd(correct, 1);
}

/* out = x·Wᵀ (row-major [rows×cols]); then the mask-and-score kernel. In
 * cuBLAS's column-major view out is Wᵀ-shaped: outᵀ[cols×rows] = W·xᵀ. */
static cublasStatus_t launch_layer(cublasHandle_t h, cudaStream_t s, const float *w, const float *b, const float *x,
                                   const float *mask, const int *labels, float *out, int *correct, int rows, int cols,
                                   int features) {
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, cols, rows, features, &one, w, features, x, features,
                                  &zero, out, cols);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  if (cudaMemsetAsync(correct, 0, sizeof(int), s) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
  mask_score_kernel<<<(rows + 127) / 128, 128, 0, s>>>(out, b, mask, labels, rows, cols, correct);
  return CUBLAS_STATUS_SUCCESS;
}

/* The same layer on the host, in double: the reference, and the run itself
 * when every tensor stayed on the CPU. Returns the hit count. */
static int cpu_layer(const float *w, const float *b, const float *x, const float *mask, const int *labels,
                     double *out, int rows, int cols, int features) {
  int correct = 0;
  for (int i = 0; i < rows; i++) {
    int best = 0;
    double best_v = -INFINITY;
    for (int j = 0; j < cols; j++) {
      double acc = 0;
      for (int k = 0; k < features; k++) acc += (double)x[(size_t)i * features + k] * w[(size_t)j * features + k];
      double v = mask[i] * (acc + b[j]);
      out[(size_t)i * cols + j] = v;
      if (v > best_v) best_v = v, best = j;
    }
    if (mask[i] != 0.0f && best == labels[i]) correct++;
  }
  return correct;
}

KERN_ENTRY(placement) {
  lab_placement_measure m;
  lab_placement_plan(p, &m);
  const int rows = (int)m.out_rows, cols = (int)m.out_cols, features = (int)m.t[LAB_T_FEATURES].shape[1];
  const void *host[LAB_T_COUNT] = {NULL};
  void *dev[LAB_T_COUNT] = {NULL};
  float *hw = NULL, *hb = NULL, *hx = NULL, *hmask = NULL, *hout = NULL, *dout = NULL;
  int *hlabels = NULL, *dcorrect = NULL;
  double *ref = NULL;
  cublasHandle_t blas = NULL;
  kern_timer timer = {NULL, NULL};
  cudaDeviceProp prop;
  double copy_ms[COPY_SAMPLES], fwd_ms[FWD_SAMPLES];
  lab_summary sum;
  int rc = -1;
  *out = NULL;

  /* the data, on the host first, as a data loader leaves it */
  hw = (float *)malloc(m.t[LAB_T_WEIGHT].bytes);
  hb = (float *)malloc(m.t[LAB_T_BIAS].bytes);
  hx = (float *)malloc(m.t[LAB_T_FEATURES].bytes);
  hmask = (float *)malloc(m.t[LAB_T_MASK].bytes);
  hlabels = (int *)malloc(m.t[LAB_T_LABELS].bytes);
  hout = (float *)malloc((size_t)rows * cols * sizeof(float));
  ref = (double *)malloc((size_t)rows * cols * sizeof(double));
  if (!hw || !hb || !hx || !hmask || !hlabels || !hout || !ref) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto cleanup;
  }
  kern_fill_normal_host(hw, (size_t)cols * features, 11);
  for (size_t i = 0; i < (size_t)cols * features; i++) hw[i] *= (float)(1.0 / sqrt((double)features));
  kern_fill_normal_host(hb, (size_t)cols, 12);
  kern_fill_normal_host(hx, (size_t)rows * features, 13);
  for (int i = 0; i < rows; i++) {
    hmask[i] = i % 8 == 7 ? 0.0f : 1.0f; /* every eighth sample is padding */
    hlabels[i] = (int)((unsigned)(i * 2654435761u) % (unsigned)cols);
  }
  host[LAB_T_WEIGHT] = hw;
  host[LAB_T_BIAS] = hb;
  host[LAB_T_FEATURES] = hx;
  host[LAB_T_MASK] = hmask;
  host[LAB_T_LABELS] = hlabels;

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(kern_timer_create(&timer));
  /* The copies the learner asked for happen first, as .to("cuda") does;
   * the preflight below then finds whatever was left behind. */
  for (int i = 0; i < LAB_T_COUNT; i++)
    if (m.t[i].moved) TRY(cudaMalloc(&dev[i], m.t[i].bytes));
  for (int s = -WARMUP; s < COPY_SAMPLES; s++) {
    double ms = 0;
    TRY(kern_timer_start(&timer, 0));
    for (int i = 0; i < LAB_T_COUNT; i++)
      if (m.t[i].moved) TRY(cudaMemcpy(dev[i], host[i], m.t[i].bytes, cudaMemcpyHostToDevice));
    TRY(kern_timer_stop_ms(&timer, 0, &ms));
    if (s >= 0) copy_ms[s] = ms;
  }
  if (m.copied_bytes > 0 && lab_summarize(copy_ms, COPY_SAMPLES, &sum) == 0) m.copy_ms = sum.median;

  if (m.preflight_ok) {
    m.ran = 1;
    m.warmup = WARMUP;
    if (m.compute == LAB_ON_GPU) {
      m.samples = FWD_SAMPLES;
      TRY(cudaMalloc(&dout, (size_t)rows * cols * sizeof(float)));
      TRY(cudaMalloc(&dcorrect, sizeof(int)));
      TRY_BLAS(cublasCreate(&blas));
      for (int s = -WARMUP; s < FWD_SAMPLES; s++) {
        double ms = 0;
        TRY(kern_timer_start(&timer, 0));
        TRY_BLAS(launch_layer(blas, 0, (const float *)dev[LAB_T_WEIGHT], (const float *)dev[LAB_T_BIAS],
                              (const float *)dev[LAB_T_FEATURES], (const float *)dev[LAB_T_MASK],
                              (const int *)dev[LAB_T_LABELS], dout, dcorrect, rows, cols, features));
        TRY_LAUNCH();
        TRY(kern_timer_stop_ms(&timer, 0, &ms));
        if (s >= 0) fwd_ms[s] = ms;
      }
      TRY(cudaMemcpy(hout, dout, (size_t)rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
      TRY(cudaMemcpy(&m.correct, dcorrect, sizeof(int), cudaMemcpyDeviceToHost));
      cpu_layer(hw, hb, hx, hmask, hlabels, ref, rows, cols, features);
      m.max_abs_err = 0;
      for (size_t i = 0; i < (size_t)rows * cols; i++) {
        double e = fabs((double)hout[i] - ref[i]);
        if (e > m.max_abs_err) m.max_abs_err = e;
      }
      /* fp32 sums of `features` O(1/sqrt(features)) terms: 1e-3 is generous */
      m.validated = m.max_abs_err <= 1e-3;
    } else {
      /* every tensor stayed on the host: the layer runs there, host-timed */
      m.samples = COPY_SAMPLES;
      for (int s = -WARMUP; s < COPY_SAMPLES; s++) {
        double t0 = kern_now_us();
        m.correct = cpu_layer(hw, hb, hx, hmask, hlabels, ref, rows, cols, features);
        if (s >= 0) fwd_ms[s] = (kern_now_us() - t0) / 1e3;
      }
    }
    for (int i = 0; i < rows; i++) m.counted += hmask[i] != 0.0f;
    if (lab_summarize(fwd_ms, (size_t)m.samples, &sum) == 0) {
      m.forward_ms = sum.median;
      m.forward_iqr_pct = sum.iqr_pct;
    }
  }
  *out = lab_placement_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);

cleanup:
  if (blas) cublasDestroy(blas);
  kern_timer_destroy(&timer);
  for (int i = 0; i < LAB_T_COUNT; i++) cudaFree(dev[i]);
  cudaFree(dout);
  cudaFree(dcorrect);
  free(hw), free(hb), free(hx), free(hmask), free(hlabels), free(hout), free(ref);
  return rc;
}
