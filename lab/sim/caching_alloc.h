/* A small caching allocator, the idea behind PyTorch's: it reserves big
 * segments from the device (cudaMalloc), hands out sub-allocations from
 * them, keeps freed space cached for reuse, and gives segments back only on
 * "empty cache". The bookkeeping is portable; the device side is a pair of
 * callbacks, so the GPU run and the simulator share every rule. */
#ifndef LAB_CACHING_ALLOC_H
#define LAB_CACHING_ALLOC_H

#include <stdint.h>

#define LAB_POOL_MAX_SEGMENTS 512
#define LAB_POOL_MAX_BLOCKS 2048
#define LAB_POOL_ROUND 512u /* every request is rounded up to 512 bytes */

typedef struct lab_pool_backend {
  void *ctx;
  /* Reserves `bytes` on the device; 0 and *addr set, or -1 when the device
   * itself is out of memory. */
  int (*reserve)(void *ctx, uint64_t bytes, uintptr_t *addr);
  void (*release)(void *ctx, uintptr_t addr, uint64_t bytes);
} lab_pool_backend;

typedef enum lab_pool_oom { LAB_POOL_OK, LAB_POOL_OOM_LIMIT, LAB_POOL_OOM_DEVICE, LAB_POOL_OOM_TABLE } lab_pool_oom;

typedef struct lab_pool_segment {
  uintptr_t base;
  uint64_t size;
  int live;
} lab_pool_segment;

typedef struct lab_pool_block {
  int seg;         /* owning segment */
  uint64_t offset; /* from the segment's base */
  uint64_t size;   /* rounded size */
  int used, live;
} lab_pool_block;

typedef struct lab_pool {
  lab_pool_backend be;
  uint64_t limit_bytes; /* most it may reserve; 0 = no limit */
  uint64_t allocated_bytes, reserved_bytes, peak_allocated_bytes, peak_reserved_bytes;
  int reserve_calls, release_calls;
  lab_pool_oom last_oom;       /* why the last failed allocation failed */
  uint64_t last_request_bytes; /* what it asked for */
  lab_pool_segment seg[LAB_POOL_MAX_SEGMENTS];
  lab_pool_block blk[LAB_POOL_MAX_BLOCKS];
  int n_blk; /* slots ever used: none at or above is live, so the scans stop here (a scan of all 2048 slots made
                each cache hit cost 5.2 us on the H100, more than PyTorch's whole torch.empty + del) */
} lab_pool;

/* The device under a pool, as the walks in memory.c and allocator.c see
 * it: where segments come from (be), how much memory is free now, and an
 * optional check that a block really holds what was written (NULL when
 * simulated). The GPU side and the simulator (sim_mem.h) each fill one. */
typedef struct lab_pool_device {
  lab_pool_backend be;
  void *ctx;
  int (*info)(void *ctx, uint64_t *free_bytes, uint64_t *total_bytes); /* returns 0 */
  int (*check)(void *ctx, uintptr_t addr, uint64_t bytes, int verify, double *max_abs_err);
} lab_pool_device;

/* One moment of a walk: the allocator's view beside the driver's. */
typedef struct lab_pool_snap {
  char label[40];       /* "weights", "step 2 forward", "empty_cache()" */
  uint64_t allocated;   /* bytes in live tensors */
  uint64_t reserved;    /* bytes in the allocator's segments */
  uint64_t device_used; /* what the driver sees in use on the device (total - free from cudaMemGetInfo):
                           what nvidia-smi shows, the CUDA context included */
  int reserve_calls;    /* cudaMalloc calls so far */
} lab_pool_snap;

/* Fills out from a's counters and dev's free memory. device_used is the
 * device's whole used memory, as nvidia-smi shows it: before the first
 * tensor it is already the CUDA context (and any other process's share). */
void lab_pool_snap_take(const lab_pool *a, const lab_pool_device *dev, const char *label,
                        lab_pool_snap *out);

/* Segment size for a request, as PyTorch sizes them: requests up to 1 MiB
 * share 2 MiB segments, up to 10 MiB share 20 MiB segments, larger ones
 * get their own segment rounded up to 2 MiB. */
uint64_t lab_pool_segment_size(uint64_t bytes);

void lab_pool_init(lab_pool *a, lab_pool_backend be, uint64_t limit_bytes);
/* Hands out `bytes` (rounded to 512): reuses cached space first, else
 * reserves a segment. When that would pass the limit, or the device refuses,
 * it empties the cache and tries once more; then fails with -1 and
 * last_oom set. On success returns 0, the block id and its device address. */
int lab_pool_alloc(lab_pool *a, uint64_t bytes, int *id, uintptr_t *addr);
/* Takes a block back into the cache (allocated drops, reserved does not). */
void lab_pool_free(lab_pool *a, int id);
/* Gives every wholly free segment back to the device; returns the bytes released. */
uint64_t lab_pool_empty_cache(lab_pool *a);
/* Frees every block and releases every segment (cleanup on any path). */
void lab_pool_release_all(lab_pool *a);

#endif
