/* One SGD step of a small classifier (softmax regression: logits = x·Wᵀ + b,
 * softmax cross-entropy), repeated, with the loss read back to the host every
 * step or every N steps. Holds the CPU reference of a step (which validates
 * the GPU and draws the simulator's genuine loss curve), the envelope and
 * the stream model of launches, kernels and synchronizations. */
#ifndef LAB_TRAIN_STEP_H
#define LAB_TRAIN_STEP_H

#include <stdint.h>

#include "params.h"
#include "profiles.h"
#include "descriptor.h"

#define LAB_TRAIN_MAX_STEPS 1000
#define LAB_TRAIN_KERNELS 6 /* launches per step: see lab_train_kernel_names */
#define LAB_TRAIN_SEED 20240611u

/* "sgemm forward", "softmax cross-entropy", "mean loss", "sgemm dW",
 * "bias gradient", "SGD update": the launches of one step, in order. */
extern const char *const lab_train_kernel_names[LAB_TRAIN_KERNELS];

/* The data set: x [batch×features] row-major, y [batch] class indices.
 * Each class has a random centre; a sample is its class centre plus unit
 * noise, scaled by 1/sqrt(features) so the inputs stay O(1). */
void lab_train_data(int batch, int features, int classes, uint64_t seed, float *x, int *y);
/* W [classes×features] (like torch.nn.Linear.weight) ~ N(0, 0.01²), b = 0. */
void lab_train_init(int features, int classes, uint64_t seed, float *w, float *b);

/* One step on the CPU in double precision: fills dw [classes×features] and
 * db [classes] (gradients of the mean loss) and returns the mean loss before
 * the update. When lr > 0 it also applies w -= lr·dw, b -= lr·db.
 * `scratch` holds classes doubles. */
double lab_train_cpu_step(const float *x, const int *y, float *w, float *b, int batch, int features, int classes,
                          float lr, double *dw, double *db, double *scratch);
/* Share of samples whose arg-max logit is their label. */
double lab_train_accuracy(const float *x, const int *y, const float *w, const float *b, int batch, int features,
                          int classes);

typedef struct lab_train_measure {
  int steps, read_every, batch_used; /* batch_used: rows the loss curve was computed on */
  float loss[LAB_TRAIN_MAX_STEPS];   /* mean loss before each step's update */
  /* host time of the whole loop (ms), median over the samples, per mode */
  double every_step_ms, every_n_ms;
  double every_step_iqr_pct, every_n_iqr_pct;
  /* cumulative host time (ms) after each step, from the median sample */
  float cum_every_step_ms[LAB_TRAIN_MAX_STEPS], cum_every_n_ms[LAB_TRAIN_MAX_STEPS];
  int syncs_every_step, syncs_every_n;
  double gpu_step_us; /* the GPU's own time per step (events / model) */
  double final_accuracy;
  double cpu_curve_ms; /* simulated: real CPU time spent drawing the loss curve */
  int samples, warmup;
  int validated; /* -1 = not checked */
  double max_abs_err;
} lab_train_measure;

cJSON *lab_train_step_envelope(const lab_params *p, const lab_train_measure *m, const char *backend,
                               const char *device_name, const lab_profile *prof);

extern const lab_experiment lab_exp_train_step;

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_train_step from this list. */
#define LAB_PARAMS_train_step(X) \
  X(batch, INT, 8, 8192, 256, "samples", \
    "Samples in the (fixed) training batch.", NULL) \
  X(features, INT, 4, 2048, 128, "features", \
    "Inputs per sample.", NULL) \
  X(classes, INT, 2, 256, 10, "classes", \
    "Classes the layer chooses between.", NULL) \
  X(steps, INT, 2, LAB_TRAIN_MAX_STEPS, 100, "steps", \
    "SGD steps per run.", NULL) \
  X(read_every, INT, 2, LAB_TRAIN_MAX_STEPS, 10, "steps", \
    "In the second mode, copy the losses to the host once every this many steps.", NULL) \
  X(lr, NUM, 0.001, 5, 0.5, NULL, \
    "SGD learning rate.", NULL)

LAB_PARAMS_STRUCT(train_step)

#endif
