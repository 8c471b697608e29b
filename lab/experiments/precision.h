/* `precision`: FP32, TF32, BF16 and FP16 matrix products (throughput by
 * size, and the error of each against an FP64 reference on sampled output
 * entries), plus a small mixed-precision training run (FP32 against BF16
 * and FP16, with or without loss scaling) computed for real in portable C. */
#ifndef LAB_PRECISION_H
#define LAB_PRECISION_H

#include "params.h"
#include "profiles.h"
#include "framework.h"
#include "descriptor.h"
#include "precision_train.h"

typedef enum lab_prec { LAB_PREC_FP32, LAB_PREC_TF32, LAB_PREC_BF16, LAB_PREC_FP16, LAB_PREC_COUNT } lab_prec;
/* "fp32", "tf32", "bf16", "fp16": metric prefixes and series ids. */
extern const char *const lab_prec_ids[LAB_PREC_COUNT];

#define LAB_PREC_MAX_SIZES 8     /* 128, 256, …, 8192, plus max_size itself */
#define LAB_PREC_MIN_SIZE 128
#define LAB_PREC_MAX_SAMPLES 30
#define LAB_PREC_WARMUP 2
#define LAB_PREC_CHECK_SIDE 16   /* errors on a 16 × 16 grid of output entries */
#define LAB_PREC_BATCH_FLOP 2e10 /* one timed batch does at least this much work… */
#define LAB_PREC_MAX_REPEATS 200 /* …with at most this many matmuls */
/* Bounds a real run must meet (relative to the RMS of the reference
 * entries; normal inputs, K = N); the GPU check asserts them too. */
#define LAB_PREC_FP32_BOUND 1e-4
#define LAB_PREC_TF32_BOUND 5e-3
#define LAB_PREC_BF16_BOUND 2e-2
#define LAB_PREC_FP16_BOUND 5e-3 /* 10 mantissa bits, as TF32 */

typedef struct lab_precision_measure {
  int n_sizes, samples, warmup;
  int size[LAB_PREC_MAX_SIZES];
  int repeats[LAB_PREC_MAX_SIZES]; /* matmuls per timed batch */
  /* 1: ran as asked (TF32, BF16, FP16: on tensor cores); 0: the device has
   * no tensor cores for it and cuBLAS fell back to fp32 arithmetic (TF32)
   * or slower non-tensor kernels (BF16, FP16); -1: not supported at all, or
   * not measured (no result). FP32 never uses tensor cores: 1 = it ran. */
  int native[LAB_PREC_COUNT];
  double ms[LAB_PREC_COUNT][LAB_PREC_MAX_SIZES];     /* median time of one matmul */
  double iqr_pct[LAB_PREC_COUNT][LAB_PREC_MAX_SIZES];
  double tflops[LAB_PREC_COUNT][LAB_PREC_MAX_SIZES];
  /* Against the FP64 reference, relative to the RMS of the reference entries. */
  double max_rel[LAB_PREC_COUNT][LAB_PREC_MAX_SIZES], mean_rel[LAB_PREC_COUNT][LAB_PREC_MAX_SIZES];
  double max_abs[LAB_PREC_COUNT][LAB_PREC_MAX_SIZES];
  lab_prec_train train;
  int validated; /* -1: not checked (simulated) */
  double max_abs_err;
} lab_precision_measure;

/* The sizes a run covers: 128, 256, … up to max_size (max_size included). */
int lab_precision_sizes(int max_size, int *sizes);
/* Matmuls per timed batch at side n (enough work to time, see above). */
int lab_precision_repeats(int n);

/* Reference and emulated errors on an r × c grid of entries of C = A·B:
 * rows holds the r sampled rows of A, cols the c sampled columns of B (each
 * k values). ref gets the FP64 dot products. */
void lab_precision_reference(const float *rows, const float *cols, int r, int c, int k, double *ref);
/* What precision p computes for the grid, emulated: inputs rounded to the
 * format (unless fallback: TF32 without tensor cores is plain fp32),
 * products and sums in fp32 (FP16 and BF16 with FP32 accumulation). */
void lab_precision_emulate(lab_prec p, int fallback, const float *rows, const float *cols, int r, int c, int k,
                           float *out);
/* Max and mean |out - ref| / rms(ref) over n entries, and max |out - ref|. */
void lab_precision_errors(const double *ref, const float *out, int n, double *max_rel, double *mean_rel,
                          double *max_abs);

/* Bound of precision p's max relative error (LAB_PREC_*_BOUND). */
double lab_precision_bound(lab_prec p);
cJSON *lab_precision_envelope(const lab_params *p, const lab_precision_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof);

extern const lab_experiment lab_exp_precision;

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_precision from this list. */
#define LAB_PARAMS_precision(X) \
  X(max_size, INT, 256, 8192, 4096, "elements", \
    "Largest side N of the square matmuls; sizes double from 128 up to it.", NULL) \
  X(samples, INT, 3, LAB_PREC_MAX_SAMPLES, 5, NULL, \
    "Timed batches per size and precision after two warm-ups; medians are reported.", NULL) \
  X(train_steps, INT, 10, LAB_PREC_TRAIN_MAX_STEPS, 200, "steps", \
    "SGD steps of the small training run in each precision.", NULL) \
  X(loss_scale, BOOL, 0, 1, 0, NULL, \
    "Use dynamic loss scaling (as torch.amp.GradScaler) in the BF16 and FP16 training runs.", NULL) \
  LAB_FRAMEWORK_PARAM(X)

LAB_PARAMS_STRUCT(precision)

#endif
