/* The caching allocator's bookkeeping: segments from the device, blocks
 * carved from them best-fit, neighbours merged when freed. Fixed tables
 * keep it allocation-free, so a full table is reported like an OOM. */
#include "caching_alloc.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ull * 1024ull)

static uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

uint64_t lab_pool_segment_size(uint64_t bytes) {
  if (bytes <= 1 * MIB) return 2 * MIB;
  if (bytes <= 10 * MIB) return 20 * MIB;
  return round_up(bytes, 2 * MIB);
}

void lab_pool_init(lab_pool *a, lab_pool_backend be, uint64_t limit_bytes) {
  memset(a, 0, sizeof *a);
  a->be = be;
  a->limit_bytes = limit_bytes;
}

static int new_block(lab_pool *a) {
  for (int i = 0; i < a->n_blk; i++)
    if (!a->blk[i].live) return i;
  return a->n_blk < LAB_POOL_MAX_BLOCKS ? a->n_blk++ : -1;
}

/* Best fit among cached free blocks of a segment size class that suits the
 * request (small requests never split a big segment, and the reverse). */
static int find_free(const lab_pool *a, uint64_t size) {
  int best = -1;
  uint64_t want_seg = lab_pool_segment_size(size);
  for (int i = 0; i < a->n_blk; i++) {
    const lab_pool_block *b = &a->blk[i];
    if (!b->live || b->used || b->size < size) continue;
    uint64_t seg = a->seg[b->seg].size;
    int small_req = want_seg <= 2 * MIB, small_seg = seg <= 2 * MIB;
    if (small_req != small_seg) continue;
    if (best < 0 || b->size < a->blk[best].size) best = i;
  }
  return best;
}

static int reserve_segment(lab_pool *a, uint64_t size) {
  if (a->limit_bytes && a->reserved_bytes + size > a->limit_bytes) {
    a->last_oom = LAB_POOL_OOM_LIMIT;
    return -1;
  }
  int s = -1;
  for (int i = 0; i < LAB_POOL_MAX_SEGMENTS && s < 0; i++)
    if (!a->seg[i].live) s = i;
  int b = new_block(a);
  if (s < 0 || b < 0) {
    a->last_oom = LAB_POOL_OOM_TABLE;
    return -1;
  }
  uintptr_t base = 0;
  if (a->be.reserve(a->be.ctx, size, &base) != 0) {
    a->last_oom = LAB_POOL_OOM_DEVICE;
    return -1;
  }
  a->reserve_calls++;
  a->seg[s] = (lab_pool_segment){.base = base, .size = size, .live = 1};
  a->blk[b] = (lab_pool_block){.seg = s, .offset = 0, .size = size, .used = 0, .live = 1};
  a->reserved_bytes += size;
  if (a->reserved_bytes > a->peak_reserved_bytes) a->peak_reserved_bytes = a->reserved_bytes;
  return b;
}

/* Takes `size` from the front of free block i; the rest stays cached. */
static int carve(lab_pool *a, int i, uint64_t size) {
  lab_pool_block *b = &a->blk[i];
  if (b->size > size) {
    int rest = new_block(a);
    if (rest < 0) {
      a->last_oom = LAB_POOL_OOM_TABLE;
      return -1;
    }
    a->blk[rest] = (lab_pool_block){.seg = b->seg, .offset = b->offset + size, .size = b->size - size, .used = 0,
                                    .live = 1};
    b->size = size;
  }
  b->used = 1;
  a->allocated_bytes += b->size;
  if (a->allocated_bytes > a->peak_allocated_bytes) a->peak_allocated_bytes = a->allocated_bytes;
  return 0;
}

int lab_pool_alloc(lab_pool *a, uint64_t bytes, int *id, uintptr_t *addr) {
  uint64_t size = round_up(bytes ? bytes : 1, LAB_POOL_ROUND);
  a->last_request_bytes = bytes;
  a->last_oom = LAB_POOL_OK;
  int i = find_free(a, size);
  if (i < 0) i = reserve_segment(a, lab_pool_segment_size(size));
  if (i < 0 && a->last_oom != LAB_POOL_OOM_TABLE) {
    /* As PyTorch does before giving up: return cached segments, retry. */
    if (lab_pool_empty_cache(a) > 0) i = reserve_segment(a, lab_pool_segment_size(size));
  }
  if (i < 0 || carve(a, i, size) != 0) return -1;
  a->last_oom = LAB_POOL_OK;
  *id = i;
  *addr = a->seg[a->blk[i].seg].base + a->blk[i].offset;
  return 0;
}

static void merge(lab_pool *a, int i) {
  for (int again = 1; again;) {
    again = 0;
    for (int j = 0; j < a->n_blk; j++) {
      lab_pool_block *b = &a->blk[i], *o = &a->blk[j];
      if (j == i || !o->live || o->used || o->seg != b->seg) continue;
      if (o->offset + o->size == b->offset) { /* o is just before b: b joins o */
        o->size += b->size;
        b->live = 0;
        i = j;
        again = 1;
      } else if (b->offset + b->size == o->offset) { /* o is just after b */
        b->size += o->size;
        o->live = 0;
        again = 1;
      }
    }
  }
}

void lab_pool_free(lab_pool *a, int id) {
  if (id < 0 || id >= LAB_POOL_MAX_BLOCKS || !a->blk[id].live || !a->blk[id].used) return;
  a->blk[id].used = 0;
  a->allocated_bytes -= a->blk[id].size;
  merge(a, id);
}

uint64_t lab_pool_empty_cache(lab_pool *a) {
  uint64_t released = 0;
  for (int i = 0; i < a->n_blk; i++) {
    lab_pool_block *b = &a->blk[i];
    if (!b->live || b->used) continue;
    lab_pool_segment *s = &a->seg[b->seg];
    if (b->offset != 0 || b->size != s->size) continue; /* part of the segment is still in use */
    a->be.release(a->be.ctx, s->base, s->size);
    a->release_calls++;
    a->reserved_bytes -= s->size;
    released += s->size;
    s->live = 0;
    b->live = 0;
  }
  return released;
}

void lab_pool_release_all(lab_pool *a) {
  for (int i = 0; i < a->n_blk; i++)
    if (a->blk[i].live && a->blk[i].used) lab_pool_free(a, i);
  lab_pool_empty_cache(a);
}

void lab_pool_snap_take(const lab_pool *a, const lab_pool_device *dev, const char *label,
                        lab_pool_snap *out) {
  uint64_t free_b = 0, total_b = 0;
  dev->info(dev->ctx, &free_b, &total_b);
  uint64_t used = total_b > free_b ? total_b - free_b : 0;
  snprintf(out->label, sizeof out->label, "%s", label);
  out->allocated = a->allocated_bytes;
  out->reserved = a->reserved_bytes;
  out->device_used = used;
  out->reserve_calls = a->reserve_calls;
}
