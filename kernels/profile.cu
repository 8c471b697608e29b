/* profile on a real GPU: SGD steps of a small MLP (1024 → hidden, ReLU → 10,
 * softmax cross-entropy) split into phases — data load (gather + normalise
 * on the host, H2D copies from pinned or pageable memory), forward, loss,
 * backward, optimizer step, logging (the loss read back, like .item()) —
 * each inside an NVTX range, so Nsight Systems shows the same names. Host
 * time per phase from the host clock; the GPU's busy time per op from a CUDA
 * event after every op, aligned to the host clock at an event recorded on an
 * idle GPU. A warm-up run, then RUNS timed runs; the median run is reported.
 * Validation: one step's loss and gradients on 32 rows against lab/'s CPU
 * reference in double. */
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
#include "loss.cuh"
extern "C" {
#include "gpu_spans.h"
#include "profile.h"
#include "train_step.h"
}

#define RUNS 3
#define WARMUP_STEPS 5
#define VALID_ROWS 32
#define WARP KERN_WARP
#define F LAB_PHASES_FEATURES
#define C LAB_PHASES_CLASSES

/* z1 += b1 (kept for the ReLU mask), a1 = max(z1, 0); row-major [rows×h]. */
static __global__ void bias_relu_kernel(float *z1, const float *b1, float *a1, size_t n, int h) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = z1[i] + b1[i % h];
  z1[i] = v;
  a1[i] = v > 0 ? v : 0;
}

/* One warp per row: adds b2, loss_i = logsumexp(z) − z[y], and writes
 * dlogits = (softmax − onehot) / rows over the logits. */
static __global__ void softmax_ce_kernel(float *z, const float *b2, const int *y, float *row_loss, int rows) {
  int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
  if (row >= rows) return;
  float *zr = z + (size_t)row * C;
  float v = lane < C ? zr[lane] + b2[lane] : -INFINITY;
  float mx = kern_warp_max(v);
  float e = lane < C ? expf(v - mx) : 0.0f;
  float sum = kern_warp_sum(e);
  int label = y[row];
  float zl = __shfl_sync(0xffffffffu, v, label);
  if (lane == 0) row_loss[row] = logf(sum) + mx - zl;
  if (lane < C) zr[lane] = (e / sum - (lane == label ? 1.0f : 0.0f)) / rows;
}

/* dz1 = dh · (z1 > 0), in place. */
static __global__ void relu_bwd_kernel(float *dh, const float *z1, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && z1[i] <= 0) dh[i] = 0;
}

/* Every parameter at once: they share one buffer (a fused optimizer step). */
static __global__ void sgd_kernel(float *p, const float *g, size_t n, float lr) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= lr * g[i];
}

typedef struct mlp {
  int rows, hidden;
  size_t n_params;
  float *p, *g, *x, *z1, *a1, *z2, *row_loss, *dh, *hist;
  int *y;
  cublasHandle_t blas;
  cudaStream_t s;
} mlp;

static unsigned blocks(size_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

/* GPU op `op` of lab_phases_ops for step `step` (ops 2..13: kernels). */
static int launch_op(const mlp *m, int op, int step, lab_error *err) {
  const float one = 1.0f, zero = 0.0f;
  const int B = m->rows, H = m->hidden;
  float *w1 = m->p, *b1 = w1 + (size_t)H * F, *w2 = b1 + H, *b2 = w2 + (size_t)C * H;
  float *gw1 = m->g, *gb1 = gw1 + (size_t)H * F, *gw2 = gb1 + H, *gb2 = gw2 + (size_t)C * H;
  size_t bh = (size_t)B * H;
  switch (op) {
    /* Row-major tensors through column-major cuBLAS: z1ᵀ[H×B] = W1·xᵀ. */
    case 2: TRY_BLAS(cublasSgemm(m->blas, CUBLAS_OP_T, CUBLAS_OP_N, H, B, F, &one, w1, F, m->x, F, &zero, m->z1, H)); break;
    case 3: bias_relu_kernel<<<blocks(bh, 256), 256, 0, m->s>>>(m->z1, b1, m->a1, bh, H); TRY_LAUNCH(); break;
    case 4: TRY_BLAS(cublasSgemm(m->blas, CUBLAS_OP_T, CUBLAS_OP_N, C, B, H, &one, w2, H, m->a1, H, &zero, m->z2, C)); break;
    case 5: softmax_ce_kernel<<<blocks(B, 8), 8 * WARP, 0, m->s>>>(m->z2, b2, m->y, m->row_loss, B); TRY_LAUNCH(); break;
    case 6: kern_mean_loss_kernel<<<1, 256, 0, m->s>>>(m->row_loss, B, m->hist, step); TRY_LAUNCH(); break;
    /* dW2[C×H] = dz2ᵀ·a1; dh[B×H] = dz2·W2; dW1[H×F] = dz1ᵀ·x. */
    case 7: TRY_BLAS(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_T, H, C, B, &one, m->a1, H, m->z2, C, &zero, gw2, H)); break;
    case 8: kern_bias_grad_kernel<<<blocks(C, 8), 8 * WARP, 0, m->s>>>(m->z2, gb2, B, C); TRY_LAUNCH(); break;
    case 9: TRY_BLAS(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_N, H, B, C, &one, w2, H, m->z2, C, &zero, m->dh, H)); break;
    case 10: relu_bwd_kernel<<<blocks(bh, 256), 256, 0, m->s>>>(m->dh, m->z1, bh); TRY_LAUNCH(); break;
    case 11: TRY_BLAS(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_T, F, H, B, &one, m->x, F, m->dh, H, &zero, gw1, F)); break;
    case 12: kern_bias_grad_kernel<<<blocks(H, 8), 8 * WARP, 0, m->s>>>(m->dh, gb1, B, H); TRY_LAUNCH(); break;
    case 13: sgd_kernel<<<blocks(m->n_params, 256), 256, 0, m->s>>>(m->p, m->g, m->n_params, LAB_PHASES_LR); TRY_LAUNCH(); break;
    default: break;
  }
  return 0;
cleanup:
  return -1;
}

/* What one run needs on the host: the data set, two staging buffers and
 * the events (one before each step's copies, one after every op). */
typedef struct loop {
  const float *data;
  const int *labels;
  int data_rows, steps, pinned, log_every;
  float mean, inv_sd;
  float *stage_x[2];
  int *stage_y[2];
  cudaEvent_t origin, *pre, *after; /* pre[steps], after[steps × OPS] */
} loop;

/* NVTX ranges, counted so that an error path closes what it opened: the
 * worker lives on, and an unbalanced stack would skew every later trace. */
static void range_push(int *depth, const char *name) {
  nvtxRangePushA(name);
  (*depth)++;
}

static void range_pop(int *depth) {
  nvtxRangePop();
  (*depth)--;
}

/* One run of `steps` steps; fills t (host clock, µs from the run's start). */
static int run_loop(const mlp *m, const loop *l, int steps, lab_phases_trace *t, lab_error *err) {
  const int O = LAB_PHASES_OPS;
  double t0 = 0, origin_us = 0;
  float loss = 0;
  int depth = 0;
  lab_phases_trace_clear(t);
  TRY(cudaStreamSynchronize(m->s));
  t0 = kern_now_us();
  TRY(cudaEventRecord(l->origin, m->s)); /* the GPU is idle: it completes at once */
  origin_us = kern_now_us() - t0;
  for (int st = 0; st < steps; st++) {
    double *rs = t->range_start_us + (size_t)st * LAB_PHASES_PHASES, *re = t->range_end_us + (size_t)st * LAB_PHASES_PHASES;
    double *issue = t->op_start_us + (size_t)st * O; /* issue times for now; spans below */
    int k = st & 1, logs = (st + 1) % l->log_every == 0 || st == steps - 1;
    rs[LAB_PH_DATA] = kern_now_us() - t0;
    range_push(&depth, "data load");
    /* A pinned staging buffer is refilled only once its copy is done. */
    if (l->pinned && st >= 2) TRY(cudaEventSynchronize(l->after[(size_t)(st - 2) * O + 1]));
    {
      double p0 = kern_now_us();
      lab_phases_collate(l->data, l->labels, l->data_rows, m->rows, st, l->mean, l->inv_sd, l->stage_x[k], l->stage_y[k]);
      t->prep_us[st] = kern_now_us() - p0;
    }
    TRY(cudaEventRecord(l->pre[st], m->s));
    issue[0] = kern_now_us() - t0;
    TRY(cudaMemcpyAsync(m->x, l->stage_x[k], (size_t)m->rows * F * sizeof(float), cudaMemcpyHostToDevice, m->s));
    TRY(cudaEventRecord(l->after[(size_t)st * O], m->s));
    issue[1] = kern_now_us() - t0;
    TRY(cudaMemcpyAsync(m->y, l->stage_y[k], (size_t)m->rows * sizeof(int), cudaMemcpyHostToDevice, m->s));
    TRY(cudaEventRecord(l->after[(size_t)st * O + 1], m->s));
    range_pop(&depth);
    re[LAB_PH_DATA] = kern_now_us() - t0;
    for (int o = 2; o < O - 1; o++) {
      lab_phases_phase ph = lab_phases_ops[o].phase;
      if (ph != lab_phases_ops[o - 1].phase) {
        rs[ph] = kern_now_us() - t0;
        range_push(&depth, lab_phases_phase_names[ph]);
      }
      issue[o] = kern_now_us() - t0;
      if (launch_op(m, o, st, err)) goto cleanup;
      TRY(cudaEventRecord(l->after[(size_t)st * O + o], m->s));
      if (ph != lab_phases_ops[o + 1].phase) {
        range_pop(&depth);
        re[ph] = kern_now_us() - t0;
      }
    }
    if (logs) {
      rs[LAB_PH_LOGGING] = kern_now_us() - t0;
      range_push(&depth, "logging");
      issue[O - 1] = kern_now_us() - t0;
      TRY(cudaMemcpyAsync(&loss, m->hist + st, sizeof loss, cudaMemcpyDeviceToHost, m->s));
      TRY(cudaEventRecord(l->after[(size_t)st * O + O - 1], m->s));
      TRY(cudaStreamSynchronize(m->s)); /* what .item() does */
      range_pop(&depth);
      re[LAB_PH_LOGGING] = kern_now_us() - t0;
    } else {
      issue[O - 1] = -1;
    }
  }
  t->end_us = kern_now_us() - t0;
  /* GPU spans: an op ends at its event and starts at the later of its
   * issue and the previous op's end (for the first copy: the event before
   * it), lab_gpu_span_starts's rule. Only the last op (logging) may be
   * missing from a step. */
  for (int st = 0; st < steps; st++) {
    float ms = 0;
    double ready = 0, *issue = t->op_start_us + (size_t)st * O, *end = t->op_end_us + (size_t)st * O;
    int issued = issue[O - 1] < 0 ? O - 1 : O;
    TRY(cudaEventElapsedTime(&ms, l->origin, l->pre[st]));
    ready = origin_us + ms * 1e3;
    for (int o = 0; o < issued; o++) {
      TRY(cudaEventElapsedTime(&ms, l->origin, l->after[(size_t)st * O + o]));
      end[o] = origin_us + ms * 1e3;
    }
    lab_gpu_span_starts(issue, end, issued, ready, issue); /* the starts replace the issue times */
  }
  return 0;
cleanup:
  while (depth > 0) range_pop(&depth);
  return -1;
}

/* One step on VALID_ROWS rows without the update, against the CPU in double. */
static int validate(mlp *m, const loop *l, const float *params0, lab_phases_measure *pm, lab_error *err) {
  int rows = m->rows < VALID_ROWS ? m->rows : VALID_ROWS, full = m->rows, rc = -1;
  size_t np = m->n_params;
  float *g = (float *)malloc(np * sizeof(float)), loss = 0;
  double *ref = (double *)malloc(np * sizeof(double)), *scratch = (double *)malloc((2 * (size_t)m->hidden + 2 * C) * sizeof(double));
  double ref_loss = 0;
  if (!g || !ref || !scratch) {
    lab_fail(err, LAB_E_NOMEM, NULL, "not enough host memory to check the step");
    goto cleanup;
  }
  lab_phases_collate(l->data, l->labels, l->data_rows, rows, 0, l->mean, l->inv_sd, l->stage_x[0], l->stage_y[0]);
  TRY(cudaMemcpyAsync(m->x, l->stage_x[0], (size_t)rows * F * sizeof(float), cudaMemcpyHostToDevice, m->s));
  TRY(cudaMemcpyAsync(m->y, l->stage_y[0], (size_t)rows * sizeof(int), cudaMemcpyHostToDevice, m->s));
  m->rows = rows;
  for (int o = 2; o < LAB_PHASES_OPS - 2; o++)
    if (launch_op(m, o, 0, err)) goto cleanup;
  TRY(cudaMemcpyAsync(&loss, m->hist, sizeof loss, cudaMemcpyDeviceToHost, m->s));
  TRY(cudaMemcpyAsync(g, m->g, np * sizeof(float), cudaMemcpyDeviceToHost, m->s));
  TRY(cudaStreamSynchronize(m->s));
  ref_loss = lab_phases_cpu_grads(l->stage_x[0], l->stage_y[0], params0, rows, m->hidden, ref, scratch);
  pm->max_abs_err = fabs((double)loss - ref_loss);
  for (size_t i = 0; i < np; i++) {
    double d = fabs((double)g[i] - ref[i]);
    if (!(d <= pm->max_abs_err)) pm->max_abs_err = d; /* NaN sticks */
  }
  pm->validated = pm->max_abs_err <= 1e-4;
  rc = 0;
cleanup:
  m->rows = full;
  free(g), free(ref), free(scratch);
  return rc;
}

KERN_ENTRY(profile) {
  const lab_params_profile tp = lab_params_profile_of(p);
  const int O = LAB_PHASES_OPS;
  mlp m;
  loop l;
  lab_phases_measure *pm = (lab_phases_measure *)calloc(1, sizeof *pm);
  lab_phases_trace tr[RUNS];
  int made_tr = 0, made_ev = 0, rc = -1, n_ev = 0, B = 0, H = 0, steps = 0;
  float *data = NULL, *params0 = NULL;
  int *labels = NULL;
  double sum = 0, sq = 0;
  cudaDeviceProp prop;
  lab_summary su;
  memset(&m, 0, sizeof m);
  memset(&l, 0, sizeof l);
  *out = NULL;
  if (!pm) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  B = pm->batch = (int)tp.batch;
  H = pm->hidden = (int)tp.hidden;
  steps = pm->steps = (int)tp.steps;
  pm->pinned = tp.pinned;
  pm->log_every = (int)tp.log_every;
  pm->runs = RUNS;
  pm->warmup = 1;
  m.rows = B, m.hidden = H, m.n_params = (size_t)lab_phases_param_count(H);
  l.data_rows = 4 * B, l.steps = steps, l.pinned = pm->pinned, l.log_every = pm->log_every;
  n_ev = steps * (O + 1) + 1;
  l.pre = (cudaEvent_t *)calloc((size_t)n_ev, sizeof(cudaEvent_t));
  data = (float *)malloc((size_t)l.data_rows * F * sizeof(float));
  labels = (int *)malloc((size_t)l.data_rows * sizeof(int));
  params0 = (float *)malloc(m.n_params * sizeof(float));
  for (; made_tr < RUNS; made_tr++)
    if (lab_phases_trace_alloc(&tr[made_tr], steps)) break;
  if (!l.pre || !data || !labels || !params0 || made_tr < RUNS) {
    lab_fail(err, LAB_E_NOMEM, NULL, "not enough host memory for the data set; use a smaller batch");
    goto cleanup;
  }
  l.after = l.pre + steps;
  /* A data set of 4 batches: class centres plus unit normal noise. */
  lab_train_data(l.data_rows, F, C, LAB_PHASES_SEED, data, labels);
  /* The loop reads the data set through l: without these two lines every
   * run crashed the worker at its first batch (the first lease, on an H100:
   * lab_phases_collate with data = NULL, found by tools/lease_debug.sh). */
  l.data = data;
  l.labels = labels;
  for (size_t i = 0; i < (size_t)l.data_rows * F; i++) sum += data[i], sq += (double)data[i] * data[i];
  l.mean = (float)(sum / ((double)l.data_rows * F));
  l.inv_sd = (float)(1.0 / sqrt(sq / ((double)l.data_rows * F) - (double)l.mean * l.mean + 1e-12));
  lab_phases_init(H, LAB_PHASES_SEED + 1, params0);

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaStreamCreateWithFlags(&m.s, cudaStreamNonBlocking));
  for (int k = 0; k < 2; k++) {
    if (l.pinned) {
      TRY(cudaMallocHost((void **)&l.stage_x[k], (size_t)B * F * sizeof(float)));
      TRY(cudaMallocHost((void **)&l.stage_y[k], (size_t)B * sizeof(int)));
    } else {
      l.stage_x[k] = (float *)malloc((size_t)B * F * sizeof(float));
      l.stage_y[k] = (int *)malloc((size_t)B * sizeof(int));
      if (!l.stage_x[k] || !l.stage_y[k]) {
        lab_fail(err, LAB_E_NOMEM, NULL, "not enough host memory for the batch; use a smaller batch");
        goto cleanup;
      }
    }
  }
  for (; made_ev < n_ev; made_ev++) TRY(cudaEventCreate(made_ev < n_ev - 1 ? &l.pre[made_ev] : &l.origin));
  TRY(cudaMalloc((void **)&m.p, m.n_params * sizeof(float)));
  TRY(cudaMalloc((void **)&m.g, m.n_params * sizeof(float)));
  TRY(cudaMalloc((void **)&m.x, (size_t)B * F * sizeof(float)));
  TRY(cudaMalloc((void **)&m.y, (size_t)B * sizeof(int)));
  TRY(cudaMalloc((void **)&m.z1, (size_t)B * H * sizeof(float)));
  TRY(cudaMalloc((void **)&m.a1, (size_t)B * H * sizeof(float)));
  TRY(cudaMalloc((void **)&m.dh, (size_t)B * H * sizeof(float)));
  TRY(cudaMalloc((void **)&m.z2, (size_t)B * C * sizeof(float)));
  TRY(cudaMalloc((void **)&m.row_loss, (size_t)B * sizeof(float)));
  TRY(cudaMalloc((void **)&m.hist, (size_t)steps * sizeof(float)));
  TRY_BLAS(kern_blas_create(&m.blas, m.s));
  TRY(cudaMemcpy(m.p, params0, m.n_params * sizeof(float), cudaMemcpyHostToDevice));
  if (validate(&m, &l, params0, pm, err)) goto cleanup;

  /* A warm-up run (cuBLAS picks and loads its kernels), then the runs,
   * each from the same initial parameters. */
  if (run_loop(&m, &l, steps < WARMUP_STEPS ? steps : WARMUP_STEPS, &tr[0], err)) goto cleanup;
  for (int r = 0; r < RUNS; r++) {
    TRY(cudaMemcpy(m.p, params0, m.n_params * sizeof(float), cudaMemcpyHostToDevice));
    if (run_loop(&m, &l, steps, &tr[r], err)) goto cleanup;
    pm->run_ms[r] = lab_phases_trace_wall_ms(&tr[r]);
  }
  lab_summarize(pm->run_ms, RUNS, &su);
  pm->step_ms = su.median / steps;
  pm->iqr_pct = su.iqr_pct;
  lab_phases_summarize(&tr[lab_median_index(pm->run_ms, RUNS)], pm); /* RUNS is odd: the median is a run */
  *out = lab_phases_envelope(p, pm, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (m.blas) cublasDestroy(m.blas);
  cudaFree(m.p), cudaFree(m.g), cudaFree(m.x), cudaFree(m.y), cudaFree(m.z1), cudaFree(m.a1), cudaFree(m.dh);
  cudaFree(m.z2), cudaFree(m.row_loss), cudaFree(m.hist);
  for (int k = 0; k < 2; k++) {
    if (l.pinned) cudaFreeHost(l.stage_x[k]), cudaFreeHost(l.stage_y[k]);
    else free(l.stage_x[k]), free(l.stage_y[k]);
  }
  for (int i = 0; i < made_ev; i++) cudaEventDestroy(i < n_ev - 1 ? l.pre[i] : l.origin);
  if (m.s) cudaStreamDestroy(m.s);
  for (int r = 0; r < made_tr; r++) lab_phases_trace_free(&tr[r]);
  free(l.pre), free(data), free(labels), free(params0), free(pm);
  return rc;
}
