/* train_step on a real GPU: one SGD step of softmax regression entirely on
 * the device (cuBLAS sgemm forward, softmax cross-entropy, mean loss,
 * cuBLAS sgemm for dW, bias gradient, SGD update — six launches), repeated.
 * Mode A copies the loss to the host after every step (like loss.item());
 * mode B keeps the losses on the device and copies them every N steps.
 * Each mode is timed with the host clock from a synchronized start to its
 * last read, warm-up first, modes alternating, median of the samples. The
 * GPU's own time per step: all steps' launches queued behind the harness's
 * hold, events around them. The first step's loss and gradients are checked
 * against lab/'s CPU step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
#include "loss.cuh"
extern "C" {
#include "train_step.h"
}

#define SAMPLES 5
#define WARP KERN_WARP
#define LAUNCHES 6 /* per step: sgemm, softmax-CE, mean loss, sgemm, bias grad, SGD */

/* One warp per row: adds the bias, then loss_i = logsumexp(z) − z[y] and
 * dlogits = (softmax − onehot) / batch, written over the logits. */
static __global__ void softmax_ce_kernel(float *z, const float *bias, const int *y, float *row_loss, int batch,
                                         int classes) {
  int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
  if (row >= batch) return;
  float *zr = z + (size_t)row * classes;
  float mx = -INFINITY;
  for (int j = lane; j < classes; j += WARP) {
    zr[j] += bias[j];
    mx = fmaxf(mx, zr[j]);
  }
  __syncwarp(); /* lane 0 reads zr[label] below, which another lane may have written */
  mx = kern_warp_max(mx);
  float sum = 0;
  for (int j = lane; j < classes; j += WARP) sum += expf(zr[j] - mx);
  sum = kern_warp_sum(sum);
  int label = y[row];
  if (lane == 0) row_loss[row] = logf(sum) + mx - zr[label];
  __syncwarp();
  for (int j = lane; j < classes; j += WARP) zr[j] = (expf(zr[j] - mx) / sum - (j == label ? 1.0f : 0.0f)) / batch;
}

static __global__ void sgd_kernel(float *w, const float *dw, int nw, float *b, const float *db, int nb, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nw) w[i] -= lr * dw[i];
  else if (i - nw < nb) b[i - nw] -= lr * db[i - nw];
}

typedef struct net {
  int batch, features, classes;
  float lr;
  const float *x;
  const int *y;
  float *w, *b, *z, *row_loss, *dw, *db, *history;
  cublasHandle_t blas;
  cudaStream_t s;
} net;

/* Launch `part` (0..LAUNCHES-1) of step `step`, on the stream n->s:
 * forward and backward are parts 0–4, the SGD update part 5. Row-major
 * tensors through column-major cuBLAS: zᵀ[C×B] = W·xᵀ, dWᵀ[F×C] = xᵀ·dz. */
static int launch_part(const net *n, int step, int part, lab_error *err) {
  const float one = 1.0f, zero = 0.0f;
  const int B = n->batch, F = n->features, C = n->classes;
  switch (part) {
    case 0: TRY_BLAS(cublasSgemm(n->blas, CUBLAS_OP_T, CUBLAS_OP_N, C, B, F, &one, n->w, F, n->x, F, &zero, n->z, C)); break;
    case 1: softmax_ce_kernel<<<(B + 7) / 8, 8 * WARP, 0, n->s>>>(n->z, n->b, n->y, n->row_loss, B, C); TRY_LAUNCH(); break;
    case 2: kern_mean_loss_kernel<<<1, 256, 0, n->s>>>(n->row_loss, B, n->history, step); TRY_LAUNCH(); break;
    case 3: TRY_BLAS(cublasSgemm(n->blas, CUBLAS_OP_N, CUBLAS_OP_T, F, C, B, &one, n->x, F, n->z, C, &zero, n->dw, F)); break;
    case 4: kern_bias_grad_kernel<<<(C + 7) / 8, 8 * WARP, 0, n->s>>>(n->z, n->db, B, C); TRY_LAUNCH(); break;
    case 5: sgd_kernel<<<(C * F + C + 255) / 256, 256, 0, n->s>>>(n->w, n->dw, C * F, n->b, n->db, C, n->lr); TRY_LAUNCH(); break;
    default: break;
  }
  return 0;
cleanup:
  return -1;
}

/* Forward and backward of step `step`; with update, the SGD step too. */
static int launch_step(const net *n, int step, int update, lab_error *err) {
  for (int part = 0; part < (update ? LAUNCHES : LAUNCHES - 1); part++)
    if (launch_part(n, step, part, err)) return -1;
  return 0;
}

/* kern_bench's op i: launch i of the back-to-back steps. */
static int one_launch(void *ctx, int i, cudaStream_t s, lab_error *err) {
  (void)s;
  return launch_part((const net *)ctx, i / LAUNCHES, i % LAUNCHES, err);
}

/* One timed run of `steps` steps reading the loss every `every` steps into
 * host_loss; cum[s] gets the host time (ms) after step s. */
static int run_mode(const net *n, const float *w0, const float *b0, int steps, int every, float *host_loss,
                    float *cum, double *ms, int *syncs, lab_error *err) {
  double t0;
  *syncs = 0;
  TRY(cudaMemcpyAsync(n->w, w0, (size_t)n->classes * n->features * sizeof(float), cudaMemcpyDeviceToDevice, n->s));
  TRY(cudaMemcpyAsync(n->b, b0, (size_t)n->classes * sizeof(float), cudaMemcpyDeviceToDevice, n->s));
  TRY(cudaStreamSynchronize(n->s));
  t0 = kern_now_us();
  for (int s = 0; s < steps; s++) {
    if (launch_step(n, s, 1, err)) return -1;
    if ((s + 1) % every == 0 || s == steps - 1) {
      int first = s / every * every;
      /* a pageable copy waits for the step, as .item() does */
      TRY(cudaMemcpyAsync(host_loss + first, n->history + first, (size_t)(s + 1 - first) * sizeof(float),
                          cudaMemcpyDeviceToHost, n->s));
      TRY(cudaStreamSynchronize(n->s));
      (*syncs)++;
    }
    cum[s] = (float)((kern_now_us() - t0) / 1e3);
  }
  *ms = (kern_now_us() - t0) / 1e3;
  return 0;
cleanup:
  return -1;
}

KERN_ENTRY(train_step) {
  const lab_params_train_step tp = lab_params_train_step_of(p);
  const int B = (int)tp.batch, F = (int)tp.features,
            C = (int)tp.classes, steps = (int)tp.steps,
            every = (int)tp.read_every;
  net n;
  memset(&n, 0, sizeof n);
  n.batch = B, n.features = F, n.classes = C, n.lr = (float)tp.lr;
  lab_train_measure *m = (lab_train_measure *)calloc(1, sizeof *m);
  float *hx = (float *)malloc((size_t)B * F * sizeof(float)), *hw = (float *)malloc((size_t)C * F * sizeof(float)),
        *hb = (float *)malloc((size_t)C * sizeof(float)), *hdw = (float *)malloc((size_t)C * F * sizeof(float)),
        *hdb = (float *)malloc((size_t)C * sizeof(float)), *loss_a = (float *)malloc(steps * sizeof(float)),
        *cum = (float *)malloc(2u * SAMPLES * steps * sizeof(float));
  int *hy = (int *)malloc((size_t)B * sizeof(int));
  double *rdw = (double *)malloc((size_t)C * F * sizeof(double)), *rdb = (double *)malloc((size_t)C * sizeof(double)),
         *rz = (double *)malloc((size_t)C * sizeof(double));
  float *dx = NULL, *dw0 = NULL, *db0 = NULL;
  int *dy = NULL;
  cudaDeviceProp prop;
  kern_bench bench = {NULL, {NULL, NULL}, {NULL, 0}};
  lab_summary sg;
  double ta[SAMPLES], tb[SAMPLES], ms = 0, ref_loss = 0;
  float first_loss = 0;
  lab_summary sa, sb;
  int rc = -1;
  *out = NULL;
  if (!m || !hx || !hw || !hb || !hdw || !hdb || !loss_a || !cum || !hy || !rdw || !rdb || !rz) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto cleanup;
  }
  lab_train_data(B, F, C, LAB_TRAIN_SEED, hx, hy);
  lab_train_init(F, C, LAB_TRAIN_SEED + 1, hw, hb);

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaMalloc(&dx, (size_t)B * F * sizeof(float)));
  TRY(cudaMalloc(&dy, (size_t)B * sizeof(int)));
  TRY(cudaMalloc(&dw0, (size_t)C * F * sizeof(float)));
  TRY(cudaMalloc(&db0, (size_t)C * sizeof(float)));
  TRY(cudaMalloc(&n.w, (size_t)C * F * sizeof(float)));
  TRY(cudaMalloc(&n.b, (size_t)C * sizeof(float)));
  TRY(cudaMalloc(&n.z, (size_t)B * C * sizeof(float)));
  TRY(cudaMalloc(&n.row_loss, (size_t)B * sizeof(float)));
  TRY(cudaMalloc(&n.dw, (size_t)C * F * sizeof(float)));
  TRY(cudaMalloc(&n.db, (size_t)C * sizeof(float)));
  TRY(cudaMalloc(&n.history, (size_t)steps * sizeof(float)));
  TRY(cudaMemcpy(dx, hx, (size_t)B * F * sizeof(float), cudaMemcpyHostToDevice));
  TRY(cudaMemcpy(dy, hy, (size_t)B * sizeof(int), cudaMemcpyHostToDevice));
  TRY(cudaMemcpy(dw0, hw, (size_t)C * F * sizeof(float), cudaMemcpyHostToDevice));
  TRY(cudaMemcpy(db0, hb, (size_t)C * sizeof(float), cudaMemcpyHostToDevice));
  n.x = dx, n.y = dy;
  TRY(cudaStreamCreateWithFlags(&n.s, cudaStreamNonBlocking));
  TRY_BLAS(kern_blas_create(&n.blas, n.s));
  TRY(kern_bench_create(&bench, n.s));

  /* Validation: step 0 without its update, against the CPU step in double. */
  /* Uploads on the legacy stream are not ordered with n.s: wait for them. */
  TRY(cudaDeviceSynchronize());
  TRY(cudaMemcpyAsync(n.w, dw0, (size_t)C * F * sizeof(float), cudaMemcpyDeviceToDevice, n.s));
  TRY(cudaMemcpyAsync(n.b, db0, (size_t)C * sizeof(float), cudaMemcpyDeviceToDevice, n.s));
  if (launch_step(&n, 0, 0, err)) goto cleanup;
  TRY(cudaStreamSynchronize(n.s));
  TRY(cudaMemcpy(&first_loss, n.history, sizeof(float), cudaMemcpyDeviceToHost));
  TRY(cudaMemcpy(hdw, n.dw, (size_t)C * F * sizeof(float), cudaMemcpyDeviceToHost));
  TRY(cudaMemcpy(hdb, n.db, (size_t)C * sizeof(float), cudaMemcpyDeviceToHost));
  ref_loss = lab_train_cpu_step(hx, hy, hw, hb, B, F, C, 0, rdw, rdb, rz);
  m->max_abs_err = fabs(first_loss - ref_loss);
  for (int i = 0; i < C * F; i++) m->max_abs_err = fmax(m->max_abs_err, fabs(hdw[i] - rdw[i]));
  for (int j = 0; j < C; j++) m->max_abs_err = fmax(m->max_abs_err, fabs(hdb[j] - rdb[j]));
  m->validated = m->max_abs_err <= 1e-4;

  /* The GPU's own time per step: the steps' launches back to back, held
   * until queued (so the GPU never waits for the host), no reads; one
   * warm-up batch, SAMPLES batches, median. The same quantity the
   * simulator reports: the kernels' times summed. */
  TRY(cudaMemcpyAsync(n.w, dw0, (size_t)C * F * sizeof(float), cudaMemcpyDeviceToDevice, n.s));
  if (kern_bench_samples(&bench, 1, SAMPLES, steps * LAUNCHES, 1, one_launch, &n, NULL, &sg, err)) goto cleanup;
  m->gpu_step_us = sg.median * LAUNCHES * 1e3;

  /* Warm-up of each mode, then SAMPLES alternating runs of both. */
  for (int r = -1; r < SAMPLES; r++) {
    float *ca = cum + (size_t)(2 * (r < 0 ? 0 : r)) * steps, *cb = ca + steps;
    if (run_mode(&n, dw0, db0, steps, 1, loss_a, ca, &ms, &m->syncs_every_step, err)) goto cleanup;
    if (r >= 0) ta[r] = ms;
    if (run_mode(&n, dw0, db0, steps, every, m->loss, cb, &ms, &m->syncs_every_n, err)) goto cleanup;
    if (r >= 0) tb[r] = ms;
  }
  lab_summarize(ta, SAMPLES, &sa);
  lab_summarize(tb, SAMPLES, &sb);
  m->steps = steps;
  m->read_every = every;
  m->batch_used = B;
  m->samples = SAMPLES;
  m->warmup = 1;
  m->every_step_ms = sa.median;
  m->every_n_ms = sb.median;
  m->every_step_iqr_pct = sa.iqr_pct;
  m->every_n_iqr_pct = sb.iqr_pct;
  /* The curves of the median runs (SAMPLES is odd: the median is a run). */
  memcpy(m->cum_every_step_ms, cum + (size_t)(2 * lab_median_index(ta, SAMPLES)) * steps, steps * sizeof(float));
  memcpy(m->cum_every_n_ms, cum + (size_t)(2 * lab_median_index(tb, SAMPLES) + 1) * steps, steps * sizeof(float));
  /* Both modes ran the same deterministic kernels: the curves must agree. */
  for (int s = 0; s < steps; s++) m->max_abs_err = fmax(m->max_abs_err, fabs((double)loss_a[s] - m->loss[s]));
  m->validated = m->validated && m->max_abs_err <= 1e-4;
  TRY(cudaMemcpy(hw, n.w, (size_t)C * F * sizeof(float), cudaMemcpyDeviceToHost));
  TRY(cudaMemcpy(hb, n.b, (size_t)C * sizeof(float), cudaMemcpyDeviceToHost));
  m->final_accuracy = lab_train_accuracy(hx, hy, hw, hb, B, F, C);
  *out = lab_train_step_envelope(p, m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);

cleanup:
  if (n.blas) cublasDestroy(n.blas);
  kern_bench_destroy(&bench);
  if (n.s) cudaStreamDestroy(n.s);
  cudaFree(dx), cudaFree(dy), cudaFree(dw0), cudaFree(db0);
  cudaFree(n.w), cudaFree(n.b), cudaFree(n.z), cudaFree(n.row_loss), cudaFree(n.dw), cudaFree(n.db);
  cudaFree(n.history);
  free(m), free(hx), free(hw), free(hb), free(hdw), free(hdb), free(loss_a), free(cum), free(hy);
  free(rdw), free(rdb), free(rz);
  return rc;
}
