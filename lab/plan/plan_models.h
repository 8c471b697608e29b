/* The models the planner describes, built op by op on the planner's
 * PyTorch model (plan_ops.h): GPT-2, Llama and BERT as transformers writes
 * them in eager mode, and the small convolutional net. tests/plan/models.py
 * is the same code in PyTorch, which the PyTorch reference measures. */
#ifndef LAB_PLAN_MODELS_H
#define LAB_PLAN_MODELS_H

#include "plan_int.h"

#define PL_MAX_LAYERS 256
#define PL_LAYER_PARAMS 24
#define PL_MAX_PARAMS (PL_MAX_LAYERS * PL_LAYER_PARAMS + 32)

typedef struct pl_model pl_model;

/* What a checkpointed region needs to run again. */
typedef struct pl_region {
  const pl_model *m;
  int layer;
} pl_region;

struct pl_model {
  const lab_plan_settings *set;
  uint64_t B, T, N;       /* micro-batch, sequence, tokens = B*T */
  uint64_t h, a, kv, d, ffn, V;
  int wdtype;             /* the parameters' dtype */
  int wte, wpe, tte, emb_w, emb_b, lnf_w, lnf_b, head, tr_w, tr_b, dec_b, inv_freq;
  int lp[PL_MAX_LAYERS][PL_LAYER_PARAMS]; /* each layer's parameters */
  int causal[PL_MAX_LAYERS];              /* GPT-2: each attention's causal-mask buffer */
  pl_region region[PL_MAX_LAYERS];
  int fc_w, fc_b;         /* the conv net's classifier */
  int ids, labels;        /* the batch */
  uint64_t largest_param; /* elements */
  /* per parameter (by its number): its last two dimensions (Adafactor
   * keeps a row and a column statistic for a matrix); prev 0 for a vector */
  uint32_t dim_last[PL_MAX_PARAMS], dim_prev[PL_MAX_PARAMS];
};

/* Creates the parameters, buffers and the batch (in the order PyTorch
 * would); 0, or -1 when the tables ran out. */
int pl_model_setup(pl_sim *s, pl_model *m, const lab_plan_settings *set);
/* One forward up to the loss (a new reference to the scalar). */
int pl_model_forward(pl_sim *s, pl_model *m);

#endif
