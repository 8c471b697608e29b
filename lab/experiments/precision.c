/* `precision`: parameters, the error arithmetic (FP64 reference and each
 * format's rounding emulated), the envelope and the simulator. The model:
 * FP32 runs on the SIMT cores at fp32_tflops × lab_gemm_efficiency; TF32,
 * FP16 and BF16 on the tensor cores at their peak × lab_tc_efficiency
 * (tiles and waves), or, where the GPU has no tensor cores for the type,
 * TF32 as plain FP32 and BF16 at bf16_fallback × FP32's speed; never
 * faster than its memory traffic allows. In the PyTorch view each matmul
 * also waits for the host to issue it (launch_us + torch_op_us). The errors
 * and the training run are real math. */
#include "precision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "units.h"
#include "cjson_compat.h"
#include "envelope.h"
#include "gpu_model.h"
#include "platform.h"
#include "rng.h"
#include "sim_measure.h"
#include "stats.h"
#include "framework.h"

const char *const lab_prec_ids[LAB_PREC_COUNT] = {"fp32", "tf32", "bf16", "fp16"};
static const char *const prec_names[LAB_PREC_COUNT] = {"FP32", "TF32", "BF16", "FP16"};
static const char *const mode_names[LAB_TRAIN_MODES] = {"FP32", "BF16 (mixed)", "FP16 (mixed)"};

LAB_PARAMS_DEFINE(precision)

int lab_precision_sizes(int max_size, int *sizes) {
  int n = 0;
  for (int s = LAB_PREC_MIN_SIZE; s <= max_size && n < LAB_PREC_MAX_SIZES - 1; s *= 2) sizes[n++] = s;
  if (n == 0 || sizes[n - 1] != max_size) sizes[n++] = max_size;
  return n;
}

int lab_precision_repeats(int n) {
  double r = ceil(LAB_PREC_BATCH_FLOP / (2.0 * n * n * (double)n));
  return r < 1 ? 1 : r > LAB_PREC_MAX_REPEATS ? LAB_PREC_MAX_REPEATS : (int)r;
}

double lab_precision_bound(lab_prec p) {
  return p == LAB_PREC_FP32 ? LAB_PREC_FP32_BOUND
       : p == LAB_PREC_TF32 ? LAB_PREC_TF32_BOUND
       : p == LAB_PREC_FP16 ? LAB_PREC_FP16_BOUND
                            : LAB_PREC_BF16_BOUND;
}

void lab_precision_reference(const float *rows, const float *cols, int r, int c, int k, double *ref) {
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) {
      double acc = 0;
      for (int t = 0; t < k; t++) acc += (double)rows[(size_t)i * k + t] * cols[(size_t)j * k + t];
      ref[i * c + j] = acc;
    }
}

void lab_precision_emulate(lab_prec p, int fallback, const float *rows, const float *cols, int r, int c, int k,
                           float *out) {
  float (*rnd)(float) = p == LAB_PREC_BF16                 ? lab_round_bf16
                       : p == LAB_PREC_FP16                 ? lab_round_fp16
                       : p == LAB_PREC_TF32 && !fallback    ? lab_round_tf32
                                                            : NULL;
  float *a = malloc((size_t)k * sizeof *a), *b = malloc((size_t)c * (size_t)k * sizeof *b);
  if (!a || !b) {
    for (int i = 0; i < r * c; i++) out[i] = NAN; /* shows as an error, never as a good result */
    free(a);
    free(b);
    return;
  }
  for (size_t t = 0; t < (size_t)c * k; t++) b[t] = rnd ? rnd(cols[t]) : cols[t];
  for (int i = 0; i < r; i++) {
    for (int t = 0; t < k; t++) a[t] = rnd ? rnd(rows[(size_t)i * k + t]) : rows[(size_t)i * k + t];
    for (int j = 0; j < c; j++) {
      /* Products of rounded inputs are exact in fp32 (bf16, tf32, fp16), sums are fp32:
       * four partial sums, as a tiled kernel keeps several accumulators. */
      float acc[4] = {0, 0, 0, 0};
      const float *bj = b + (size_t)j * k;
      for (int t = 0; t < k; t++) acc[t & 3] += a[t] * bj[t];
      out[i * c + j] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
  }
  free(a);
  free(b);
}

void lab_precision_errors(const double *ref, const float *out, int n, double *max_rel, double *mean_rel,
                          double *max_abs) {
  double ss = 0, mx = 0, sum = 0;
  for (int i = 0; i < n; i++) ss += ref[i] * ref[i];
  double rms = n > 0 ? sqrt(ss / n) : 0;
  for (int i = 0; i < n; i++) {
    double d = fabs((double)out[i] - ref[i]);
    if (!(d <= mx)) mx = d; /* NaN sticks */
    sum += d;
  }
  *max_abs = mx;
  *max_rel = rms > 0 ? mx / rms : mx;
  *mean_rel = rms > 0 && n > 0 ? sum / n / rms : sum;
}

/* ---- envelope ---------------------------------------------------------- */

/* Precision p has results. Every GPU gpulab runs on (compute capability
 * 7.0 and up) has FP16 tensor cores, so a GPU run that leaves FP16 at 0
 * did not measure it (an older GPU side) and it is left out. */
static int present(const lab_precision_measure *m, int p, bool simulated) {
  if (m->native[p] < 0) return 0;
  return !(p == LAB_PREC_FP16 && m->native[p] == 0 && !simulated);
}

/* Precision p ran on matrix units (NVIDIA's tensor cores, AMD's WMMA): as
 * the GPU run reports it, or natively on a profile whose platform has them
 * (an Apple M1's GPU runs FP16 at the FP32 rate, on the same cores). */
static int on_matrix_units(const lab_precision_measure *m, int p, const lab_profile *prof) {
  if (p == LAB_PREC_FP32 || m->native[p] <= 0) return 0;
  return !prof || !(lab_platform_lacks(prof->platform) & LAB_NEED_MATRIX_UNITS);
}

static void prec_metrics(cJSON *env, const lab_precision_measure *m, int top, const lab_profile *prof) {
  bool simulated = prof != NULL;
  lab_env_metric(env, "size_max", m->size[top]);
  for (int p = 0; p < LAB_PREC_COUNT; p++) {
    if (!present(m, p, simulated)) continue;
    char key[48];
    const char *id = lab_prec_ids[p];
#define METRIC(fmt, v)                            \
  do {                                            \
    snprintf(key, sizeof key, fmt, id);           \
    lab_env_metric(env, key, v);                  \
  } while (0)
    METRIC("%s_tflops", m->tflops[p][top]);
    METRIC("%s_ms", m->ms[p][top]);
    METRIC("%s_max_rel_err", m->max_rel[p][top]);
    METRIC("%s_mean_rel_err", m->mean_rel[p][top]);
    METRIC("%s_tensor_cores", on_matrix_units(m, p, prof)); /* FP32 runs on the SIMT cores */
    if (p != LAB_PREC_FP32 && m->ms[p][top] > 0) METRIC("%s_speedup", m->ms[LAB_PREC_FP32][top] / m->ms[p][top]);
#undef METRIC
  }
  const lab_prec_train *t = &m->train;
  for (int k = 0; k < LAB_TRAIN_MODES; k++) {
    char key[48];
    snprintf(key, sizeof key, "train_%s_final_loss", lab_train_mode_ids[k]);
    lab_env_metric(env, key, t->loss[k][t->steps - 1]);
    snprintf(key, sizeof key, "train_%s_flushed_pct", lab_train_mode_ids[k]);
    lab_env_metric(env, key, t->counted[k] > 0 ? 100 * t->flushed[k] / t->counted[k] : 0);
    snprintf(key, sizeof key, "train_%s_accuracy", lab_train_mode_ids[k]);
    lab_env_metric(env, key, t->accuracy[k]);
    if (k == LAB_TRAIN_FP32) continue;
    snprintf(key, sizeof key, "train_%s_skipped_steps", lab_train_mode_ids[k]);
    lab_env_metric(env, key, t->skipped[k]);
    snprintf(key, sizeof key, "train_%s_final_scale", lab_train_mode_ids[k]);
    lab_env_metric(env, key, t->final_scale[k]);
  }
}

static void prec_series(cJSON *env, const lab_precision_measure *m, bool simulated) {
  static const char *const labels[LAB_PREC_COUNT] = {"FP32, no tensor cores", "TF32 tensor cores",
                                                     "BF16 inputs, FP32 accumulation",
                                                     "FP16 inputs, FP32 accumulation"};
  char id[32];
  for (int p = 0; p < LAB_PREC_COUNT; p++) {
    if (!present(m, p, simulated)) continue;
    snprintf(id, sizeof id, "tflops_%s", lab_prec_ids[p]);
    cJSON *pts = lab_env_series(env, id, labels[p], "N", "TFLOPS");
    for (int i = 0; i < m->n_sizes; i++) lab_series_point(pts, m->size[i], m->tflops[p][i]);
  }
  for (int p = 0; p < LAB_PREC_COUNT; p++) {
    if (!present(m, p, simulated)) continue;
    snprintf(id, sizeof id, "err_%s", lab_prec_ids[p]);
    cJSON *pts = lab_env_series(env, id, prec_names[p], "N", "max relative error");
    for (int i = 0; i < m->n_sizes; i++) lab_series_point(pts, m->size[i], m->max_rel[p][i]);
    /* On a GPU the products are the GPU's; simulated, they are rounded for real on this CPU. */
    if (simulated) lab_env_series_source(env, id, "computed");
  }
  const lab_prec_train *t = &m->train;
  for (int k = 0; k < LAB_TRAIN_MODES; k++) {
    snprintf(id, sizeof id, "loss_%s", lab_train_mode_ids[k]);
    cJSON *pts = lab_env_series(env, id, mode_names[k], "step", "nats");
    for (int s = 0; s < t->steps; s++) lab_series_point(pts, s, t->loss[k][s]);
    lab_env_series_source(env, id, "computed"); /* the training run is the portable C one everywhere */
  }
  for (int k = LAB_TRAIN_BF16; k < LAB_TRAIN_MODES; k++) {
    snprintf(id, sizeof id, "flushed_%s", lab_train_mode_ids[k]);
    cJSON *pts = lab_env_series(env, id, mode_names[k], "step", "% of gradients flushed to zero");
    for (int s = 0; s < t->steps; s++) lab_series_point(pts, s, t->flushed_pct_step[k][s]);
    lab_env_series_source(env, id, "computed");
  }
}

/* "TF32 %.1f (%.2f× FP32)" for every present low precision, joined. */
static void speeds_text(const lab_precision_measure *m, int top, bool simulated, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int p = LAB_PREC_TF32; p < LAB_PREC_COUNT && used + 1 < n; p++) {
    if (!present(m, p, simulated)) continue;
    int w = snprintf(buf + used, n - used, ", %s %.1f (%.2f× FP32)", prec_names[p], m->tflops[p][top],
                     m->tflops[0][top] > 0 ? m->tflops[p][top] / m->tflops[0][top] : 0);
    if (w < 0 || (size_t)w >= n - used) break;
    used += (size_t)w;
  }
}

static void prec_findings(cJSON *env, const lab_precision_measure *m, int top, const lab_profile *prof) {
  bool sim = prof != NULL;
  int n = m->size[top];
  char speeds[256];
  speeds_text(m, top, sim, speeds, sizeof speeds);
  lab_env_finding(env, "At N = %d, FP32 reached %.1f TFLOPS%s%s.", n, m->tflops[0][top], speeds,
                  m->native[LAB_PREC_BF16] < 0 ? "; cuBLAS refused BF16 here" : "");
  if (m->native[LAB_PREC_TF32] == 0 && prof && prof->platform != LAB_PLATFORM_CUDA)
    lab_env_finding(env, "This GPU has no TF32: PyTorch's allow_tf32 switch changes nothing on it, so the TF32 line "
                    "is plain FP32, at FP32 speed with FP32's error.");
  else if (m->native[LAB_PREC_TF32] == 0)
    lab_env_finding(env, "This GPU has no TF32 tensor cores (they arrived with Ampere, compute capability 8.0): "
                    "cuBLAS ran the TF32 request as plain FP32, so it ran at FP32 speed with FP32's error.");
  if (m->native[LAB_PREC_BF16] == 0)
    lab_env_finding(env, "This GPU has no BF16 tensor cores: the BF16 matmul ran on slower non-tensor kernels (%.1f "
                    "TFLOPS, %.2f× FP32), keeping BF16's rounding error without its speed.",
                    m->tflops[LAB_PREC_BF16][top],
                    m->tflops[0][top] > 0 ? m->tflops[LAB_PREC_BF16][top] / m->tflops[0][top] : 0);
  if (present(m, LAB_PREC_FP16, sim) && on_matrix_units(m, LAB_PREC_FP16, prof) && m->native[LAB_PREC_BF16] == 0)
    lab_env_finding(env, "Here FP16 is the fast low precision: %.1f TFLOPS on the tensor cores, %.1f× FP32. Train "
                    "with torch.autocast(dtype=torch.float16) and a GradScaler, not BF16.",
                    m->tflops[LAB_PREC_FP16][top],
                    m->tflops[0][top] > 0 ? m->tflops[LAB_PREC_FP16][top] / m->tflops[0][top] : 0);
  int fast = present(m, LAB_PREC_BF16, sim) && on_matrix_units(m, LAB_PREC_BF16, prof) ? LAB_PREC_BF16
           : present(m, LAB_PREC_FP16, sim) && on_matrix_units(m, LAB_PREC_FP16, prof) ? LAB_PREC_FP16
                                                                                     : -1;
  if (m->n_sizes > 1 && fast >= 0)
    lab_env_finding(env, "At N = %d %s was only %.2f× FP32 (%.2f against %.2f TFLOPS): a small matmul keeps few "
                    "tensor cores busy and waits on memory, so the faster math barely shows.",
                    m->size[0], prec_names[fast], m->tflops[fast][0] / m->tflops[0][0], m->tflops[fast][0],
                    m->tflops[0][0]);
  lab_env_finding(env, "Against an FP64 reference on %d sampled entries at N = %d, the largest error relative to a "
                  "typical entry was %s for FP32, %s for TF32, %s for BF16 and %s for FP16 (means %s, "
                  "%s, %s, %s): TF32 and FP16 keep 10 mantissa bits and BF16 7, against FP32's 23.",
                  LAB_PREC_CHECK_SIDE * LAB_PREC_CHECK_SIDE, n, LAB_PLAIN(m->max_rel[0][top]),
                  LAB_PLAIN(m->max_rel[1][top]), LAB_PLAIN(present(m, LAB_PREC_BF16, sim) ? m->max_rel[2][top] : NAN),
                  LAB_PLAIN(present(m, LAB_PREC_FP16, sim) ? m->max_rel[3][top] : NAN), LAB_PLAIN(m->mean_rel[0][top]),
                  LAB_PLAIN(m->mean_rel[1][top]), LAB_PLAIN(present(m, LAB_PREC_BF16, sim) ? m->mean_rel[2][top] : NAN),
                  LAB_PLAIN(present(m, LAB_PREC_FP16, sim) ? m->mean_rel[3][top] : NAN));
  const lab_prec_train *t = &m->train;
  int last = t->steps - 1;
  double fl[LAB_TRAIN_MODES];
  for (int k = 0; k < LAB_TRAIN_MODES; k++) fl[k] = t->counted[k] > 0 ? 100 * t->flushed[k] / t->counted[k] : 0;
  lab_env_finding(env, "Training %d steps, the loss ended at %.3g in FP32, %.3g in BF16 and %.3g in FP16 (both mixed: "
                  "FP32 master weights, low-precision matmuls and gradients).",
                  t->steps, t->loss[0][last], t->loss[1][last], t->loss[2][last]);
  if (!t->loss_scaling)
    lab_env_finding(env, "Without loss scaling, %.2f%% of the FP16 gradient values were flushed to zero (FP16 cannot "
                    "hold magnitudes below 0.00000006), against %.2f%% in BF16, whose exponent range is FP32's. Turn "
                    "loss_scale on: the gradients are scaled up before FP16 holds them, and far fewer are lost.",
                    fl[2], fl[1]);
  else
    lab_env_finding(env, "With dynamic loss scaling (gradients multiplied by %.0f, halved on overflow: %d FP16 step%s "
                    "skipped), %.2f%% of the FP16 gradient values were flushed to zero, and %.2f%% in BF16. Turn "
                    "loss_scale off to see how many FP16 loses without it.",
                    t->final_scale[2], t->skipped[2], t->skipped[2] == 1 ? "" : "s", fl[2], fl[1]);
  if (prof)
    lab_env_finding(env, "The speeds are a model of %s; the errors and the training run were computed for real on "
                    "this computer's CPU, rounding every stored value as each format would (%.0f ms).",
                    prof->label, t->cpu_ms);
}

cJSON *lab_precision_envelope(const lab_params *p, const lab_precision_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof) {
  const lab_params_precision tp = lab_params_precision_of(p);
  cJSON *env = lab_envelope_new("precision", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  bool simulated = strcmp(backend, "simulated") == 0;
  int top = m->n_sizes - 1;
  prec_metrics(env, m, top, simulated ? prof : NULL);
  prec_series(env, m, simulated);
  prec_findings(env, m, top, simulated ? prof : NULL);
  double iqr = 0;
  for (int q = 0; q < LAB_PREC_COUNT; q++)
    if (present(m, q, simulated) && m->iqr_pct[q][top] > iqr) iqr = m->iqr_pct[q][top];
  cJSON *d = lab_env_details(env);
  cJSON *sz = cJSON_AddArrayToObject(d, "repeats_per_batch");
  for (int i = 0; i < m->n_sizes; i++) cJSON_AddItemToArray(sz, cJSON_CreateNumber(m->repeats[i]));
  bool pytorch = lab_framework_report(env, tp.view, simulated ? prof : NULL);
  cJSON *tr = cJSON_AddObjectToObject(d, "training");
  cJSON_AddNumberToObject(tr, "batch", LAB_PREC_TRAIN_BATCH);
  cJSON_AddNumberToObject(tr, "features", LAB_PREC_TRAIN_FEATURES);
  cJSON_AddNumberToObject(tr, "classes", LAB_PREC_TRAIN_CLASSES);
  cJSON_AddNumberToObject(tr, "lr", LAB_PREC_TRAIN_LR);
  cJSON_AddNumberToObject(tr, "cpu_ms", m->train.cpu_ms);
  const char *how_err = " Errors: a 16 × 16 grid of output entries against FP64 dot products of the same inputs, "
                        "divided by the RMS of the reference entries. Training: softmax regression computed on the "
                        "CPU with each stored value rounded to the format.";
  char method[1100];
  if (simulated)
    snprintf(method, sizeof method, "Modelled (%s view): each matmul takes 2·N³ flop at the profile's peak for its "
                                    "precision × an efficiency for its size (output tiles spread over the SMs in "
                                    "waves; FP32 on the SIMT cores, TF32/BF16/FP16 on the tensor cores, or slower "
                                    "kernels where the GPU has none for the type), or its memory traffic at mem_bw "
                                    "if longer%s; ±2%% jitter per sample, drawn once for all sizes; times rounded "
                                    "to 0.5 µs, as a GPU run's events would read them. Errors emulated on the CPU by rounding "
                                    "the inputs to each format.%s",
             pytorch ? "PyTorch" : "raw CUDA",
             pytorch ? "; as a PyTorch loop sees it, a matmul also waits for the host to issue it (launch_us + "
                       "torch_op_us)"
                     : "",
             how_err);
  else
    snprintf(method, sizeof method, "Raw CUDA (the view parameter applies to the simulator only): cuBLAS "
                                    "cublasGemmEx on random normal N × N inputs; per size and precision two warm-up "
                                    "batches, then samples of one batch each (repeated matmuls, at least 2e10 flop) "
                                    "between CUDA events, behind a spin kernel so enqueue cost is not timed; "
                                    "medians.%s",
             how_err);
  lab_env_stats(env, m->samples, m->warmup,
                present(m, LAB_PREC_BF16, simulated) ? "bf16_ms" : "fp32_ms", iqr, method);
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* ---- simulator --------------------------------------------------------- */

/* GPU time (µs) of one matmul of precision p on the profile's model. */
static double model_us(const lab_profile *prof, lab_prec p, int n) {
  double nn = n, flop = 2 * nn * nn * nn, rate;
  double peak = p == LAB_PREC_TF32 ? prof->tf32_tflops
              : p == LAB_PREC_BF16 ? prof->bf16_tflops
              : p == LAB_PREC_FP16 ? prof->fp16_tflops
                                   : 0;
  int in_bytes = p == LAB_PREC_TF32 || p == LAB_PREC_FP32 ? 4 : 2;
  double simt = prof->fp32_tflops * 1e12 * lab_gemm_efficiency(prof, nn, nn, nn);
  if (peak > 0) { /* tensor cores; cuBLAS picks a SIMT kernel where that is faster (tiny matrices) */
    rate = peak * 1e12 * lab_tc_efficiency(prof, nn, nn, nn, in_bytes);
    if (simt > rate) rate = simt;
  } else { /* FP32, or a type without tensor cores: FP32-rate kernels (BF16 slower still) */
    rate = simt;
    if (p == LAB_PREC_BF16 || p == LAB_PREC_FP16) rate *= prof->bf16_fallback > 0 ? prof->bf16_fallback : 1;
  }
  double us = flop / rate * 1e6;
  double mem_us = nn * nn * (2.0 * in_bytes + 4) / (prof->mem_bw_gbps * 1e9) * 1e6;
  if (mem_us > us) us = mem_us;
  return us > prof->kernel_min_us ? us : prof->kernel_min_us;
}

/* Errors at side n on a grid of fresh random rows and columns. */
static void sim_errors(lab_precision_measure *m, int i, int n, int tf32_fallback) {
  enum { R = LAB_PREC_CHECK_SIDE, G = R * R };
  float *rows = malloc((size_t)R * n * sizeof *rows), *cols = malloc((size_t)R * n * sizeof *cols);
  double ref[G];
  float out[G];
  if (rows && cols) {
    lab_fill_normal(rows, (size_t)R * n, 0x5eed0u + (uint64_t)n);
    lab_fill_normal(cols, (size_t)R * n, 0x5eed1u + (uint64_t)n);
    lab_precision_reference(rows, cols, R, R, n, ref);
  }
  for (int p = 0; p < LAB_PREC_COUNT; p++) {
    if (rows && cols) lab_precision_emulate((lab_prec)p, p == LAB_PREC_TF32 && tf32_fallback, rows, cols, R, R, n, out);
    else for (int e = 0; e < G; e++) out[e] = NAN, ref[e] = 0;
    lab_precision_errors(ref, out, G, &m->max_rel[p][i], &m->mean_rel[p][i], &m->max_abs[p][i]);
  }
  free(rows);
  free(cols);
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  const lab_params_precision tp = lab_params_precision_of(p);
  lab_precision_measure *m = calloc(1, sizeof *m);
  if (!m) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  m->n_sizes = lab_precision_sizes((int)tp.max_size, m->size);
  m->samples = (int)tp.samples;
  m->warmup = LAB_PREC_WARMUP;
  m->native[LAB_PREC_FP32] = 1;
  m->native[LAB_PREC_TF32] = prof->tf32_tflops > 0;
  m->native[LAB_PREC_BF16] = prof->bf16_tflops > 0;
  m->native[LAB_PREC_FP16] = prof->fp16_tflops > 0;
  bool pytorch = lab_framework_pytorch(tp.view);
  double host_us = prof->launch_us + prof->torch_op_us; /* PyTorch issues one torch.mm per this */
  lab_rng r;
  lab_rng_seed(&r, 0x9ec0u ^ ((uint64_t)m->size[m->n_sizes - 1] << 8) ^ (uint64_t)m->samples);
  /* One jitter per sample, shared by every size and precision: a larger
   * matmul never comes out faster than a smaller one, nor a tensor-core
   * precision slower than the FP32 kernel cuBLAS would fall back to. */
  double jit[LAB_PREC_MAX_SAMPLES];
  for (int s = 0; s < m->samples; s++) jit[s] = lab_rng_jitter(&r, 2);
  for (int i = 0; i < m->n_sizes; i++) {
    int n = m->size[i];
    m->repeats[i] = lab_precision_repeats(n);
    for (int q = 0; q < LAB_PREC_COUNT; q++) {
      double ms[LAB_PREC_MAX_SAMPLES], us = model_us(prof, (lab_prec)q, n);
      if (pytorch && us < host_us) us = host_us;
      for (int s = 0; s < m->samples; s++) /* one batch of `repeats` matmuls between events, per matmul */
        ms[s] = lab_event_ms(us * jit[s] * m->repeats[i] / 1e3) / m->repeats[i];
      lab_summary sum;
      lab_summarize(ms, (size_t)m->samples, &sum);
      m->ms[q][i] = sum.median;
      m->iqr_pct[q][i] = sum.iqr_pct;
      m->tflops[q][i] = 2.0 * n * n * (double)n / (sum.median * 1e9);
    }
    sim_errors(m, i, n, !m->native[LAB_PREC_TF32]);
  }
  lab_precision_train((int)tp.train_steps, tp.loss_scale, &m->train);
  m->validated = -1;
  *out = lab_precision_envelope(p, m, "simulated", prof->device_name, prof);
  free(m);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_precision tp = lab_params_precision_of(p);
  double n = (double)tp.max_size;
  *param = "max_size"; /* A, B, C in fp32 plus A, B in bf16 and in fp16 at the largest size */
  return 20.0 * n * n;
}

/* CPU cost (lab_experiment_cpu_ms): the three-format training run
 * (~0.13 ms a step measured by bench/cpu_cost: 0.15 counted) and the
 * error check of each size (a few rows and columns of length n, ~2 µs per
 * unit of n: 2.5 counted), over the 1 ms floor. */
LAB_CPU_MS(precision);

LAB_CPU_MS(precision) {
  const lab_params_precision tp = lab_params_precision_of(p);
  int size[LAB_PREC_MAX_SIZES];
  int k = lab_precision_sizes((int)tp.max_size, size);
  double sum_n = 0, train = 0.15 * (double)tp.train_steps;
  for (int i = 0; i < k; i++) sum_n += size[i];
  *param = train > 2.5e-3 * sum_n ? "train_steps" : "max_size";
  return 1.0 + train + 2.5e-3 * sum_n;
}

const lab_experiment lab_exp_precision = {
    .name = "precision",
    .title = "FP32, TF32, BF16 and FP16 matmuls, and mixed-precision training",
    .summary = "How much faster tensor-core matmuls (TF32, BF16, FP16) are than FP32 on each GPU, what they cost in "
               "accuracy, and why FP16 training needs loss scaling while BF16 does not.",
    .lesson = "02-cuda-toolbox",
    .params = lab_params_precision_spec,
    .n_params = LAB_PARAMS_COUNT(precision),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
