/* graphs on a real GPU: a chain of N tiny kernels (x ← x·a + b_k over a
 * buffer of random normal floats) launched one by one, then captured once
 * (stream capture → cudaGraphInstantiate) and replayed with one
 * cudaGraphLaunch. Per sample: host clock from the first launch call to the
 * return of cudaStreamSynchronize, CUDA events around the chain on the
 * stream; two warm-ups per mode; medians. Capture and instantiate are timed
 * once. An optional sweep repeats this for growing kernels. The timeline is
 * a short extra chain whose kernels stamp %globaltimer. Both launch modes'
 * buffers are checked against the CPU reference (lab_graphs_reference). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "graphs.h"
}

#define THREADS 256

static __device__ unsigned long long now_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* One link of the chain: an fma per element (rounded as the CPU's fmaf). */
static __global__ void step_kernel(float *x, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __fmaf_rn(x[i], a, b);
}

/* The same link, stamping when its first block starts and when its last
 * block ends (the block that brings done[k] to gridDim.x). */
static __global__ void stamped_kernel(float *x, int n, float a, float b, unsigned long long *stamps,
                                      unsigned *done, int k) {
  if (blockIdx.x == 0 && threadIdx.x == 0) stamps[2 * k] = now_ns();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __fmaf_rn(x[i], a, b);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&done[k], 1u) == gridDim.x - 1) stamps[2 * k + 1] = now_ns();
  }
}

static unsigned blocks_for(int n) { return (unsigned)((n + THREADS - 1) / THREADS); }

/* Launches the whole chain; the first launch error is reported at the end. */
static cudaError_t launch_chain(cudaStream_t s, float *x, int n, int kernels) {
  float a = lab_graphs_coef_a();
  for (int k = 0; k < kernels; k++) step_kernel<<<blocks_for(n), THREADS, 0, s>>>(x, n, a, lab_graphs_coef_b(k));
  return cudaGetLastError();
}

static cudaError_t launch_stamped(cudaStream_t s, float *x, int n, int k, unsigned long long *stamps,
                                  unsigned *done) {
  stamped_kernel<<<blocks_for(n), THREADS, 0, s>>>(x, n, lab_graphs_coef_a(), lab_graphs_coef_b(k), stamps, done, k);
  return cudaGetLastError();
}

/* Captures the chain (kernel k stamped when stamps is set) into an executable graph. */
static int capture(cudaStream_t s, float *x, int n, int kernels, unsigned long long *stamps, unsigned *done,
                   cudaGraphExec_t *exec, double *capture_us, double *instantiate_us, lab_error *err) {
  cudaGraph_t g = NULL;
  cudaError_t le = cudaSuccess, ee = cudaSuccess;
  int rc = -1;
  double t0 = kern_now_us(), t1 = 0;
  TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  if (stamps)
    for (int k = 0; k < kernels && le == cudaSuccess; k++) le = launch_stamped(s, x, n, k, stamps, done);
  else
    le = launch_chain(s, x, n, kernels);
  ee = cudaStreamEndCapture(s, &g); /* always end the capture, even after a failed launch */
  TRY(le);
  TRY(ee);
  t1 = kern_now_us();
  TRY(cudaGraphInstantiate(exec, g, 0));
  if (capture_us) *capture_us = t1 - t0;
  if (instantiate_us) *instantiate_us = kern_now_us() - t1;
  rc = 0;
cleanup:
  if (g) cudaGraphDestroy(g); /* the executable graph keeps what it needs */
  return rc;
}

/* One timed sample: reset the buffer, then run the chain eagerly (exec NULL) or as the graph. */
static int timed_batch(cudaStream_t s, kern_timer *t, cudaGraphExec_t exec, float *x, const float *x0, int n,
                       int kernels, int i, lab_graphs_mode *mode, lab_error *err) {
  double t0 = 0, t1 = 0, t2 = 0;
  float ms = 0;
  TRY(cudaMemcpyAsync(x, x0, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, s));
  TRY(cudaStreamSynchronize(s));
  TRY(cudaEventRecord(t->start, s));
  t0 = kern_now_us();
  if (exec) TRY(cudaGraphLaunch(exec, s));
  else TRY(launch_chain(s, x, n, kernels));
  t1 = kern_now_us();
  TRY(cudaEventRecord(t->stop, s));
  TRY(cudaStreamSynchronize(s));
  t2 = kern_now_us();
  TRY(cudaEventElapsedTime(&ms, t->start, t->stop));
  if (mode && i >= 0) {
    mode->total_us[i] = t2 - t0;
    mode->launch_us[i] = t1 - t0;
    mode->gpu_us[i] = ms * 1e3;
  }
  return 0;
cleanup:
  return -1;
}

/* Compares LAB_GRAPHS_CHECK_ELEMENTS spread-out elements of x with the CPU
 * reference from x0; keeps the largest error in *max_err (NaN sticks). */
static int check(const float *x, const float *x0, int n, int kernels, double *max_err, lab_error *err) {
  size_t bytes = (size_t)n * sizeof(float);
  float *hx = (float *)malloc(bytes), *h0 = (float *)malloc(bytes);
  int rc = -1, step = n > LAB_GRAPHS_CHECK_ELEMENTS ? n / LAB_GRAPHS_CHECK_ELEMENTS : 1;
  if (!hx || !h0) {
    lab_fail(err, LAB_E_NOMEM, "elements", "not enough host memory to check %d elements", n);
    goto cleanup;
  }
  TRY(cudaMemcpy(hx, x, bytes, cudaMemcpyDeviceToHost));
  TRY(cudaMemcpy(h0, x0, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i += step) {
    double d = fabs((double)lab_graphs_reference(h0[i], kernels) - (double)hx[i]);
    if (!(d <= *max_err)) *max_err = d;
  }
  rc = 0;
cleanup:
  free(hx);
  free(h0);
  return rc;
}

/* Warm-ups and samples of both modes at n elements; the graph captured here.
 * Checks both buffers after their last sample. */
static int measure(cudaStream_t s, kern_timer *t, float *x, const float *x0, int n, int kernels, int warmup,
                   int samples, lab_graphs_mode *eager, lab_graphs_mode *graph, double *capture_us,
                   double *instantiate_us, double *max_err, lab_error *err) {
  cudaGraphExec_t exec = NULL;
  int rc = -1;
  if (capture(s, x, n, kernels, NULL, NULL, &exec, capture_us, instantiate_us, err)) goto cleanup;
  for (int i = 0; i < warmup; i++)
    if (timed_batch(s, t, NULL, x, x0, n, kernels, -1, NULL, err) ||
        timed_batch(s, t, exec, x, x0, n, kernels, -1, NULL, err))
      goto cleanup;
  for (int i = 0; i < samples; i++)
    if (timed_batch(s, t, NULL, x, x0, n, kernels, i, eager, err)) goto cleanup;
  if (check(x, x0, n, kernels, max_err, err)) goto cleanup;
  for (int i = 0; i < samples; i++)
    if (timed_batch(s, t, exec, x, x0, n, kernels, i, graph, err)) goto cleanup;
  if (check(x, x0, n, kernels, max_err, err)) goto cleanup;
  rc = 0;
cleanup:
  if (exec) cudaGraphExecDestroy(exec);
  return rc;
}

/* The timeline: n_tl stamped kernels eagerly, then the same as a graph, on
 * the host clock; GPU stamps are placed so that the first kernel of each
 * part starts when its (first) launch call returned. */
static int timeline(cudaStream_t s, float *x, int n, lab_graphs_measure *m, lab_error *err) {
  unsigned long long *stamps = NULL, hs[2 * LAB_GRAPHS_TL_KERNELS];
  unsigned *done = NULL;
  cudaGraphExec_t exec = NULL;
  int rc = -1, k = m->n_tl;
  double t0 = 0;
  TRY(cudaMalloc((void **)&stamps, sizeof hs));
  TRY(cudaMalloc((void **)&done, k * sizeof(unsigned)));
  if (capture(s, x, n, k, stamps, done, &exec, NULL, NULL, err)) goto cleanup;
  TRY(cudaGraphLaunch(exec, s)); /* the first replay uploads the graph: keep it off the timeline */
  TRY(cudaMemsetAsync(done, 0, k * sizeof(unsigned), s));
  TRY(cudaStreamSynchronize(s));
  t0 = kern_now_us();
  for (int i = 0; i < k; i++) {
    m->tl_launch_start[i] = kern_now_us() - t0;
    TRY(launch_stamped(s, x, n, i, stamps, done));
    m->tl_launch_end[i] = kern_now_us() - t0;
  }
  m->tl_eager_sync_start = kern_now_us() - t0;
  TRY(cudaStreamSynchronize(s));
  m->tl_eager_sync_end = kern_now_us() - t0;
  TRY(cudaMemcpy(hs, stamps, sizeof hs, cudaMemcpyDeviceToHost));
  for (int i = 0; i < k; i++) {
    m->tl_eager_start[i] = m->tl_launch_end[0] + (double)(hs[2 * i] - hs[0]) / 1e3;
    m->tl_eager_end[i] = m->tl_launch_end[0] + (double)(hs[2 * i + 1] - hs[0]) / 1e3;
  }
  TRY(cudaMemsetAsync(done, 0, k * sizeof(unsigned), s));
  TRY(cudaStreamSynchronize(s));
  m->tl_glaunch_start = kern_now_us() - t0;
  TRY(cudaGraphLaunch(exec, s));
  m->tl_glaunch_end = m->tl_graph_sync_start = kern_now_us() - t0;
  TRY(cudaStreamSynchronize(s));
  m->tl_graph_sync_end = kern_now_us() - t0;
  TRY(cudaMemcpy(hs, stamps, sizeof hs, cudaMemcpyDeviceToHost));
  for (int i = 0; i < k; i++) {
    m->tl_graph_start[i] = m->tl_glaunch_end + (double)(hs[2 * i] - hs[0]) / 1e3;
    m->tl_graph_end[i] = m->tl_glaunch_end + (double)(hs[2 * i + 1] - hs[0]) / 1e3;
  }
  rc = 0;
cleanup:
  if (exec) cudaGraphExecDestroy(exec);
  if (stamps) cudaFree(stamps);
  if (done) cudaFree(done);
  return rc;
}

static double median(const double *x, int n) {
  lab_summary s;
  lab_summarize(x, (size_t)n, &s);
  return s.median;
}

KERN_ENTRY(graphs) {
  const lab_params_graphs tp = lab_params_graphs_of(p);
  lab_graphs_measure *m = (lab_graphs_measure *)calloc(1, sizeof *m);
  lab_graphs_mode *se = (lab_graphs_mode *)calloc(2, sizeof *se);
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  kern_timer t = {NULL, NULL};
  float *x = NULL, *x0 = NULL;
  int rc = -1, n = 0, cap = 0;
  *out = NULL;
  if (!m || !se) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto cleanup;
  }
  m->kernels = (int)tp.kernels;
  m->elements = n = (int)tp.elements;
  m->sweep = tp.sweep;
  m->samples = (int)tp.samples;
  m->warmup = LAB_GRAPHS_WARMUP;
  m->n_tl = m->kernels < LAB_GRAPHS_TL_KERNELS ? m->kernels : LAB_GRAPHS_TL_KERNELS;
  m->sweep_kernels = m->kernels < LAB_GRAPHS_SWEEP_KERNELS ? m->kernels : LAB_GRAPHS_SWEEP_KERNELS;
  cap = n;
  if (m->sweep && lab_graphs_sweep_elements(LAB_GRAPHS_SWEEP_POINTS - 1) > cap)
    cap = lab_graphs_sweep_elements(LAB_GRAPHS_SWEEP_POINTS - 1);

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_timer_create(&t));
  TRY(cudaMalloc((void **)&x, (size_t)cap * sizeof(float)));
  TRY(cudaMalloc((void **)&x0, (size_t)cap * sizeof(float)));
  TRY(kern_fill_normal_device(x0, (size_t)cap, 21, s));
  TRY(cudaStreamSynchronize(s));

  if (measure(s, &t, x, x0, n, m->kernels, m->warmup, m->samples, &m->eager, &m->graph, &m->capture_us,
              &m->instantiate_us, &m->max_abs_err, err))
    goto cleanup;
  lab_graphs_summarize(m);
  for (int i = 0; m->sweep && i < LAB_GRAPHS_SWEEP_POINTS; i++) {
    int el = lab_graphs_sweep_elements(i);
    if (measure(s, &t, x, x0, el, m->sweep_kernels, m->warmup, m->samples, &se[0], &se[1], NULL, NULL,
                &m->max_abs_err, err))
      goto cleanup;
    m->sweep_elements[i] = el;
    m->sweep_eager_us[i] = median(se[0].total_us, m->samples) / m->sweep_kernels;
    m->sweep_graph_us[i] = median(se[1].total_us, m->samples) / m->sweep_kernels;
    m->sweep_body_us[i] = median(se[1].gpu_us, m->samples) / m->sweep_kernels;
    m->n_sweep = i + 1;
  }
  if (timeline(s, x, n, m, err)) goto cleanup;
  m->validated = m->max_abs_err <= 1e-5;
  *out = lab_graphs_envelope(p, m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (x) cudaFree(x);
  if (x0) cudaFree(x0);
  kern_timer_destroy(&t);
  if (s) cudaStreamDestroy(s);
  free(m);
  free(se);
  return rc;
}
