/* The pool walk that memory.c and allocator.c share (see pool_walk.h):
 * bounded snapshots and allocations that report a refusal instead of
 * stopping the walk. */
#include "pool_walk.h"

void lab_pool_walk_snap(lab_pool_walk *w, const char *label) {
  if (*w->n_snaps < w->cap) lab_pool_snap_take(w->pool, w->dev, label, &w->snaps[(*w->n_snaps)++]);
}

int lab_pool_walk_take(lab_pool_walk *w, uint64_t bytes, int *id) {
  uintptr_t addr;
  if (lab_pool_alloc(w->pool, bytes, id, &addr) == 0) return 0;
  *id = -1;
  return -1;
}

uintptr_t lab_pool_walk_addr(const lab_pool_walk *w, int id) {
  const lab_pool *a = w->pool;
  return a->seg[a->blk[id].seg].base + a->blk[id].offset;
}
