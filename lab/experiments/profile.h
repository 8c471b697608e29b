/* `profile`: a training step of a small MLP (1024 inputs → hidden, ReLU →
 * 10 classes, SGD) split into phases — data load, forward, loss, backward,
 * optimizer step, logging — each an NVTX range on the GPU side, timed with
 * the host clock and with CUDA events: a profiler-like table per phase and
 * a CPU/GPU timeline of one step (where the host waits, where the GPU idles).
 * Its files carry the experiment's name, as every experiment's do; inside,
 * its word is "phases" (lab_phases_*): "profile" is a device profile
 * (profiles.h). */
#ifndef LAB_PROFILE_H
#define LAB_PROFILE_H

#include <stdint.h>

#include "params.h"
#include "profiles.h"
#include "descriptor.h"

#define LAB_PHASES_FEATURES 1024 /* inputs per sample (a 32×32 grey image) */
#define LAB_PHASES_CLASSES 10
#define LAB_PHASES_LR 0.05f
#define LAB_PHASES_MAX_STEPS 200
#define LAB_PHASES_MAX_RUNS 9
#define LAB_PHASES_MAX_SPANS 64 /* spans drawn on the one-step timeline */
#define LAB_PHASES_SEED 20240917u

typedef enum lab_phases_phase {
  LAB_PH_DATA,
  LAB_PH_FORWARD,
  LAB_PH_LOSS,
  LAB_PH_BACKWARD,
  LAB_PH_OPTIMIZER,
  LAB_PH_LOGGING,
  LAB_PHASES_PHASES
} lab_phases_phase;

/* "data load", "forward", …: the NVTX range names, in step order. */
extern const char *const lab_phases_phase_names[LAB_PHASES_PHASES];
/* "data", "forward", …: the metric key stems (data_host_ms, data_gpu_ms). */
extern const char *const lab_phases_phase_keys[LAB_PHASES_PHASES];

/* The GPU operations of one step, in issue order, with their phase. The
 * last one (the loss copied to the host) runs only on logging steps. */
#define LAB_PHASES_OPS 15
typedef struct lab_phases_op {
  const char *label;
  lab_phases_phase phase;
} lab_phases_op;
extern const lab_phases_op lab_phases_ops[LAB_PHASES_OPS];

/* Parameter layout, one contiguous buffer (so one SGD launch updates all):
 * W1 [hidden×1024] | b1 [hidden] | W2 [10×hidden] | b2 [10]. */
int64_t lab_phases_param_count(int hidden);
/* W1 ~ N(0, 1/1024), W2 ~ N(0, 1/hidden), biases 0. */
void lab_phases_init(int hidden, uint64_t seed, float *params);

/* The host part of data loading: gathers `batch` rows of the data set
 * (a fixed pseudo-shuffle that depends on step) and normalises them,
 * x = (row − mean) · inv_sd, into x [batch×1024]; labels into y. */
void lab_phases_collate(const float *data, const int *labels, int rows, int batch, int step, float mean,
                         float inv_sd, float *x, int *y);

/* CPU reference of one step in double: the mean softmax cross-entropy of
 * the batch (returned) and its gradients `grads` in the parameter layout.
 * scratch holds 2·hidden + 2·10 doubles. */
double lab_phases_cpu_grads(const float *x, const int *y, const float *params, int batch, int hidden, double *grads,
                             double *scratch);

/* What one run recorded, µs on the host clock from the run's start:
 * the host's range of every phase and the GPU's span of every op, per
 * step (−1 when a phase or op did not happen in that step). */
typedef struct lab_phases_trace {
  int steps;
  double *range_start_us, *range_end_us; /* [steps × PHASES] */
  double *op_start_us, *op_end_us;       /* [steps × OPS] */
  double *prep_us;                       /* [steps]: host time gathering the batch */
  double end_us;                         /* host clock when the run was over */
} lab_phases_trace;

/* Returns 0, or -1 when out of memory (then nothing is left allocated). */
int lab_phases_trace_alloc(lab_phases_trace *t, int steps);
void lab_phases_trace_free(lab_phases_trace *t);
/* Marks every range and op of the trace as absent (−1). */
void lab_phases_trace_clear(lab_phases_trace *t);

typedef struct lab_phases_measure {
  int batch, hidden, steps, log_every, pinned;
  int runs, warmup;
  double run_ms[LAB_PHASES_MAX_RUNS]; /* wall time of each run */
  double step_ms, iqr_pct;              /* median run / steps, spread of the runs */
  /* Totals over the steps of the median run. */
  int calls[LAB_PHASES_PHASES];
  double host_ms[LAB_PHASES_PHASES]; /* inside the phase's range, host clock */
  double gpu_ms[LAB_PHASES_PHASES];  /* the GPU busy with the phase's ops */
  double prep_ms;                     /* the host part of data load */
  double wall_ms, gpu_busy_ms;        /* the run's wall time, and the GPU's busy time in it */
  double gpu_first_us;                /* when the GPU started its first op */
  float step_host_ms[LAB_PHASES_MAX_STEPS]; /* host time of each step (start to next start) */
  /* One step on a common clock, µs from that step's host start. */
  int tl_step; /* 0-based */
  int n_spans;
  char span_lane[LAB_PHASES_MAX_SPANS][16];
  char span_label[LAB_PHASES_MAX_SPANS][48];
  double span_start_us[LAB_PHASES_MAX_SPANS], span_end_us[LAB_PHASES_MAX_SPANS];
  int validated; /* -1: not checked (simulated) */
  double max_abs_err;
} lab_phases_measure;

/* Run wall time (ms) of a trace: from the first range to end_us. */
double lab_phases_trace_wall_ms(const lab_phases_trace *t);
/* Fills m's per-phase totals, busy time, per-step host times and the
 * one-step timeline from the trace of the median run. */
void lab_phases_summarize(const lab_phases_trace *t, lab_phases_measure *m);

/* Builds the envelope (backend "cuda" or "simulated"); prof NULL for a real run. */
cJSON *lab_phases_envelope(const lab_params *p, const lab_phases_measure *m, const char *backend,
                            const char *device_name, const lab_profile *prof);

extern const lab_experiment lab_exp_profile;

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_profile from this list. */
#define LAB_PARAMS_profile(X) \
  X(batch, INT, 16, 4096, 512, "samples", \
    "Samples per training step (1024 inputs each).", NULL) \
  X(hidden, INT, 16, 8192, 2048, "units", \
    "Width of the MLP's hidden layer: the GPU's work per step grows with it.", NULL) \
  X(steps, INT, 5, LAB_PHASES_MAX_STEPS, 50, "steps", \
    "Training steps per timed run.", NULL) \
  X(pinned, BOOL, 0, 1, 0, NULL, \
    "Gather batches into pinned (page-locked) memory and copy them asynchronously (non_blocking).", NULL) \
  X(log_every, INT, 1, LAB_PHASES_MAX_STEPS, 1, "steps", \
    "Read the loss to the host (like loss.item()) every this many steps, and after the last.", NULL)

LAB_PARAMS_STRUCT(profile)

#endif
