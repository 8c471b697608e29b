/* `allocator`: PyTorch's caching allocator made visible with our small one
 * (lab/sim/caching_alloc.h): what cudaMalloc/cudaFree cost against a block from
 * the cache, allocated vs reserved vs the driver's view over training-like
 * steps, what empty_cache() gives back, and fragmentation. The walk is
 * shared: the GPU passes cudaMalloc/cudaFree, the simulator a model. */
#ifndef LAB_ALLOCATOR_H
#define LAB_ALLOCATOR_H

#include <stdint.h>

#include "caching_alloc.h"
#include "params.h"
#include "profiles.h"
#include "descriptor.h"

#define LAB_ALLOC_MAX_CYCLES 1000
#define LAB_ALLOC_WARMUP 3
#define LAB_ALLOC_BUSY_US 500.0 /* the kernel queued before the "cudaFree while busy" samples */
#define LAB_ALLOC_BUSY_SAMPLES 5
#define LAB_ALLOC_CACHE_BATCH 64 /* cache alloc+free pairs timed together, then divided */
#define LAB_ALLOC_MAX_LAYERS 32
#define LAB_ALLOC_MAX_STEPS 10
#define LAB_ALLOC_MAX_POINTS (4 + 2 * LAB_ALLOC_MAX_STEPS * LAB_ALLOC_MAX_LAYERS)
#define LAB_ALLOC_MAX_FRAG 64

typedef struct lab_alloc_frag {
  uint64_t block_bytes;      /* each of the n blocks */
  int n_blocks, n_free;      /* every other one freed */
  uint64_t reserved_before;  /* after the frees */
  uint64_t free_in_cache;    /* reserved - allocated then */
  uint64_t largest_free;     /* the biggest single free block then */
  int free_pieces;           /* how many free blocks */
  uint64_t request_bytes;    /* one block more than the largest free block */
  uint64_t reserved_after;   /* after serving the request */
  int new_segments;          /* cudaMalloc calls the request needed */
  uint64_t reserved_after_empty; /* after empty_cache() with the request still live */
  uint64_t allocated_after_empty;
} lab_alloc_frag;

typedef struct lab_allocator_measure {
  /* (1) per-call cost; samples in µs */
  uint64_t timing_bytes;
  int cycles, warmup, busy_samples;
  double malloc_us[LAB_ALLOC_MAX_CYCLES], free_us[LAB_ALLOC_MAX_CYCLES], cache_us[LAB_ALLOC_MAX_CYCLES];
  double free_busy_us[LAB_ALLOC_BUSY_SAMPLES];
  double malloc_med_us, free_med_us, cache_med_us, free_busy_med_us, malloc_iqr_pct, cache_iqr_pct;
  /* (2)+(3) the training-like walk */
  int steps, layers;
  uint64_t weight_bytes, act_bytes; /* per layer */
  int n_points;
  lab_pool_snap pt[LAB_ALLOC_MAX_POINTS];
  int calls_first_step, calls_later_steps; /* cudaMalloc calls */
  uint64_t peak_allocated, peak_reserved;
  int before_empty, after_empty; /* indices into pt */
  /* (4) */
  lab_alloc_frag frag;
  /* An out-of-memory from the device (the walk stops and frees everything). */
  int oom;
  char oom_where[40];
  uint64_t oom_request;
  int validated; /* -1: not checked (simulated) */
  double max_abs_err;
} lab_allocator_measure;

/* How the walk reaches the device. `check` (may be NULL) writes known
 * values into a block (verify 0) and later reads them back (verify 1),
 * returning the largest difference; used to show that empty_cache() leaves
 * live tensors and their contents alone. */
/* Bounds the bounds cannot express: the walk's peak reservation (computed
 * by running it through the bookkeeping alone) and the timing block must
 * stay under limit_gib. */
int lab_allocator_check(const lab_params *p, lab_error *err);
/* Runs (2), (3) and (4) on `dev`, filling m's walk and frag parts and
 * m->oom. Frees everything on every path. Returns 0, or -1 when the host
 * is out of memory (err set); a device OOM is a result (m->oom). */
int lab_allocator_walk(const lab_params *p, const lab_pool_device *dev, lab_allocator_measure *m, lab_error *err);
/* Medians and spreads of the timing samples. */
void lab_allocator_summarize(lab_allocator_measure *m);
cJSON *lab_allocator_envelope(const lab_params *p, const lab_allocator_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof);

extern const lab_experiment lab_exp_allocator;

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_allocator from this list. */
#define LAB_PARAMS_allocator(X) \
  X(block_mib, INT, 1, 1024, 16, "MiB", \
    "Size of the block allocated and freed again and again to time cudaMalloc, cudaFree and the cache.", NULL) \
  X(cycles, INT, 10, LAB_ALLOC_MAX_CYCLES, 100, NULL, \
    "Timed allocate/free cycles after 3 warm-up cycles; medians are reported.", NULL) \
  X(layers, INT, 1, LAB_ALLOC_MAX_LAYERS, 8, "layers", \
    "Layers of the pretend model: one weight, one gradient and one activation tensor each.", NULL) \
  X(weight_mib, NUM, 0.5, 1024, 32, "MiB", \
    "Weight tensor of each layer (its gradient has the same size).", NULL) \
  X(act_mib, NUM, 0.5, 1024, 24, "MiB", \
    "Activation each layer keeps from forward until backward frees it.", NULL) \
  X(steps, INT, 1, LAB_ALLOC_MAX_STEPS, 3, "steps", \
    "Training steps: forward allocates the activations, backward frees them (and step 1 allocates the " \
    "gradients).", NULL) \
  X(frag_mib, NUM, 2, 256, 4, "MiB", \
    "Block size of the fragmentation example (up to 10 MiB blocks share 20 MiB segments).", NULL) \
  X(frag_blocks, INT, 4, LAB_ALLOC_MAX_FRAG, 10, "blocks", \
    "Blocks allocated in the fragmentation example; every other one is then freed.", NULL) \
  X(limit_gib, NUM, 0.25, 8, 2, "GiB", \
    "Most this run may hold on the GPU at once; larger layers, activations or blocks are refused.", NULL)

LAB_PARAMS_STRUCT(allocator)

#endif
