/* GPU memory for training: the budget arithmetic (weights, gradients, Adam's
 * two moments, activations), a walk through real allocations under a
 * caching allocator (allocated vs reserved vs what the driver sees), and a
 * bounded, deliberate out-of-memory with the fixes. Shared by the GPU side
 * (kernels/memory.cu) and the simulator. */
#ifndef LAB_MEMORY_H
#define LAB_MEMORY_H

#include <stdint.h>

#include "caching_alloc.h"
#include "params.h"
#include "profiles.h"
#include "descriptor.h"

/* Activations kept for backward, per token, per layer: about 16 hidden-size
 * vectors in a transformer block (layer-norm inputs, q/k/v, attention
 * output, the 4×hidden MLP input and output, residuals), in fp32. The
 * attention score matrices (seq² per head) are left out: fused attention
 * (FlashAttention) does not keep them. */
#define LAB_MEM_ACT_VALUES 16
#define LAB_MEM_ACT_BYTES 4

typedef struct lab_mem_budget {
  double params;         /* parameter count */
  uint64_t weights;      /* fp32: 4 bytes/param */
  uint64_t gradients;    /* fp32: 4 bytes/param */
  uint64_t optimizer;    /* Adam m and v in fp32: 8 bytes/param */
  uint64_t activations;  /* batch × seq × hidden × layers × 16 × 4 bytes */
  uint64_t total;
} lab_mem_budget;

void lab_memory_budget(double params, long batch, long seq, long hidden, long layers, lab_mem_budget *out);
/* Largest batch (≤ 1<<20) whose total fits in `usable` bytes; 0 when even the
 * 16 bytes/param floor does not fit. */
long lab_memory_max_batch(double params, long seq, long hidden, long layers, uint64_t usable);

#define LAB_MEM_MAX_STEPS 10

typedef struct lab_memory_measure {
  lab_mem_budget budget;
  uint64_t capacity_bytes;    /* total device memory */
  uint64_t free_before_bytes; /* free before the walk (after the context) */
  uint64_t free_after_bytes;  /* free after everything was given back */
  uint64_t limit_bytes;       /* the allocator's limit: the learner's budget on a real run, 0 (none) simulated */
  int n_steps;
  lab_pool_snap steps[LAB_MEM_MAX_STEPS];
  uint64_t peak_allocated, peak_reserved;
  int reserve_calls, release_calls;
  /* the out-of-memory, if one happened */
  int oom;
  lab_pool_oom oom_kind;
  const char *oom_step;
  uint64_t oom_request, oom_allocated, oom_reserved;
  int oom_tensors; /* the term being allocated was split into this many tensors (one per layer) */
  int deliberate; /* the OOM came from the deliberate over-ask, not the model */
} lab_memory_measure;

/* How the walk reaches the device: the GPU side passes cudaMalloc/cudaFree
 * and cudaMemGetInfo; the simulator a model of the profile's memory. */
/* Runs the walk: weights → gradients → Adam moments → activations
 * (forward) → activations freed (backward) → empty cache → (deliberate
 * over-ask when force_oom) → free everything. Every allocation goes through
 * `pool` (initialised here with the learner's budget_gib as its limit: a
 * real run on a shared GPU stays inside it; the simulator walks without it,
 * up to the profile's capacity); an out-of-memory stops the walk, which
 * then frees everything. Fills m. */
void lab_memory_walk(const lab_params *p, lab_pool *pool, const lab_pool_device *dev, lab_memory_measure *m);

cJSON *lab_memory_envelope(const lab_params *p, const lab_memory_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof);

extern const lab_experiment lab_exp_memory;

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_memory from this list. */
#define LAB_PARAMS_memory(X) \
  X(params_m, NUM, 0.1, 1e6, 30, "million parameters", \
    "Model size in millions of parameters (GPT-2 small is 124, Llama-2-7B is 6740).", NULL) \
  X(batch, INT, 1, 4096, 4, "sequences", \
    "Sequences per step.", NULL) \
  X(seq_len, INT, 1, 131072, 256, "tokens", \
    "Tokens per sequence.", NULL) \
  X(hidden, INT, 16, 65536, 512, "values", \
    "Hidden size of each layer (768 for GPT-2 small).", NULL) \
  X(layers, INT, 1, 256, 6, "layers", \
    "Transformer layers.", NULL) \
  X(budget_gib, NUM, 0.125, 8, 1, "GiB", \
    "On a real GPU, the most the caching allocator may reserve (like torch.cuda.set_per_process_memory_fraction); " \
    "the real allocations and the deliberate OOM stay inside it, so a shared GPU is safe. A simulated run has " \
    "the profile's whole memory.", NULL) \
  X(force_oom, BOOL, 0, 1, 1, NULL, \
    "When the model fits, finish by asking for 64 MiB more than is left of the budget.", NULL)

LAB_PARAMS_STRUCT(memory)

#endif
