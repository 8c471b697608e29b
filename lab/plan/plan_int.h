/* The planner's inside (lab/plan/ only): a small model of how PyTorch holds
 * memory during one training step. Tensors are storages with a byte count,
 * a dtype and two kinds of reference (a program variable, and each autograd
 * node that saved it); nodes replay backward as PyTorch's engine does (in
 * reverse order of creation, each allocating its inputs' gradients before
 * its incoming gradient and its saved tensors are let go). The model
 * builders (plan_models.c) drive it op by op (plan_ops.c). */
#ifndef LAB_PLAN_INT_H
#define LAB_PLAN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

/* ---- tensors ------------------------------------------------------------ */

typedef enum pl_dtype { PL_F32, PL_F16, PL_BF16, PL_I64, PL_BOOL, PL_DTYPES } pl_dtype;

/* What a tensor is, for the components of the answer. */
typedef enum pl_kind {
  PL_K_ACT,    /* made during the step: an activation, a gradient of one, a temporary */
  PL_K_PARAM,  /* a parameter */
  PL_K_GRAD,   /* a parameter's .grad */
  PL_K_STATE,  /* optimizer state */
  PL_K_BUFFER, /* a module's buffer (GPT-2's causal mask) or the batch */
  PL_K_WORKSPACE /* cuBLAS workspaces */
} pl_kind;

typedef struct pl_tensor {
  uint64_t numel;
  int base;         /* a view's storage owner (-1: owns its storage) */
  int grad;         /* the gradient gathered for it in backward (-1: none yet) */
  int param;        /* its parameter index when it is one (-1) */
  int16_t refs;     /* program variables, autograd buffers and views holding it */
  int16_t saves;    /* nodes that saved it for backward */
  uint8_t dtype;    /* pl_dtype */
  uint8_t kind;     /* pl_kind */
  uint8_t src;      /* lab_plan_source, for an activation */
  bool rg;          /* requires grad */
  bool live;
  bool counted;     /* its bytes are in the totals (a view has none of its own) */
  bool censused;    /* counted once among the activations a forward saved */
} pl_tensor;

/* ---- nodes (what backward does) ----------------------------------------- */

typedef enum pl_op {
  PL_OP_PASS,    /* gradient passed on unchanged (view, clone, reshape) */
  PL_OP_EACH,    /* every input requiring grad gets a gradient of its own size (mm, elementwise, norms...) */
  PL_OP_ADD,     /* both inputs get the incoming gradient (cast or reduced when they differ) */
  PL_OP_SPLIT,   /* parts' gradients are gathered into one of the base's size (split, chunk) */
  PL_OP_SCATTER, /* embedding: a zeroed table-sized gradient */
  PL_OP_GIVE,    /* the gradients were made in forward and saved: they are handed on (fused loss) */
  PL_OP_CKPT     /* a checkpointed region: recomputed, then its own backward runs */
} pl_op;

#define PL_MAX_IN 4
#define PL_MAX_SAVED 6

typedef struct pl_sim pl_sim;
typedef int (*pl_region_fn)(pl_sim *s, const void *ctx, const int *in, int n_in);

typedef struct pl_node {
  uint8_t op;
  uint8_t n_in, n_saved;
  uint8_t tmp_x;     /* EACH: temporaries the backward holds, in units of the first input's bytes */
  int in[PL_MAX_IN]; /* inputs, in the order their gradients are made */
  int saved[PL_MAX_SAVED];
  uint8_t n_part;    /* SPLIT: the parts whose gradients are gathered */
  int part[3];
  int out;
  /* CKPT: the region to run again */
  pl_region_fn fn;
  const void *ctx;
  int autocast;      /* the autocast state to recompute under */
} pl_node;

/* ---- the simulation ------------------------------------------------------ */

#define PL_POLICY_CUDA 0
#define PL_POLICY_CPU 1

struct pl_sim {
  pl_tensor *t;
  int n_t, cap_t;
  pl_node *nodes;
  int n_nodes, cap_nodes;
  int *cast_cache; /* per parameter: its autocast copy in this forward (-1) */
  int *cast_outer; /* the forward's cache while a checkpointed region runs again */
  int *free_ids;   /* dead tensors, reused once a backward has ended */
  int n_free;
  int n_params;
  int *params;     /* tensor ids of the parameters, in creation order */
  int nograd;      /* inside torch.no_grad (a checkpointed region's first run) */
  int autocast;    /* 0, or the dtype autocast lowers matmuls to (PL_F16, PL_BF16) */
  int policy;      /* which autocast lists and dropout: PL_POLICY_CUDA or _CPU */
  int src;         /* the source new activations belong to */
  int failed;      /* a table ran out: the plan is refused, not guessed */
  int census;      /* count what nodes save (the first forward of the step) */
  uint64_t census_bytes, census_src[LAB_PLAN_SOURCES];
  /* what is live now and at the peak */
  uint64_t raw, rounded;           /* bytes live: as requested, and rounded to 512 as the CUDA allocator does */
  uint64_t peak_raw, peak_rounded;
  uint64_t small_live, medium_live, large_seg; /* the caching allocator's pools (plan_sim.c) */
  uint64_t small_hw, large_hw;                 /* their high-water marks */
  int phase, peak_phase;
  uint64_t by_kind_at_peak[6];                 /* raw bytes per pl_kind at the peak */
  uint64_t by_src_at_peak[LAB_PLAN_SOURCES];   /* activations per source at the peak */
  uint64_t by_kind[6];
  uint64_t by_src[LAB_PLAN_SOURCES];
  /* for the step time: the bytes every op wrote, and how many ops ran */
  uint64_t written;
  int ops;
};

/* The phases a peak is reported in. */
enum { PL_PH_SETUP, PL_PH_FORWARD, PL_PH_LOSS, PL_PH_BACKWARD, PL_PH_OPTIMIZER, PL_PHASES };
extern const char *const pl_phase_names[PL_PHASES];

int pl_dtype_size(int dtype);
/* Sets the tables up for about `layers` layers; 0, or -1 without memory. */
int pl_sim_init(pl_sim *s, int layers, int policy);
void pl_sim_free(pl_sim *s);
/* Empties the simulation, keeping its tables, for the next plan. */
void pl_sim_reset(pl_sim *s, int policy);

/* A new tensor of numel elements, held by one variable. */
int pl_new(pl_sim *s, uint64_t numel, int dtype, int kind);
/* A view of t (no bytes of its own; keeps t's storage alive). */
int pl_view(pl_sim *s, int t);
void pl_ref(pl_sim *s, int t);
/* A variable lets go of t; it is freed once nothing holds or saved it. */
void pl_drop(pl_sim *s, int t);
void pl_set_phase(pl_sim *s, int phase);
uint64_t pl_bytes(const pl_sim *s, int t);

/* A node for an op whose output `out` came from inputs in[0..n); saves
 * saved[0..n_saved). Makes out require grad when an input does; returns the
 * node index, or -1 when no gradient flows (nothing is saved then). */
int pl_node_add(pl_sim *s, int op, int out, const int *in, int n_in, const int *saved, int n_saved, int tmp_x);
/* A checkpointed region: fn ran under no_grad on in[] and made out; in
 * backward it runs again with grad and its own backward runs. */
int pl_ckpt_add(pl_sim *s, int out, const int *in, int n_in, pl_region_fn fn, const void *ctx);

/* Backward from `loss` (a scalar that requires grad): gradients flow to the
 * parameters (their .grad: allocated the first time, added in place after). */
void pl_backward(pl_sim *s, int loss);
/* Dead tensors become free slots (no node may name them any more). */
void pl_recycle(pl_sim *s);

#endif
