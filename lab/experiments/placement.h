/* Tensor placement: a linear layer and a batch of named fields (features,
 * mask, labels) must all live on one device before any kernel runs. This
 * file holds the bookkeeping both sides share — which tensor is where, the
 * preflight check that names a stray field, the envelope — and the model. */
#ifndef LAB_PLACEMENT_H
#define LAB_PLACEMENT_H

#include <stdint.h>

#include "params.h"
#include "profiles.h"
#include "descriptor.h"

typedef enum lab_where { LAB_ON_CPU, LAB_ON_GPU } lab_where;

typedef enum lab_tensor_id {
  LAB_T_WEIGHT, /* model: [classes, features] like torch.nn.Linear.weight */
  LAB_T_BIAS,   /* model: [classes] */
  LAB_T_FEATURES, /* batch: [batch, features] float32 */
  LAB_T_MASK,     /* batch: [batch] float32, 1 = real sample, 0 = padding */
  LAB_T_LABELS,   /* batch: [batch] int32 class index */
  LAB_T_COUNT
} lab_tensor_id;

typedef struct lab_tensor_info {
  const char *name; /* "features" */
  const char *role; /* "model" | "batch" */
  const char *dtype; /* "float32" | "int32" */
  lab_where where;
  int moved;      /* a copy to the GPU was made for it */
  int rank;
  long shape[2];
  uint64_t bytes;
} lab_tensor_info;

typedef struct lab_placement_measure {
  lab_tensor_info t[LAB_T_COUNT];
  /* preflight: all tensors on one device? */
  int preflight_ok;
  int stray;            /* index of the first tensor off the model's device, -1 if none */
  char message[320];    /* the preflight's sentence (empty when it passed) */
  /* what ran (only when the preflight passed) */
  int ran;
  lab_where compute;    /* where the layer ran */
  long out_rows, out_cols;
  int correct;          /* argmax(output) == label, over masked-in rows */
  int counted;          /* rows with mask 1 */
  uint64_t copied_bytes; /* host→device bytes actually copied */
  double copy_ms;       /* time of those copies (median) */
  double forward_ms;    /* time of the layer + scoring (median) */
  double forward_iqr_pct;
  int samples, warmup;
  /* GPU runs only: output checked against the CPU reference */
  int validated; /* -1 = not checked (simulated or nothing ran) */
  double max_abs_err;
} lab_placement_measure;

/* "cpu" or "cuda:0", as PyTorch prints devices. */
const char *lab_where_name(lab_where w);

/* Fills m->t from the params (shapes, dtypes, bytes, where each tensor will
 * be: the model on the GPU when model_on_gpu, each field on the GPU when
 * its move_* flag is set) and runs the preflight. Everything else is zero. */
void lab_placement_plan(const lab_params *p, lab_placement_measure *m);

/* The preflight, before any kernel: every batch field must be on the model's
 * device. Returns 1 when they are; otherwise 0, sets *stray to the first
 * field at fault and writes a sentence naming it and both devices. */
int lab_placement_preflight(const lab_tensor_info *t, int n, int *stray, char *msg, unsigned msg_size);

cJSON *lab_placement_envelope(const lab_params *p, const lab_placement_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof);

extern const lab_experiment lab_exp_placement;

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_placement from this list. */
#define LAB_PARAMS_placement(X) \
  X(batch, INT, 1, 8192, 64, "samples", \
    "Samples in the batch (rows of features).", NULL) \
  X(features, INT, 1, 8192, 768, "features", \
    "Inputs of the linear layer (768 is a BERT-base hidden size).", NULL) \
  X(classes, INT, 1, 1024, 3, "classes", \
    "Outputs of the linear layer.", NULL) \
  X(model_on_gpu, BOOL, 0, 1, 1, NULL, \
    "Move the layer's weight and bias to the GPU (model.to('cuda')).", NULL) \
  X(move_features, BOOL, 0, 1, 1, NULL, \
    "Copy the features to the GPU before the step.", NULL) \
  X(move_mask, BOOL, 0, 1, 1, NULL, \
    "Copy the padding mask to the GPU before the step.", NULL) \
  X(move_labels, BOOL, 0, 1, 1, NULL, \
    "Copy the labels to the GPU before the step (forgetting this is the classic mistake).", NULL)

LAB_PARAMS_STRUCT(placement)

#endif
