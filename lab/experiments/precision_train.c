/* The precision experiment's training run: softmax regression trained with
 * SGD in FP32, and in BF16 and FP16 the way mixed precision does it (FP32
 * master weights; the matmul inputs, logits and gradients stored in the low
 * format; softmax in FP32), with optional dynamic loss scaling. Real
 * arithmetic with each stored value rounded as the format would round it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "clock.h"
#include "precision_train.h"
#include "rng.h"

#define B LAB_PREC_TRAIN_BATCH
#define F LAB_PREC_TRAIN_FEATURES
#define C LAB_PREC_TRAIN_CLASSES
/* Class centres this many noise widths apart: the classes separate, the
 * loss gets small, and so do the gradients (as late in real training). */
#define SEPARATION 8.0

const char *const lab_train_mode_ids[LAB_TRAIN_MODES] = {"fp32", "bf16", "fp16"};

static float keep(float x) { return x; }

typedef float (*rounder)(float);

static rounder mode_round(lab_train_mode m) {
  return m == LAB_TRAIN_BF16 ? lab_round_bf16 : m == LAB_TRAIN_FP16 ? lab_round_fp16 : keep;
}

static void make_data(float *x, int *y) {
  lab_rng r;
  lab_rng_seed(&r, 0x9ec15u);
  double centre[C][F], scale = 1.0 / sqrt((double)F);
  for (int c = 0; c < C; c++)
    for (int k = 0; k < F; k++) centre[c][k] = SEPARATION * lab_rng_normal(&r);
  for (int i = 0; i < B; i++) {
    y[i] = i % C;
    for (int k = 0; k < F; k++) x[i * F + k] = (float)((centre[y[i]][k] + lab_rng_normal(&r)) * scale);
  }
}

/* Stores v in the format; counts it when a nonzero value became zero. */
static float store(rounder rnd, float v, double *flushed, double *counted) {
  float s = rnd(v);
  if (v != 0) {
    *counted += 1;
    if (s == 0) *flushed += 1;
  }
  return s;
}

/* The run's arrays, on the heap: some 27 KB would not belong on a CivetWeb
 * thread's or the browser's small stack. */
typedef struct scratch {
  float x[B * F];
  int y[B];
  float w[C * F], bias[C], wl[C * F], xl[B * F], dz[B * C], dw[C * F], db[C];
} scratch;

static void train_mode(lab_train_mode mode, int steps, int loss_scaling, scratch *sc, lab_prec_train *t) {
  rounder rnd = mode_round(mode);
  const float *x = sc->x;
  const int *y = sc->y;
  float *w = sc->w, *bias = sc->bias, *wl = sc->wl, *xl = sc->xl, *dz = sc->dz, *dw = sc->dw, *db = sc->db;
  double scale = loss_scaling && mode != LAB_TRAIN_FP32 ? LAB_PREC_SCALE_INIT : 1.0;
  int good = 0;
  lab_rng r;
  lab_rng_seed(&r, 0x1417u);
  for (int i = 0; i < C * F; i++) w[i] = (float)(0.01 * lab_rng_normal(&r));
  memset(bias, 0, sizeof sc->bias);
  for (int i = 0; i < B * F; i++) xl[i] = rnd(x[i]); /* the batch cast once, as autocast casts inputs */
  t->flushed[mode] = t->counted[mode] = 0;
  t->skipped[mode] = 0;
  for (int s = 0; s < steps; s++) {
    double loss = 0, fl = 0, cn = 0;
    for (int i = 0; i < C * F; i++) wl[i] = rnd(w[i]); /* the weights cast for this step's forward */
    for (int i = 0; i < B; i++) {
      float z[C], zmax = -INFINITY, sum = 0; /* softmax in fp32, as autocast runs it */
      for (int j = 0; j < C; j++) {
        float acc = 0; /* fp32 accumulation, as tensor cores do */
        for (int k = 0; k < F; k++) acc += xl[i * F + k] * wl[j * F + k];
        z[j] = rnd(acc + bias[j]); /* the matmul writes its output in the low format */
        if (z[j] > zmax) zmax = z[j];
      }
      float e[C];
      for (int j = 0; j < C; j++) sum += e[j] = expf(z[j] - zmax);
      loss += logf(sum) + zmax - z[y[i]];
      for (int j = 0; j < C; j++) {
        double g = ((double)e[j] / sum - (j == y[i])) / B * scale;
        dz[i * C + j] = store(rnd, (float)g, &fl, &cn); /* the gradient reaching the matmul's backward */
      }
    }
    for (int j = 0; j < C; j++) {
      float acc_b = 0;
      for (int i = 0; i < B; i++) acc_b += dz[i * C + j];
      db[j] = acc_b;
      for (int k = 0; k < F; k++) {
        float acc = 0;
        for (int i = 0; i < B; i++) acc += dz[i * C + j] * xl[i * F + k];
        dw[j * F + k] = store(rnd, acc, &fl, &cn);
      }
    }
    t->loss[mode][s] = (float)(loss / B);
    t->flushed[mode] += fl;
    t->counted[mode] += cn;
    t->flushed_pct_step[mode][s] = cn > 0 ? (float)(100 * fl / cn) : 0;
    /* Unscale in fp32; an infinity means the scaled gradient overflowed:
     * skip the step and halve the scale (GradScaler's rule). */
    int finite = 1;
    for (int i = 0; i < C * F && finite; i++) finite = isfinite(dw[i]);
    for (int j = 0; j < C && finite; j++) finite = isfinite(db[j]);
    if (!finite) {
      t->skipped[mode]++;
      scale *= 0.5;
      good = 0;
      continue;
    }
    float inv = (float)(1.0 / scale);
    for (int i = 0; i < C * F; i++) w[i] -= LAB_PREC_TRAIN_LR * (dw[i] * inv);
    for (int j = 0; j < C; j++) bias[j] -= LAB_PREC_TRAIN_LR * (db[j] * inv);
    if (scale > 1 && ++good == LAB_PREC_SCALE_GROWTH_INTERVAL) scale *= 2, good = 0;
  }
  t->final_scale[mode] = scale;
  int right = 0;
  for (int i = 0; i < B; i++) {
    int best = 0;
    double best_z = -INFINITY;
    for (int j = 0; j < C; j++) {
      double acc = bias[j];
      for (int k = 0; k < F; k++) acc += (double)w[j * F + k] * x[i * F + k];
      if (acc > best_z) best_z = acc, best = j;
    }
    right += best == y[i];
  }
  t->accuracy[mode] = (double)right / B;
}

void lab_precision_train(int steps, int loss_scaling, lab_prec_train *t) {
  double t0 = lab_clock_ms();
  scratch *sc = malloc(sizeof *sc);
  if (steps > LAB_PREC_TRAIN_MAX_STEPS) steps = LAB_PREC_TRAIN_MAX_STEPS;
  t->steps = sc ? steps : 0; /* out of memory: a run of no steps, which the envelope shows as such */
  t->loss_scaling = loss_scaling;
  if (sc) {
    make_data(sc->x, sc->y);
    for (int m = 0; m < LAB_TRAIN_MODES; m++) train_mode((lab_train_mode)m, steps, loss_scaling, sc, t);
  }
  free(sc);
  t->cpu_ms = lab_clock_ms() - t0;
}
