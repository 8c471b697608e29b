/* transfer on a real GPU: host↔device bandwidth over a size sweep, pageable
 * then pinned (the same host buffer, page-locked with cudaHostRegister in
 * between, which is timed on its own), and N small copies vs one batched
 * copy. Each point: CUDA events around a batch of identical copies; pinned
 * batches are queued behind the harness's hold so the host's enqueue cost
 * is not timed (as nvbandwidth does); one warm-up batch; the median of
 * `samples` batches. Input is random normal data; the device is then set to
 * another pattern, and after the copies a prefix is read back into a third
 * one and compared, so a copy that moved nothing cannot pass. */
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

typedef struct copy_job {
  char *host, *dev;
  size_t bytes;
  cudaMemcpyKind dir;
} copy_job;

/* Copy i of a batch: the same bytes again, or (stride set) the i-th slice. */
static int one_copy(void *ctx, int i, cudaStream_t s, lab_error *err) {
  const copy_job *j = (const copy_job *)ctx;
  (void)i;
  if (j->dir == cudaMemcpyHostToDevice) TRY(cudaMemcpyAsync(j->dev, j->host, j->bytes, j->dir, s));
  else TRY(cudaMemcpyAsync(j->host, j->dev, j->bytes, j->dir, s));
  return 0;
cleanup:
  return -1;
}

static int small_copy(void *ctx, int i, cudaStream_t s, lab_error *err) {
  const copy_job *j = (const copy_job *)ctx;
  TRY(cudaMemcpyAsync(j->dev + (size_t)i * j->bytes, j->host + (size_t)i * j->bytes, j->bytes, j->dir, s));
  return 0;
cleanup:
  return -1;
}

/* The sweep for the two kinds of one memory (pageable or pinned): for each
 * size, one warm-up batch and `samples` batches of identical copies. Pinned
 * batches are held until queued; a pageable copy makes the host wait while
 * it is staged, so holding it would only stall: it is not held. */
static int sweep(lab_transfer_measure *m, int pinned, char *host, char *dev, kern_bench *b, lab_error *err) {
  const lab_xfer_kind kinds[2] = {pinned ? LAB_XFER_H2D_PINNED : LAB_XFER_H2D_PAGEABLE,
                                  pinned ? LAB_XFER_D2H_PINNED : LAB_XFER_D2H_PAGEABLE};
  for (int kk = 0; kk < 2; kk++)
    for (int i = 0; i < m->n_sizes; i++) {
      copy_job j = {host, dev, (size_t)m->bytes[i], kk == 0 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost};
      lab_summary sum;
      if (kern_bench_samples(b, 1, m->samples, reps_for(m->bytes[i]), pinned, one_copy, &j, NULL, &sum, err))
        return -1;
      m->gbps[kinds[kk]][i] = sum.median > 0 ? m->bytes[i] / (sum.median * 1e6) : 0;
      if (i == m->n_sizes - 1 && sum.iqr_pct > m->iqr_pct) m->iqr_pct = sum.iqr_pct;
    }
  return 0;
}

/* N small pinned copies vs one copy of the same bytes, each batch held. */
static int small_vs_batched(lab_transfer_measure *m, char *host, char *dev, kern_bench *b, lab_error *err) {
  size_t small = (size_t)m->small_bytes;
  copy_job smalls = {host, dev, small, cudaMemcpyHostToDevice};
  copy_job one = {host, dev, small * (size_t)m->small_copies, cudaMemcpyHostToDevice};
  lab_summary a, c;
  if (kern_bench_samples(b, 1, m->samples, m->small_copies, 1, small_copy, &smalls, NULL, &a, err)) return -1;
  if (kern_bench_samples(b, 1, m->samples, 1, 1, one_copy, &one, NULL, &c, err)) return -1;
  m->small_total_ms = a.median * m->small_copies;
  m->batched_ms = c.median;
  return 0;
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

KERN_ENTRY(transfer) {
  const lab_params_transfer tp = lab_params_transfer_of(p);
  lab_transfer_measure m;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  kern_bench bench = {NULL, {NULL, NULL}, {NULL, 0}};
  char *host = NULL, *dev = NULL;
  float *ref = NULL, *back = NULL;
  int registered = 0, rc = -1;
  size_t max_bytes = 0, check = 0;
  double t0 = 0;
  *out = NULL;
  memset(&m, 0, sizeof m);
  max_bytes = (size_t)tp.max_bytes;
  check = max_bytes < CHECK_BYTES ? max_bytes : CHECK_BYTES;
  m.samples = (int)tp.samples;
  m.warmup = 1;
  m.small_copies = (int)tp.small_copies;
  m.small_bytes = (double)tp.small_bytes;
  m.n_sizes = lab_transfer_sizes((double)max_bytes, m.bytes, LAB_TRANSFER_MAX_SIZES);

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_bench_create(&bench, s));
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
  /* The device now gets a different pattern (all bits set: NaN), so only
   * copies that really move the data can make it match again. */
  TRY(cudaMemsetAsync(dev, 0xff, max_bytes, s));
  TRY(cudaStreamSynchronize(s));

  if (sweep(&m, 0, host, dev, &bench, err)) goto cleanup;
  t0 = kern_now_us();
  TRY(cudaHostRegister(host, max_bytes, cudaHostRegisterDefault));
  registered = 1;
  m.pin_ms = (kern_now_us() - t0) / 1e3;
  m.pin_bytes = (double)max_bytes;
  if (sweep(&m, 1, host, dev, &bench, err)) goto cleanup;
  if (small_vs_batched(&m, host, dev, &bench, err)) goto cleanup;

  /* The device holds what the host sent; the host still holds the original.
   * `back` starts as a third pattern, so a copy that does nothing fails. */
  memset(back, 0x7f, check);
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
  kern_bench_destroy(&bench);
  if (s) cudaStreamDestroy(s);
  return rc;
}
