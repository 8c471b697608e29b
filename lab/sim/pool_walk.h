/* One walk over a caching pool, as the memory and allocator experiments
 * both take it: allocate and free on a lab_pool over a device, and keep a
 * bounded list of snapshots (the pool's counters beside the driver's) at
 * the steps the chart shows. */
#ifndef LAB_POOL_WALK_H
#define LAB_POOL_WALK_H

#include <stdint.h>

#include "caching_alloc.h"

typedef struct lab_pool_walk {
  lab_pool *pool;
  const lab_pool_device *dev;
  lab_pool_snap *snaps; /* the measure's snapshot list (not owned) */
  int *n_snaps;         /* how many it holds */
  int cap;              /* its length: later snapshots are dropped */
} lab_pool_walk;

/* Appends a snapshot labelled `label` while there is room. */
void lab_pool_walk_snap(lab_pool_walk *w, const char *label);
/* Allocates `bytes` from the walk's pool: 0 and *id, or -1 with *id = -1
 * and the pool's last_oom saying why (the caller records what it asked). */
int lab_pool_walk_take(lab_pool_walk *w, uint64_t bytes, int *id);
/* A live block's device address. */
uintptr_t lab_pool_walk_addr(const lab_pool_walk *w, int id);

#endif
