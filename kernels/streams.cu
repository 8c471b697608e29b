/* streams on a real GPU: chunks of random normal fp32 data copied in
 * (H2D), worked on by a kernel and copied back (D2H), on one stream and on
 * K streams, from pinned and from pageable host memory; then a race
 * between a copy stream and a compute stream, with or without
 * cudaStreamWaitEvent. Measured with CUDA events before and after every op,
 * elapsed from one start event that every stream waits on; the harness's
 * hold keeps the GPU from starting until everything is queued. Every output is checked
 * against lab_streams_ref on the CPU; the race counts wrong values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "streams.h"
}

#define N_EV 5 /* per chunk: before H2D, after H2D, before kernel, after kernel, after D2H */

/* The compute kernel: one elementwise pass (read at the start, as a layer
 * reads its input), then each block stays busy until `ns` have passed since
 * it started, standing in for kernel_us of math. The grid fills every SM,
 * so kernels of different streams take turns, as large kernels do. */
static __global__ void work_kernel(const float *in, float *out, size_t n, unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float x = in[i];
    out[i] = __fmaf_rn(x, __fmaf_rn(x, 0.5f, 0.25f), -1.0f);
  }
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

typedef struct ctx {
  lab_streams_measure *m;
  size_t elems;      /* per chunk */
  int grid;
  cudaStream_t st[LAB_STREAMS_MAX_STREAMS];
  cudaEvent_t start, ev[LAB_STREAMS_MAX_CHUNKS][N_EV];
  float *h_in, *h_out, *p_in, *p_out, *d_in, *d_out; /* pinned, pageable, device */
  kern_hold hold;
} ctx;

static cudaError_t launch_work(ctx *c, const float *in, float *out, cudaStream_t s) {
  work_kernel<<<c->grid, 256, 0, s>>>(in, out, c->elems, (unsigned long long)(c->m->kernel_us * 1e3));
  return cudaGetLastError();
}

/* Holds stream 0 (the harness's hold: released once everything is
 * queued), records the start event and makes streams 1..k-1 wait on it.
 * Pageable runs are not held: their copies make the host wait as it queues. */
static int begin(ctx *c, int k, int hold, lab_error *err) {
  if (hold) TRY(kern_hold_begin(&c->hold, c->st[0]));
  TRY(cudaEventRecord(c->start, c->st[0]));
  for (int s = 1; s < k; s++) TRY(cudaStreamWaitEvent(c->st[s], c->start, 0));
  return 0;
cleanup:
  return -1;
}

static float elapsed_us(cudaEvent_t a, cudaEvent_t b, cudaError_t *e) {
  float ms = 0;
  *e = cudaEventElapsedTime(&ms, a, b);
  return ms * 1e3f;
}

/* Turns the events into spans: an op is ready at its event before and ends
 * at its event after; it starts when ready and when its engine finished the
 * op issued before it (each engine taken in issue order). */
static int spans(ctx *c, int chunks, const int *stream_of, lab_streams_run *r, double *end_us, lab_error *err) {
  double engine_free[LAB_ST_STAGES] = {0, 0, 0};
  static const int ready_ev[LAB_ST_STAGES] = {0, 2, 3}, end_ev[LAB_ST_STAGES] = {1, 3, 4};
  cudaError_t e = cudaSuccess;
  r->n_spans = 0;
  *end_us = 0;
  for (int i = 0; i < chunks; i++)
    for (int g = 0; g < LAB_ST_STAGES; g++) {
      double ready = elapsed_us(c->start, c->ev[i][ready_ev[g]], &e);
      TRY(e);
      double end = elapsed_us(c->start, c->ev[i][end_ev[g]], &e);
      TRY(e);
      double s = fmin(fmax(ready, engine_free[g]), end);
      engine_free[g] = end;
      r->span[r->n_spans++] = (lab_streams_span){i, stream_of[i * LAB_ST_STAGES + g], g, s, end};
      *end_us = fmax(*end_us, end);
    }
  return 0;
cleanup:
  return -1;
}

/* Counts outputs that differ from the CPU reference; per chunk into bad[]. */
static double check(ctx *c, const float *in, const float *out, int *bad, double *max_err) {
  double wrong = 0;
  for (int i = 0; i < c->m->chunks; i++) {
    size_t off = (size_t)i * c->elems, w = 0;
    for (size_t j = 0; j < c->elems; j++) {
      double d = fabs((double)out[off + j] - (double)lab_streams_ref(in[off + j]));
      if (!(d <= 0)) w++;
      if (max_err && !(d <= *max_err)) *max_err = d; /* NaN sticks */
    }
    if (bad) bad[i] = w > 0;
    wrong += (double)w;
  }
  return wrong;
}

/* One timed pipeline: chunk i on stream i mod k. */
static int pipeline(ctx *c, int k, int pinned, double *total_ms, double stage[LAB_ST_STAGES], lab_streams_run *draw,
                    lab_error *err) {
  lab_streams_run local;
  lab_streams_run *r = draw ? draw : &local;
  int stream_of[LAB_ST_STAGES * LAB_STREAMS_MAX_CHUNKS];
  const float *src = pinned ? c->h_in : c->p_in;
  float *dst = pinned ? c->h_out : c->p_out;
  size_t bytes = c->elems * sizeof(float);
  double end = 0;
  if (begin(c, k, pinned, err)) return -1;
  for (int i = 0; i < c->m->chunks; i++) {
    cudaStream_t s = c->st[i % k];
    size_t off = (size_t)i * c->elems;
    for (int g = 0; g < LAB_ST_STAGES; g++) stream_of[i * LAB_ST_STAGES + g] = i % k;
    TRY(cudaEventRecord(c->ev[i][0], s));
    TRY(cudaMemcpyAsync(c->d_in + off, src + off, bytes, cudaMemcpyHostToDevice, s));
    TRY(cudaEventRecord(c->ev[i][1], s));
    TRY(cudaEventRecord(c->ev[i][2], s));
    TRY(launch_work(c, c->d_in + off, c->d_out + off, s));
    TRY(cudaEventRecord(c->ev[i][3], s));
    TRY(cudaMemcpyAsync(dst + off, c->d_out + off, bytes, cudaMemcpyDeviceToHost, s));
    TRY(cudaEventRecord(c->ev[i][4], s));
  }
  kern_hold_release(&c->hold);
  TRY(cudaDeviceSynchronize());
  r->n_streams = k;
  if (spans(c, c->m->chunks, stream_of, r, &end, err)) return -1;
  *total_ms = end / 1e3;
  if (stage)
    for (int g = 0; g < LAB_ST_STAGES; g++) {
      double d[LAB_STREAMS_MAX_CHUNKS];
      lab_summary sm;
      for (int i = 0; i < c->m->chunks; i++) d[i] = r->span[i * LAB_ST_STAGES + g].end_us - r->span[i * LAB_ST_STAGES + g].start_us;
      lab_summarize(d, (size_t)c->m->chunks, &sm);
      stage[g] = sm.median;
    }
  return 0;
cleanup:
  kern_hold_release(&c->hold);
  return -1;
}

/* The race: H2D copies on stream 0, kernel + D2H on stream 1 reading what
 * stream 0 writes; the device input starts zeroed, so a kernel that runs
 * before its copy reads zeros (its own buffer: stale, never out of bounds). */
static int race(ctx *c, lab_error *err) {
  lab_streams_measure *m = c->m;
  int stream_of[LAB_ST_STAGES * LAB_STREAMS_MAX_CHUNKS];
  size_t bytes = c->elems * sizeof(float);
  double end = 0;
  TRY(cudaMemset(c->d_in, 0, bytes * m->chunks));
  memset(c->h_out, 0xff, bytes * m->chunks); /* NaN: a chunk never copied back counts as wrong */
  TRY(cudaDeviceSynchronize());
  if (begin(c, 2, 1, err)) return -1;
  for (int i = 0; i < m->chunks; i++) {
    size_t off = (size_t)i * c->elems;
    stream_of[i * 3] = 0, stream_of[i * 3 + 1] = 1, stream_of[i * 3 + 2] = 1;
    TRY(cudaEventRecord(c->ev[i][0], c->st[0]));
    TRY(cudaMemcpyAsync(c->d_in + off, c->h_in + off, bytes, cudaMemcpyHostToDevice, c->st[0]));
    TRY(cudaEventRecord(c->ev[i][1], c->st[0]));
    if (m->wait) TRY(cudaStreamWaitEvent(c->st[1], c->ev[i][1], 0));
    TRY(cudaEventRecord(c->ev[i][2], c->st[1]));
    TRY(launch_work(c, c->d_in + off, c->d_out + off, c->st[1]));
    TRY(cudaEventRecord(c->ev[i][3], c->st[1]));
    TRY(cudaMemcpyAsync(c->h_out + off, c->d_out + off, bytes, cudaMemcpyDeviceToHost, c->st[1]));
    TRY(cudaEventRecord(c->ev[i][4], c->st[1]));
  }
  kern_hold_release(&c->hold);
  TRY(cudaDeviceSynchronize());
  m->race.n_streams = 2;
  if (spans(c, m->chunks, stream_of, &m->race, &end, err)) return -1;
  m->race_ms = end / 1e3;
  m->stale_elements = check(c, c->h_in, c->h_out, m->stale_chunk, NULL);
  m->checked_elements = (double)c->elems * m->chunks;
  m->stale_chunks = 0;
  for (int i = 0; i < m->chunks; i++) m->stale_chunks += m->stale_chunk[i];
  return 0;
cleanup:
  kern_hold_release(&c->hold);
  return -1;
}

KERN_ENTRY(streams) {
  lab_streams_measure m;
  cudaDeviceProp prop;
  ctx c;
  int rc = -1, n_ev = 0, n_st = 0, per_sm = 0, ok = 1;
  size_t total = 0;
  double t = 0, stage[LAB_ST_STAGES];
  *out = NULL;
  memset(&c, 0, sizeof c);
  lab_streams_setup(p, &m);
  c.m = &m;
  c.elems = (size_t)(m.chunk_bytes / sizeof(float));
  total = c.elems * m.chunks * sizeof(float);

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, work_kernel, 256, 0));
  c.grid = (per_sm > 0 ? per_sm : 1) * prop.multiProcessorCount;
  for (; n_st < LAB_STREAMS_MAX_STREAMS; n_st++) TRY(cudaStreamCreateWithFlags(&c.st[n_st], cudaStreamNonBlocking));
  TRY(cudaEventCreate(&c.start));
  TRY(kern_hold_create(&c.hold));
  for (; n_ev < m.chunks * N_EV; n_ev++) TRY(cudaEventCreate(&c.ev[n_ev / N_EV][n_ev % N_EV]));
  TRY(cudaMalloc((void **)&c.d_in, total));
  TRY(cudaMalloc((void **)&c.d_out, total));
  TRY(cudaMallocHost((void **)&c.h_in, total));
  TRY(cudaMallocHost((void **)&c.h_out, total));
  c.p_in = (float *)malloc(total);
  c.p_out = (float *)malloc(total);
  if (!c.p_in || !c.p_out) {
    lab_fail(err, LAB_E_NOMEM, "chunk_mib", "not enough host memory for %.0f MiB of pageable buffers; use fewer chunks "
             "or a smaller chunk_mib", 2 * total / 1048576.0);
    goto cleanup;
  }
  kern_fill_normal_host(c.h_in, c.elems * m.chunks, 0x57e4);
  memcpy(c.p_in, c.h_in, total);
  /* The work kernel once, unheld: its first launch loads it (lazy module
   * loading), which may wait for the held stream's kernel, which waits for
   * the host that is stuck in that launch (kern_bench_samples says more). */
  TRY(cudaMemset(c.d_in, 0, c.elems * sizeof(float)));
  TRY(launch_work(&c, c.d_in, c.d_out, c.st[0]));
  TRY(cudaDeviceSynchronize());

  m.max_abs_err = 0;
  for (int cf = 0; cf < LAB_ST_CONFIGS; cf++) {
    int pinned = cf == LAB_ST_ONE_PINNED || cf == LAB_ST_MANY_PINNED;
    int k = (cf == LAB_ST_MANY_PINNED || cf == LAB_ST_MANY_PAGEABLE) ? m.streams : 1;
    double stages[LAB_ST_STAGES][LAB_STREAMS_SAMPLES];
    float *dst = pinned ? c.h_out : c.p_out;
    memset(dst, 0xff, total); /* NaN until the pipeline writes it */
    for (int w = 0; w < m.warmup; w++)
      if (pipeline(&c, k, pinned, &t, NULL, NULL, err)) goto cleanup;
    for (int i = 0; i < m.samples; i++) {
      if (pipeline(&c, k, pinned, &m.total_ms[cf][i], stage, NULL, err)) goto cleanup;
      for (int g = 0; g < LAB_ST_STAGES; g++) stages[g][i] = stage[g];
    }
    if (check(&c, pinned ? c.h_in : c.p_in, dst, NULL, &m.max_abs_err) > 0) ok = 0;
    if (k == 1)
      for (int g = 0; g < LAB_ST_STAGES; g++) {
        lab_summary s;
        lab_summarize(stages[g], (size_t)m.samples, &s);
        m.stage_us[pinned][g] = s.median;
      }
  }
  if (pipeline(&c, m.streams, m.pinned, &t, NULL, &m.many, err)) goto cleanup;
  if (pipeline(&c, 1, m.pinned, &t, NULL, &m.one, err)) goto cleanup;
  if (race(&c, err)) goto cleanup;
  /* The race counts as validated only when it was made safe with the wait. */
  if (m.wait && m.stale_elements > 0) ok = 0;
  m.validated = ok;
  lab_streams_summarize(&m);
  *out = lab_streams_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (rc != 0) cudaDeviceSynchronize(); /* nothing may still copy into buffers freed below */
  if (c.d_in) cudaFree(c.d_in);
  if (c.d_out) cudaFree(c.d_out);
  if (c.h_in) cudaFreeHost(c.h_in);
  if (c.h_out) cudaFreeHost(c.h_out);
  free(c.p_in);
  free(c.p_out);
  for (int i = 0; i < n_ev; i++) cudaEventDestroy(c.ev[i / N_EV][i % N_EV]);
  if (c.start) cudaEventDestroy(c.start);
  kern_hold_destroy(&c.hold);
  for (int i = 0; i < n_st; i++) cudaStreamDestroy(c.st[i]);
  return rc;
}
