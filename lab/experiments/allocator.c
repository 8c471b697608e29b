/* `allocator`: parameters, the shared walk (training-like steps, empty
 * cache, fragmentation) through lab/caching_alloc, the envelope and the
 * simulator. The simulator runs the same walk against a model of the
 * profile's memory and models each driver call's cost from the profile's
 * launch and synchronize figures plus a per-page mapping cost. */
#include "allocator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "pool_walk.h"
#include "rng.h"
#include "sim_mem.h"
#include "units.h"
#include "stats.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

LAB_PARAMS_DEFINE(allocator)

static uint64_t mib_bytes(double mib) { return (uint64_t)(mib * MIB + 0.5); }
static double to_mib(uint64_t b) { return (double)b / MIB; }

/* ---- the walk ---------------------------------------------------------- */

typedef struct walk {
  lab_pool_walk pw;
  lab_allocator_measure *m;
} walk;

static int take(walk *w, uint64_t bytes, const char *where, int *id) {
  if (lab_pool_walk_take(&w->pw, bytes, id) == 0) return 0;
  w->m->oom = 1;
  w->m->oom_request = bytes;
  snprintf(w->m->oom_where, sizeof w->m->oom_where, "%s", where);
  return -1;
}

/* (2) and (3): weights, then steps of forward (activations grow) and
 * backward (activations freed; step 1 also creates the gradients, which
 * stay), then empty_cache() with the weights and gradients still live. */
static void train_walk(walk *w) {
  lab_allocator_measure *m = w->m;
  lab_pool *a = w->pw.pool;
  int wt[LAB_ALLOC_MAX_LAYERS], gr[LAB_ALLOC_MAX_LAYERS], act[LAB_ALLOC_MAX_LAYERS];
  char label[40];
  int L = m->layers, checked = 0;
  for (int l = 0; l < L; l++) wt[l] = gr[l] = act[l] = -1;
  lab_pool_walk_snap(&w->pw, "start");
  for (int l = 0; l < L; l++)
    if (take(w, m->weight_bytes, "weights", &wt[l])) goto done;
  lab_pool_walk_snap(&w->pw, "weights");
  if (w->pw.dev->check) {
    uint64_t n = m->weight_bytes < (4u << 20) ? m->weight_bytes : (4u << 20);
    if (w->pw.dev->check(w->pw.dev->ctx, lab_pool_walk_addr(&w->pw, wt[0]), n, 0, &m->max_abs_err) == 0) checked = 1;
  }
  for (int s = 1; s <= m->steps; s++) {
    int calls0 = a->reserve_calls;
    snprintf(label, sizeof label, "step %d forward", s);
    for (int l = 0; l < L; l++) {
      if (take(w, m->act_bytes, label, &act[l])) goto done;
      lab_pool_walk_snap(&w->pw, label);
    }
    snprintf(label, sizeof label, "step %d backward", s);
    for (int l = L - 1; l >= 0; l--) {
      if (s == 1 && take(w, m->weight_bytes, label, &gr[l])) goto done;
      lab_pool_free(a, act[l]);
      act[l] = -1;
      lab_pool_walk_snap(&w->pw, label);
    }
    if (s == 1) m->calls_first_step = a->reserve_calls - calls0;
    else m->calls_later_steps += a->reserve_calls - calls0;
  }
  m->before_empty = m->n_points - 1;
  lab_pool_empty_cache(a);
  lab_pool_walk_snap(&w->pw, "empty_cache()");
  m->after_empty = m->n_points - 1;
  if (checked) {
    uint64_t n = m->weight_bytes < (4u << 20) ? m->weight_bytes : (4u << 20);
    double err = 0;
    if (w->pw.dev->check(w->pw.dev->ctx, lab_pool_walk_addr(&w->pw, wt[0]), n, 1, &err) == 0) {
      m->max_abs_err = err;
      m->validated = err == 0;
    }
  }
done:
  m->peak_allocated = a->peak_allocated_bytes;
  m->peak_reserved = a->peak_reserved_bytes;
  lab_pool_release_all(a);
  lab_pool_walk_snap(&w->pw, "everything freed");
}

static void free_stats(const lab_pool *a, uint64_t *largest, int *pieces) {
  *largest = 0;
  *pieces = 0;
  for (int i = 0; i < LAB_POOL_MAX_BLOCKS; i++) {
    const lab_pool_block *b = &a->blk[i];
    if (!b->live || b->used) continue;
    (*pieces)++;
    if (b->size > *largest) *largest = b->size;
  }
}

/* (4): n equal blocks, every other one freed, then a request one block
 * bigger than the largest hole. */
static void frag_walk(walk *w, const lab_params *p) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  lab_alloc_frag *f = &w->m->frag;
  lab_pool *a = w->pw.pool;
  int ids[LAB_ALLOC_MAX_FRAG], big = -1;
  f->block_bytes = (mib_bytes(tp.frag_mib) + LAB_POOL_ROUND - 1) / LAB_POOL_ROUND * LAB_POOL_ROUND;
  f->n_blocks = (int)tp.frag_blocks;
  for (int i = 0; i < f->n_blocks; i++) ids[i] = -1;
  for (int i = 0; i < f->n_blocks; i++)
    if (take(w, f->block_bytes, "fragmentation blocks", &ids[i])) goto done;
  for (int i = 0; i < f->n_blocks; i += 2) {
    lab_pool_free(a, ids[i]);
    ids[i] = -1;
    f->n_free++;
  }
  f->reserved_before = a->reserved_bytes;
  f->free_in_cache = a->reserved_bytes - a->allocated_bytes;
  free_stats(a, &f->largest_free, &f->free_pieces);
  f->request_bytes = f->largest_free + f->block_bytes;
  int calls0 = a->reserve_calls;
  if (take(w, f->request_bytes, "fragmentation request", &big)) goto done;
  f->new_segments = a->reserve_calls - calls0;
  f->reserved_after = a->reserved_bytes;
  lab_pool_empty_cache(a);
  f->reserved_after_empty = a->reserved_bytes;
  f->allocated_after_empty = a->allocated_bytes;
done:
  lab_pool_release_all(a);
}

/* limit 0: no limit (the check's bookkeeping-only run measures the peak). */
static int walk_limited(const lab_params *p, const lab_pool_device *dev, lab_allocator_measure *m, uint64_t limit,
                        lab_error *err) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  lab_pool *pool = malloc(sizeof *pool);
  if (!pool) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  m->layers = (int)tp.layers;
  m->steps = (int)tp.steps;
  m->weight_bytes = mib_bytes(tp.weight_mib);
  m->act_bytes = mib_bytes(tp.act_mib);
  m->n_points = 0;
  m->validated = -1;
  uint64_t free_b = 0, total_b = 0;
  dev->info(dev->ctx, &free_b, &total_b);
  walk w = {.pw = {.pool = pool, .dev = dev, .snaps = m->pt, .n_snaps = &m->n_points, .cap = LAB_ALLOC_MAX_POINTS},
            .m = m};
  lab_pool_init(pool, dev->be, limit);
  train_walk(&w);
  if (!m->oom) {
    lab_pool_init(pool, dev->be, limit);
    frag_walk(&w, p);
  }
  free(pool);
  return 0;
}

int lab_allocator_walk(const lab_params *p, const lab_pool_device *dev, lab_allocator_measure *m, lab_error *err) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  return walk_limited(p, dev, m, (uint64_t)(tp.limit_gib * GIB), err);
}

/* ---- the bookkeeping-only device (for the limit check) ------------------ */

typedef struct ledger {
  uintptr_t next;
} ledger;

static int ledger_reserve(void *ctx, uint64_t bytes, uintptr_t *addr) {
  ledger *l = ctx;
  *addr = l->next;
  l->next += bytes;
  return 0;
}
static void ledger_release(void *ctx, uintptr_t addr, uint64_t bytes) { (void)ctx, (void)addr, (void)bytes; }
static int ledger_info(void *ctx, uint64_t *free_bytes, uint64_t *total_bytes) {
  (void)ctx;
  *free_bytes = *total_bytes = 1ull << 40;
  return 0;
}

int lab_allocator_check(const lab_params *p, lab_error *err) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  double limit = tp.limit_gib;
  uint64_t limit_b = (uint64_t)(limit * GIB);
  if (mib_bytes((double)tp.block_mib) > limit_b)
    return lab_fail(err, LAB_E_INVALID_PARAM, "block_mib",
                    "block_mib %.0f is above limit_gib %.2g GiB; use a smaller block or raise limit_gib (at most 8)",
                    (double)tp.block_mib, limit);
  lab_allocator_measure *m = calloc(1, sizeof *m);
  if (!m) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  ledger l = {.next = 1u << 21};
  lab_pool_device dev = {.be = {.ctx = &l, .reserve = ledger_reserve, .release = ledger_release},
                          .ctx = &l, .info = ledger_info, .check = NULL};
  int rc = walk_limited(p, &dev, m, 0, err);
  if (rc == 0) {
    /* The walk without a limit (the ledger never refuses): its peak is the most it needs. */
    uint64_t peak = m->peak_reserved > m->frag.reserved_after ? m->peak_reserved : m->frag.reserved_after;
    if (m->oom)
      rc = lab_fail(err, LAB_E_INVALID_PARAM, "layers",
                    "the allocator's tables cannot hold this many tensors; use fewer layers or steps");
    else if (peak > limit_b) {
      const char *what = m->peak_reserved >= m->frag.reserved_after ? "weight_mib" : "frag_mib";
      rc = lab_fail(err, LAB_E_INVALID_PARAM, what,
                    "this run would reserve %.0f MiB, above limit_gib %.2g GiB; use smaller weight_mib, act_mib, "
                    "layers or frag_mib/frag_blocks, or raise limit_gib (at most 8)",
                    to_mib(peak), limit);
    }
  }
  free(m);
  return rc;
}

/* ---- envelope ---------------------------------------------------------- */

void lab_allocator_summarize(lab_allocator_measure *m) {
  lab_summary s;
  lab_summarize(m->malloc_us, (size_t)m->cycles, &s);
  m->malloc_med_us = s.median;
  m->malloc_iqr_pct = s.iqr_pct;
  lab_summarize(m->free_us, (size_t)m->cycles, &s);
  m->free_med_us = s.median;
  lab_summarize(m->cache_us, (size_t)m->cycles, &s);
  m->cache_med_us = s.median;
  m->cache_iqr_pct = s.iqr_pct;
  lab_summarize(m->free_busy_us, (size_t)m->busy_samples, &s);
  m->free_busy_med_us = s.median;
}

static void add_metrics(cJSON *env, const lab_allocator_measure *m) {
  double pair = m->malloc_med_us + m->free_med_us;
  lab_env_metric(env, "block_bytes", (double)m->timing_bytes);
  lab_env_metric(env, "cuda_malloc_us", m->malloc_med_us);
  lab_env_metric(env, "cuda_free_us", m->free_med_us);
  lab_env_metric(env, "cuda_free_busy_us", m->free_busy_med_us);
  lab_env_metric(env, "busy_kernel_us", LAB_ALLOC_BUSY_US);
  lab_env_metric(env, "cache_alloc_free_us", m->cache_med_us);
  lab_env_metric(env, "cache_speedup", m->cache_med_us > 0 ? pair / m->cache_med_us : 0);
  lab_env_metric(env, "cache_iqr_pct", m->cache_iqr_pct);
  lab_env_metric(env, "peak_allocated_bytes", (double)m->peak_allocated);
  lab_env_metric(env, "peak_reserved_bytes", (double)m->peak_reserved);
  lab_env_metric(env, "cuda_malloc_calls_step1", m->calls_first_step);
  lab_env_metric(env, "cuda_malloc_calls_later_steps", m->calls_later_steps);
  if (!m->oom) {
    const lab_pool_snap *b = &m->pt[m->before_empty], *e = &m->pt[m->after_empty];
    lab_env_metric(env, "before_empty_allocated_bytes", (double)b->allocated);
    lab_env_metric(env, "before_empty_reserved_bytes", (double)b->reserved);
    lab_env_metric(env, "before_empty_device_used_bytes", (double)b->device_used);
    lab_env_metric(env, "after_empty_allocated_bytes", (double)e->allocated);
    lab_env_metric(env, "after_empty_reserved_bytes", (double)e->reserved);
    lab_env_metric(env, "after_empty_device_used_bytes", (double)e->device_used);
    lab_env_metric(env, "empty_cache_released_bytes", (double)(b->reserved - e->reserved));
    const lab_alloc_frag *f = &m->frag;
    lab_env_metric(env, "frag_block_bytes", (double)f->block_bytes);
    lab_env_metric(env, "frag_free_in_cache_bytes", (double)f->free_in_cache);
    lab_env_metric(env, "frag_largest_free_bytes", (double)f->largest_free);
    lab_env_metric(env, "frag_free_pieces", f->free_pieces);
    lab_env_metric(env, "frag_request_bytes", (double)f->request_bytes);
    lab_env_metric(env, "frag_reserved_before_bytes", (double)f->reserved_before);
    lab_env_metric(env, "frag_reserved_after_bytes", (double)f->reserved_after);
    lab_env_metric(env, "frag_new_segments", f->new_segments);
    lab_env_metric(env, "frag_reserved_after_empty_bytes", (double)f->reserved_after_empty);
    lab_env_metric(env, "frag_allocated_after_empty_bytes", (double)f->allocated_after_empty);
  }
}

static void add_series(cJSON *env, const lab_allocator_measure *m) {
  cJSON *al = lab_env_series(env, "allocated", "allocated (live tensors)", "event", "MiB");
  cJSON *re = lab_env_series(env, "reserved", "reserved (the cache's segments)", "event", "MiB");
  cJSON *du = lab_env_series(env, "device_used", "used on the device, as nvidia-smi shows it (CUDA context included)",
                             "event", "MiB");
  cJSON *pts = cJSON_AddArrayToObject(lab_env_details(env), "events");
  for (int i = 0; i < m->n_points; i++) {
    const lab_pool_snap *p = &m->pt[i];
    lab_series_point(al, i, to_mib(p->allocated));
    lab_series_point(re, i, to_mib(p->reserved));
    lab_series_point(du, i, to_mib(p->device_used));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "label", p->label);
    cJSON_AddNumberToObject(o, "cuda_malloc_calls", p->reserve_calls);
    cJSON_AddItemToArray(pts, o);
  }
  cJSON *ma = lab_env_series(env, "cuda_malloc", "cudaMalloc", "cycle", "µs");
  cJSON *fr = lab_env_series(env, "cuda_free", "cudaFree", "cycle", "µs");
  cJSON *ca = lab_env_series(env, "cache", "cache: allocate + free", "cycle", "µs");
  for (int i = 0; i < m->cycles; i++) {
    lab_series_point(ma, i + 1, m->malloc_us[i]);
    lab_series_point(fr, i + 1, m->free_us[i]);
    lab_series_point(ca, i + 1, m->cache_us[i]);
  }
}

static void add_findings(cJSON *env, const lab_allocator_measure *m) {
  double pair = m->malloc_med_us + m->free_med_us;
  lab_env_finding(env, "cudaMalloc of a %s block took %.1f µs and cudaFree %.1f µs (medians of %d cycles); "
                  "taking a cached block and giving it back took %.2f µs, %.0f× less — which is why PyTorch keeps "
                  "freed memory instead of returning it.",
                  LAB_IEC(m->timing_bytes), m->malloc_med_us, m->free_med_us, m->cycles, m->cache_med_us,
                  m->cache_med_us > 0 ? pair / m->cache_med_us : 0);
  lab_env_finding(env, "cudaFree synchronizes the device: with a %.0f µs kernel still running it took %.0f µs, "
                  "%.0f× its idle cost. A cached free returns at once; the block is reused in stream order.",
                  LAB_ALLOC_BUSY_US, m->free_busy_med_us, m->free_med_us > 0 ? m->free_busy_med_us / m->free_med_us : 0);
  if (m->oom) {
    lab_env_finding(env, "The GPU ran out of memory at \"%s\" asking for %s; everything taken was given back. "
                    "Use smaller layers or run when the GPU is less busy.",
                    m->oom_where, LAB_IEC(m->oom_request));
    return;
  }
  const lab_pool_snap *b = &m->pt[m->before_empty], *e = &m->pt[m->after_empty];
  /* The swing of the last step: allocated moves, reserved holds. */
  uint64_t lo = UINT64_MAX, hi = 0, res = 0;
  for (int i = 0; i < m->n_points; i++) {
    int st = 0;
    if (sscanf(m->pt[i].label, "step %d", &st) != 1 || st != m->steps) continue;
    const lab_pool_snap *q = &m->pt[i];
    lo = q->allocated < lo ? q->allocated : lo;
    hi = q->allocated > hi ? q->allocated : hi;
    res = q->reserved > res ? q->reserved : res;
  }
  lab_env_finding(env, "Over %d step%s cudaMalloc was called %d times in step 1 and %d times after it: %s In step %d "
                  "allocated swung between %s and %s while reserved held at %s: freed memory stays "
                  "reserved, ready for the next step.",
                  m->steps, m->steps == 1 ? "" : "s", m->calls_first_step, m->calls_later_steps,
                  m->steps == 1 ? "with one step, every block is new."
                  : m->calls_later_steps == 0
                      ? "later steps reuse the cached blocks."
                      : "cached blocks had been split for other tensors, so some later requests "
                        "found no piece big enough.",
                  m->steps, LAB_IEC(lo == UINT64_MAX ? 0 : lo), LAB_IEC(hi), LAB_IEC(res));
  if (m->n_points > 0)
    lab_env_finding(env, "Before the first tensor, nvidia-smi would already show %s in use: the CUDA context "
                    "(kernels, libraries, bookkeeping). No PyTorch counter includes it; nvidia-smi always does.",
                    LAB_IEC(m->pt[0].device_used));
  if (b->reserved > e->reserved)
    lab_env_finding(env, "empty_cache() gave back %s: reserved fell from %s to %s and the driver's used memory "
                    "from %s to %s. The %s still allocated (weights and gradients) stayed%s.",
                    LAB_IEC(b->reserved - e->reserved), LAB_IEC(b->reserved), LAB_IEC(e->reserved),
                    LAB_IEC(b->device_used), LAB_IEC(e->device_used), LAB_IEC(e->allocated),
                    m->validated == 1 ? ", their contents unchanged (read back and compared)" : "");
  else
    lab_env_finding(env, "empty_cache() gave nothing back: every reserved segment (%s) still held a live tensor, "
                    "the %s still allocated (weights and gradients)%s.",
                    LAB_IEC(e->reserved), LAB_IEC(e->allocated),
                    m->validated == 1 ? ", their contents unchanged (read back and compared)" : "");
  const lab_alloc_frag *f = &m->frag;
  if (f->new_segments > 0 && f->free_in_cache >= f->request_bytes)
    lab_env_finding(env, "Fragmentation: after freeing every other %s block the cache held %s free in %d "
                    "pieces, the largest %s; a request for %s fits in none of them, so reserved grew from "
                    "%s to %s although the free total would have sufficed.",
                    LAB_IEC(f->block_bytes), LAB_IEC(f->free_in_cache), f->free_pieces, LAB_IEC(f->largest_free),
                    LAB_IEC(f->request_bytes), LAB_IEC(f->reserved_before), LAB_IEC(f->reserved_after));
  else
    lab_env_finding(env, "Fragmentation: after freeing every other %s block the cache held %s free, the "
                    "largest piece %s; the request for %s needed %d new segment%s (reserved %s → %s).",
                    LAB_IEC(f->block_bytes), LAB_IEC(f->free_in_cache), LAB_IEC(f->largest_free),
                    LAB_IEC(f->request_bytes), f->new_segments, f->new_segments == 1 ? "" : "s",
                    LAB_IEC(f->reserved_before), LAB_IEC(f->reserved_after));
  if (f->reserved_after_empty > f->allocated_after_empty)
    lab_env_finding(env, "empty_cache() cannot return a segment that still holds a live block: after it, %s "
                    "stayed reserved for %s allocated.",
                    LAB_IEC(f->reserved_after_empty), LAB_IEC(f->allocated_after_empty));
  else
    lab_env_finding(env, "Here every freed block was a whole segment, so empty_cache() returned all of them: "
                    "%s stayed reserved for %s allocated.",
                    LAB_IEC(f->reserved_after_empty), LAB_IEC(f->allocated_after_empty));
}

cJSON *lab_allocator_envelope(const lab_params *p, const lab_allocator_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("allocator", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  add_metrics(env, m);
  add_series(env, m);
  add_findings(env, m);
  if (!strcmp(backend, "simulated"))
    lab_env_stats(env, m->cycles, m->warmup, "cuda_malloc_us", m->malloc_iqr_pct,
                  "Simulated. Driver calls are modelled from the profile: cudaMalloc costs malloc_us (about 50 µs "
                  "up to 512 KiB, as published) plus malloc_us_per_mib for each further MiB mapped; cudaFree a "
                  "synchronize, a launch and free_us_per_mib per MiB unmapped, plus whatever work is still queued; a "
                  "cache hit is host bookkeeping only (cache_pair_us per allocate + free); ±8-10% jitter per call. "
                  "The memory walk runs the real caching-allocator bookkeeping against the profile's memory. Medians "
                  "of the cycles.");
  else
    lab_env_stats(env, m->cycles, m->warmup, "cuda_malloc_us", m->malloc_iqr_pct,
                  "Host clock (CLOCK_MONOTONIC) around each cudaMalloc and each cudaFree of the block, device idle; "
                  "cudaFree while busy is timed with a 500 µs kernel queued just before; cache hits are 64 "
                  "allocate + free pairs on a warm pool timed together and divided. The walk's memory figures are "
                  "the allocator's counters and cudaMemGetInfo after a synchronize. Medians of the cycles.");
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* ---- simulator --------------------------------------------------------- */

/* Driver calls on the profile's figures (lab/sim/profiles_data.c has their
 * sources): cudaMalloc costs malloc_us up to 512 KiB (a published
 * measurement) plus malloc_us_per_mib for each further MiB mapped;
 * cudaFree a synchronize, a launch and free_us_per_mib per MiB unmapped; a
 * cache hit is host bookkeeping only (cache_pair_us per allocate + free). */
#define MIB_FREE_OF_MAPPING 0.5 /* MiB a cudaMalloc covers at its fixed cost (512 KiB) */

/* cudaMalloc of `bytes` on the profile (µs, no jitter). */
static double malloc_cost_us(const lab_profile *prof, double bytes) {
  double extra = bytes / MIB - MIB_FREE_OF_MAPPING;
  return prof->malloc_us + (extra > 0 ? extra * prof->malloc_us_per_mib : 0);
}

static void sim_timing(const lab_profile *prof, lab_allocator_measure *m, lab_rng *r) {
  double malloc_us = malloc_cost_us(prof, (double)m->timing_bytes);
  double free_us = prof->sync_us + prof->launch_us + (double)m->timing_bytes / MIB * prof->free_us_per_mib;
  for (int i = 0; i < m->cycles; i++) {
    m->malloc_us[i] = malloc_us * lab_rng_jitter(r, 8);
    m->free_us[i] = free_us * lab_rng_jitter(r, 8);
    m->cache_us[i] = prof->cache_pair_us * lab_rng_jitter(r, 10);
  }
  /* The kernel started after its launch; cudaFree waits for what is left of it. */
  for (int i = 0; i < m->busy_samples; i++)
    m->free_busy_us[i] = LAB_ALLOC_BUSY_US - prof->launch_us * lab_rng_jitter(r, 8) + free_us * lab_rng_jitter(r, 8);
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  *out = NULL;
  lab_allocator_measure *m = calloc(1, sizeof *m);
  if (!m) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  m->timing_bytes = mib_bytes((double)tp.block_mib);
  m->cycles = (int)tp.cycles;
  m->warmup = LAB_ALLOC_WARMUP;
  m->busy_samples = LAB_ALLOC_BUSY_SAMPLES;
  lab_rng r;
  lab_rng_seed(&r, 0xa11cu ^ (m->timing_bytes << 4) ^ (uint64_t)m->cycles);
  sim_timing(prof, m, &r);
  lab_allocator_summarize(m);
  lab_sim_mem mem;
  lab_sim_mem_init(&mem, prof);
  lab_pool_device dev = lab_sim_mem_device(&mem);
  int rc = lab_allocator_walk(p, &dev, m, err);
  if (rc == 0) {
    m->validated = -1;
    *out = lab_allocator_envelope(p, m, "simulated", prof->device_name, prof);
    if (!*out) rc = lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  free(m);
  return rc;
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  *param = "limit_gib"; /* lab_allocator_check keeps the timing block and the walk under it */
  return tp.limit_gib * 1073741824.0;
}

/* CPU cost (lab_experiment_cpu_ms): the simulated caching allocator per
 * cycle and step; 1.3 ms measured at 1000 cycles × 10 steps
 * (bench/cpu_cost): 0.2 µs each over the 1 ms floor. */
LAB_CPU_MS(allocator);

LAB_CPU_MS(allocator) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  *param = "cycles";
  return 1.0 + 2e-4 * (double)tp.cycles * (double)tp.steps;
}

const lab_experiment lab_exp_allocator = {
    .name = "allocator",
    .title = "PyTorch's caching allocator, made visible",
    .summary = "What cudaMalloc and cudaFree cost against a cached block, allocated vs reserved over training steps, "
               "what empty_cache() gives back, and fragmentation.",
    .lesson = "02-cuda-toolbox",
    .params = lab_params_allocator_spec,
    .n_params = LAB_PARAMS_COUNT(allocator),
    .check = lab_allocator_check,
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
