/* transfer on a real GPU: host↔device bandwidth over a size sweep, pageable
 * then pinned (the same host buffer, page-locked with cudaHostRegister in
 * between, which is timed on its own), and N small copies vs one batched
 * copy. Each point: CUDA events around a batch of identical copies, queued
 * behind a spin kernel so the host's enqueue cost is not timed (as
 * nvbandwidth does); one warm-up pass; the median of `samples` batches.
 * Input is random normal data; a prefix is read back and compared. */
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "transfer.h"
}

#define BATCH_BYTES (32.0 * 1048576.0) /* small sizes are copied in batches of about this much */
#define MAX_REPS 64
#define CHECK_BYTES ((size_t)4 << 20)   /* prefix read back to validate */

/* Copies per timed batch: enough that a batch is far above event resolution. */
static int reps_for(double bytes) {
  int reps = (int)(BATCH_BYTES / bytes);
  return reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
}

/* One timed batch of `reps` copies of `bytes` in direction k; GB/s. */
static cudaError_t time_batch(lab_xfer_kind k, char *host, char *dev, size_t bytes, int reps, int pinned,
                              cudaStream_t s, kern_timer *t, double *gbps) {
  cudaMemcpyKind dir = (k == LAB_XFER_H2D_PAGEABLE || k == LAB_XFER_H2D_PINNED) ? cudaMemcpyHostToDevice
                                                                                : cudaMemcpyDeviceToHost;
  cudaError_t e = cudaSuccess;
  double ms = 0;
  /* A pageable copy blocks the host until staged, so a spin would only be
   * waited out; for pinned copies it holds the stream while we enqueue. */
  if (pinned) e = kern_spin(30.0 * reps + 50.0, s);
  if (e == cudaSuccess) e = kern_timer_start(t, s);
  for (int r = 0; e == cudaSuccess && r < reps; r++)
    e = dir == cudaMemcpyHostToDevice ? cudaMemcpyAsync(dev, host, bytes, dir, s)
                                      : cudaMemcpyAsync(host, dev, bytes, dir, s);
  if (e == cudaSuccess) e = kern_timer_stop_ms(t, s, &ms);
  *gbps = ms > 0 ? (double)bytes * reps / (ms * 1e6) : 0;
  return e;
}

/* The sweep for the two kinds of one memory (pageable or pinned). */
static cudaError_t sweep(lab_transfer_measure *m, int pinned, char *host, char *dev, cudaStream_t s,
                         kern_timer *t) {
  const lab_xfer_kind kinds[2] = {pinned ? LAB_XFER_H2D_PINNED : LAB_XFER_H2D_PAGEABLE,
                                  pinned ? LAB_XFER_D2H_PINNED : LAB_XFER_D2H_PAGEABLE};
  cudaError_t e = cudaSuccess;
  for (int kk = 0; kk < 2; kk++)
    for (int i = 0; i < m->n_sizes; i++) {
      double x[LAB_TRANSFER_MAX_SAMPLES], g = 0;
      size_t bytes = (size_t)m->bytes[i];
      int reps = reps_for(m->bytes[i]);
      lab_summary sum;
      if ((e = time_batch(kinds[kk], host, dev, bytes, reps, pinned, s, t, &g)) != cudaSuccess) return e;
      for (int smp = 0; smp < m->samples; smp++)
        if ((e = time_batch(kinds[kk], host, dev, bytes, reps, pinned, s, t, &x[smp])) != cudaSuccess) return e;
      lab_summarize(x, (size_t)m->samples, &sum);
      m->gbps[kinds[kk]][i] = sum.median;
      if (i == m->n_sizes - 1 && sum.iqr_pct > m->iqr_pct) m->iqr_pct = sum.iqr_pct;
    }
  return e;
}

/* N small pinned copies vs one copy of the same bytes (events, no spin). */
static cudaError_t small_vs_batched(lab_transfer_measure *m, char *host, char *dev, cudaStream_t s, kern_timer *t) {
  double xs[LAB_TRANSFER_MAX_SAMPLES], xb[LAB_TRANSFER_MAX_SAMPLES];
  size_t small = (size_t)m->small_bytes, total = small * (size_t)m->small_copies;
  cudaError_t e = cudaSuccess;
  for (int smp = -1; smp < m->samples && e == cudaSuccess; smp++) { /* smp -1: warm-up */
    double ms_small = 0, ms_batch = 0;
    e = kern_timer_start(t, s);
    for (int i = 0; e == cudaSuccess && i < m->small_copies; i++)
      e = cudaMemcpyAsync(dev + i * small, host + i * small, small, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = kern_timer_stop_ms(t, s, &ms_small);
    if (e == cudaSuccess) e = kern_timer_start(t, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(dev, host, total, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = kern_timer_stop_ms(t, s, &ms_batch);
    if (smp >= 0) {
      xs[smp] = ms_small;
      xb[smp] = ms_batch;
    }
  }
  lab_summary a, b;
  if (e == cudaSuccess) {
    lab_summarize(xs, (size_t)m->samples, &a);
    lab_summarize(xb, (size_t)m->samples, &b);
    m->small_total_ms = a.median;
    m->batched_ms = b.median;
  }
  return e;
}

static double max_abs_diff(const float *a, const float *b, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double d = a[i] > b[i] ? (double)a[i] - b[i] : (double)b[i] - a[i];
    if (d != d) return 1e30; /* NaN: corrupted data */
    if (d > worst) worst = d;
  }
  return worst;
}

extern "C" int kern_run_transfer(const lab_params *p, cJSON **out, lab_error *err) {
  lab_transfer_measure m;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  kern_timer t = {NULL, NULL};
  char *host = NULL, *dev = NULL;
  float *ref = NULL, *back = NULL;
  int registered = 0, rc = -1;
  size_t max_bytes = 0, check = 0;
  double t0 = 0;
  *out = NULL;
  memset(&m, 0, sizeof m);
  max_bytes = (size_t)lab_param(p, "max_bytes");
  check = max_bytes < CHECK_BYTES ? max_bytes : CHECK_BYTES;
  m.samples = (int)lab_param_int(p, "samples");
  m.warmup = 1;
  m.small_copies = (int)lab_param_int(p, "small_copies");
  m.small_bytes = lab_param(p, "small_bytes");
  m.n_sizes = lab_transfer_sizes((double)max_bytes, m.bytes, LAB_TRANSFER_MAX_SIZES);

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_timer_create(&t));
  TRY(cudaMalloc((void **)&dev, max_bytes));
  /* Page-aligned, whole pages: what cudaHostRegister locks is exactly this buffer. */
  host = (char *)aligned_alloc(4096, (max_bytes + 4095) / 4096 * 4096);
  ref = (float *)malloc(check);
  back = (float *)malloc(check);
  if (!host || !ref || !back) {
    lab_fail(err, LAB_E_NOMEM, "max_bytes", "not enough host memory for %zu bytes; lower max_bytes", max_bytes);
    goto cleanup;
  }
  /* Random normal data made on the GPU; copying it down also touches every
   * host page, so page faults are not timed later. */
  TRY(kern_fill_normal_device((float *)dev, max_bytes / sizeof(float), 0x5eed, s));
  TRY(cudaMemcpyAsync(host, dev, max_bytes, cudaMemcpyDeviceToHost, s));
  TRY(cudaStreamSynchronize(s));
  memcpy(ref, host, check);

  TRY(sweep(&m, 0, host, dev, s, &t));
  t0 = kern_now_us();
  TRY(cudaHostRegister(host, max_bytes, cudaHostRegisterDefault));
  registered = 1;
  m.pin_ms = (kern_now_us() - t0) / 1e3;
  m.pin_bytes = (double)max_bytes;
  TRY(sweep(&m, 1, host, dev, s, &t));
  TRY(small_vs_batched(&m, host, dev, s, &t));

  /* The device holds what the host sent; the host still holds the original. */
  TRY(cudaMemcpyAsync(back, dev, check, cudaMemcpyDeviceToHost, s));
  TRY(cudaStreamSynchronize(s));
  {
    double e1 = max_abs_diff(ref, back, check / sizeof(float));
    double e2 = max_abs_diff(ref, (const float *)host, check / sizeof(float));
    m.max_abs_err = e1 > e2 ? e1 : e2;
    m.validated = m.max_abs_err == 0;
  }
  *out = lab_transfer_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (registered) cudaHostUnregister(host);
  free(host);
  free(ref);
  free(back);
  if (dev) cudaFree(dev);
  kern_timer_destroy(&t);
  if (s) cudaStreamDestroy(s);
  return rc;
}
