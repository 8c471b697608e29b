/* The memory lesson's portable half: the 16 bytes/param floor plus an
 * activation estimate, the allocation walk through the caching allocator
 * (the GPU run and the simulator call the same walk with different device
 * callbacks), the envelope with the fixes for an OOM, and the simulator. */
#include "memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "pool_walk.h"
#include "sim_mem.h"
#include "units.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)
#define MAX_TENSORS_PER_TERM 64 /* layers beyond this share a tensor: keeps the allocator's tables small */
#define OVER_ASK_BYTES (64ull << 20) /* the deliberate OOM asks this much more than is left */

LAB_PARAMS_DEFINE(memory)

void lab_memory_budget(double params, long batch, long seq, long hidden, long layers, lab_mem_budget *out) {
  memset(out, 0, sizeof *out);
  out->params = params;
  out->weights = (uint64_t)(params * 4.0);
  out->gradients = (uint64_t)(params * 4.0);
  out->optimizer = (uint64_t)(params * 8.0);
  out->activations = (uint64_t)((double)batch * (double)seq * (double)hidden * (double)layers * LAB_MEM_ACT_VALUES *
                                 LAB_MEM_ACT_BYTES);
  out->total = out->weights + out->gradients + out->optimizer + out->activations;
}

long lab_memory_max_batch(double params, long seq, long hidden, long layers, uint64_t usable) {
  lab_mem_budget b;
  lab_memory_budget(params, 1, seq, hidden, layers, &b);
  uint64_t floor_b = b.total - b.activations;
  if (floor_b >= usable || b.activations == 0) return 0;
  double n = floor((double)(usable - floor_b) / (double)b.activations);
  return n > (double)(1L << 20) ? 1L << 20 : (long)n;
}

/* ---- the walk ---------------------------------------------------------- */

typedef struct walk {
  lab_pool_walk pw;
  lab_memory_measure *m;
} walk;

/* Allocates `total` bytes as n tensors (one per layer, or per group of
 * layers); the ids go to ids[0..n). Returns 0, or -1 on an out-of-memory. */
static int alloc_term(walk *w, const char *label, uint64_t total, int n, int *ids) {
  for (int i = 0; i < n; i++) ids[i] = -1;
  uint64_t each = total / (uint64_t)n;
  for (int i = 0; i < n; i++) {
    uint64_t bytes = i == n - 1 ? total - each * (uint64_t)(n - 1) : each;
    if (lab_pool_walk_take(&w->pw, bytes, &ids[i]) != 0) {
      lab_memory_measure *m = w->m;
      m->oom = 1;
      m->oom_kind = w->pw.pool->last_oom;
      m->oom_step = label;
      m->oom_request = bytes;
      m->oom_tensors = n;
      m->oom_allocated = w->pw.pool->allocated_bytes;
      m->oom_reserved = w->pw.pool->reserved_bytes;
      lab_pool_walk_snap(&w->pw, label);
      return -1;
    }
  }
  lab_pool_walk_snap(&w->pw, label);
  return 0;
}

/* The walk under a limit of `limit` bytes reserved (0: none but the
 * device's own memory). */
static void walk_under(const lab_params *p, lab_pool *pool, const lab_pool_device *dev, lab_memory_measure *m,
                       uint64_t limit) {
  const lab_params_memory tp = lab_params_memory_of(p);
  static const char *const labels[] = {"start", "weights", "gradients", "Adam moments", "forward: activations",
                                       "backward: activations freed", "empty_cache()",
                                       "deliberate OOM: 64 MiB more than is left", "everything freed"};
  memset(m, 0, sizeof *m);
  long layers = tp.layers;
  lab_memory_budget(tp.params_m * 1e6, tp.batch, tp.seq_len,
                    tp.hidden, layers, &m->budget);
  m->limit_bytes = limit;
  lab_pool_init(pool, dev->be, m->limit_bytes);
  uint64_t free_b = 0, total_b = 0;
  dev->info(dev->ctx, &free_b, &total_b);
  m->capacity_bytes = total_b;
  m->free_before_bytes = free_b;
  walk w = {.pw = {.pool = pool, .dev = dev, .snaps = m->steps, .n_snaps = &m->n_steps, .cap = LAB_MEM_MAX_STEPS},
            .m = m};
  lab_pool_walk_snap(&w.pw, labels[0]);

  int n = layers < MAX_TENSORS_PER_TERM ? (int)layers : MAX_TENSORS_PER_TERM;
  /* Adam keeps m and v for every parameter tensor: 2n tensors in one step. */
  int ids[4][2 * MAX_TENSORS_PER_TERM];
  const uint64_t term[4] = {m->budget.weights, m->budget.gradients, m->budget.optimizer, m->budget.activations};
  const int count[4] = {n, n, 2 * n, n};
  int ok = 1;
  for (int t = 0; t < 4 && ok; t++) ok = alloc_term(&w, labels[1 + t], term[t], count[t], ids[t]) == 0;
  if (ok) {
    for (int i = 0; i < n; i++) lab_pool_free(pool, ids[3][i]);
    lab_pool_walk_snap(&w.pw, labels[5]);
    lab_pool_empty_cache(pool);
    lab_pool_walk_snap(&w.pw, labels[6]);
    if (tp.force_oom) {
      /* what is left under the cap, or (uncapped) of the device's free memory */
      uint64_t left = pool->limit_bytes > pool->reserved_bytes ? pool->limit_bytes - pool->reserved_bytes : 0;
      if (!pool->limit_bytes) dev->info(dev->ctx, &left, &total_b);
      int id = -1;
      ok = alloc_term(&w, labels[7], left + OVER_ASK_BYTES, 1, &id) == 0;
      if (ok) lab_pool_free(pool, id); /* cannot happen under the limit; freed all the same */
      m->deliberate = 1;
    }
  }
  m->peak_allocated = pool->peak_allocated_bytes;
  m->peak_reserved = pool->peak_reserved_bytes;
  lab_pool_release_all(pool);
  m->reserve_calls = pool->reserve_calls;
  m->release_calls = pool->release_calls;
  lab_pool_walk_snap(&w.pw, labels[8]);
  dev->info(dev->ctx, &free_b, &total_b);
  m->free_after_bytes = free_b;
}

void lab_memory_walk(const lab_params *p, lab_pool *pool, const lab_pool_device *dev, lab_memory_measure *m) {
  walk_under(p, pool, dev, m, (uint64_t)(lab_params_memory_of(p).budget_gib * GIB));
}

/* ---- envelope ---------------------------------------------------------- */

/* Memory is binary: GiB and MiB throughout (1 GiB = 2^30 bytes). */
static double gib(uint64_t b) { return (double)b / GIB; }
static double mib(uint64_t b) { return (double)b / MIB; }

/* One verdict per run: the step must fit under the lower of the learner's
 * budget_gib cap and what the device has free; which one it is, says why. */
typedef struct verdict {
  uint64_t limit;  /* bytes the step may use */
  bool by_budget;  /* the budget_gib cap is the lower limit (else the device) */
  bool fits;       /* the whole step (floor + activations) fits under limit */
  bool floor_fits; /* weights, gradients and Adam's moments alone fit */
  long max_batch;  /* the largest batch that fits under limit (0: none) */
} verdict;

static verdict judge(const lab_params *p, const lab_memory_measure *m) {
  const lab_params_memory tp = lab_params_memory_of(p);
  const lab_mem_budget *b = &m->budget;
  verdict v;
  uint64_t usable = m->free_before_bytes;
  v.by_budget = m->limit_bytes && m->limit_bytes <= usable;
  v.limit = v.by_budget ? m->limit_bytes : usable;
  v.fits = b->total <= v.limit;
  v.floor_fits = b->weights + b->gradients + b->optimizer <= v.limit;
  v.max_batch = lab_memory_max_batch(b->params, tp.seq_len, tp.hidden,
                                     tp.layers, v.limit);
  return v;
}

static const char *limit_name(const verdict *v) {
  return v->by_budget ? "the run's budget_gib cap" : "the memory free on the device";
}

/* Free memory came back: everything the walk took was returned. A shared
 * GPU's other processes may move it a little, hence the 4 MiB slack. */
static int restored(const lab_memory_measure *m) { return m->free_after_bytes + (4ull << 20) >= m->free_before_bytes; }

static const char *oom_kind_name(lab_pool_oom k) {
  switch (k) {
    case LAB_POOL_OOM_LIMIT: return "allocator_limit";
    case LAB_POOL_OOM_DEVICE: return "device";
    case LAB_POOL_OOM_TABLE: return "allocator_table";
    case LAB_POOL_OK: break;
  }
  return "none";
}

/* The fixes that follow from this run's numbers: no batch advice when the
 * floor alone is over the limit, the batch that would fit when it is not,
 * and what raising the budget or bf16 activations would change. */
static void add_fixes(cJSON *oom, const lab_params *p, const lab_memory_measure *m, const verdict *v) {
  const lab_params_memory tp = lab_params_memory_of(p);
  cJSON *fx = cJSON_AddArrayToObject(oom, "fixes");
  char buf[480];
  const lab_mem_budget *b = &m->budget;
  long batch = tp.batch, seq = tp.seq_len;
  uint64_t floor_b = b->weights + b->gradients + b->optimizer, usable = m->free_before_bytes;
  char adv[320], other[400];
#define FIX(...) (snprintf(buf, sizeof buf, __VA_ARGS__), cJSON_AddItemToArray(fx, cJSON_CreateString(buf)))
  /* Advice about a parameter only within its bounds, else `other` (lab_advise_param). */
#define ADVISE(name, value) \
  (lab_advise_param(buf, sizeof buf, p, name, value, adv, other), cJSON_AddItemToArray(fx, cJSON_CreateString(buf)))
  if (m->deliberate)
    FIX("Nothing to fix in this model: the step needs %s of its %s limit, and this out-of-memory was "
        "asked for (force_oom). In a real run the same error lists what was allocated and reserved, as here.",
        LAB_IEC(b->total), LAB_IEC(v->limit));
  if (!m->deliberate && !v->floor_fits) {
    FIX("The floor alone (%s: 16 bytes per parameter) is over %s (%s), so no batch size can help.",
        LAB_IEC(floor_b), limit_name(v), LAB_IEC(v->limit));
    snprintf(adv, sizeof adv, "Use a smaller model: lower %%s million parameters or less, which leaves room "
             "under %s before any activation.", LAB_IEC(v->limit));
    snprintf(other, sizeof other, "Even the smallest model this run takes does not fit under %s: %s.",
             LAB_IEC(v->limit), v->by_budget ? "raise budget_gib or free memory on the device"
                                             : "run it on a GPU with more memory free");
    ADVISE("params_m", floor((double)v->limit / 16.0 / 1e5) / 10);
    FIX("Keep less per parameter: an 8-bit Adam keeps its two moments in 2 bytes instead of 8 (floor %s); "
        "sharding the optimizer state across GPUs (ZeRO) splits it between them.",
        LAB_IEC(b->weights + b->gradients + b->optimizer / 4));
  }
  if (!m->deliberate && v->floor_fits && !v->fits) {
    if (v->max_batch >= 1 && batch > 1) {
      uint64_t act = (uint64_t)((double)b->activations * (double)v->max_batch / (double)batch);
      FIX("Smaller batch: %ld instead of %ld fits (activations %s → %s).", v->max_batch, batch,
          LAB_IEC(b->activations), LAB_IEC(act));
      FIX("Gradient accumulation: micro-batches of %ld, their gradients added before one optimizer step, train "
          "like a batch of %ld with the activations of %ld.",
          v->max_batch, batch, v->max_batch);
    }
    if (seq > 1) {
      double room = (double)(v->limit - floor_b) / (double)b->activations * (double)seq;
      long fit_seq = room >= 1 ? (long)room : 0;
      if (fit_seq >= 1 && fit_seq < seq)
        FIX("Shorter sequences: up to %ld tokens instead of %ld fit at batch %ld.", fit_seq, seq, batch);
    }
    uint64_t half = floor_b + b->activations / 2;
    FIX("Mixed precision: activations in bf16 take 2 bytes instead of 4, so the step would need %s: it %s "
        "under %s.",
        LAB_IEC(half), half <= v->limit ? "would fit" : "would still not fit", LAB_IEC(v->limit));
  }
  if (!m->deliberate && v->by_budget && b->total <= usable) {
    snprintf(adv, sizeof adv, "Or raise %%s GiB or more: the device has %s free, enough for the whole step.",
             LAB_IEC(usable));
    snprintf(other, sizeof other,
             "The device has %s free, enough for the whole step (%s), but budget_gib stops at its most (%s): "
             "on a shared GPU make the step smaller as above; on a GPU of your own the step fits outside gpulab's cap.",
             LAB_IEC(usable), LAB_IEC(b->total), LAB_IEC(p->spec[lab_param_index(p, "budget_gib")].max * GIB));
    ADVISE("budget_gib", ceil(gib(b->total) * 8) / 8);
  }
#undef ADVISE
#undef FIX
}

static void add_series(cJSON *env, const lab_params *p, const lab_memory_measure *m, const verdict *v) {
  const lab_params_memory tp = lab_params_memory_of(p);
  long seq = tp.seq_len, hidden = tp.hidden, layers = tp.layers;
  long batch = tp.batch;
  double params = tp.params_m * 1e6;
  cJSON *w = lab_env_series(env, "weights", "weights (fp32, 4 B/param)", "batch", "GiB");
  cJSON *g = lab_env_series(env, "gradients", "gradients (fp32, 4 B/param)", "batch", "GiB");
  cJSON *o = lab_env_series(env, "optimizer", "Adam m + v (fp32, 8 B/param)", "batch", "GiB");
  cJSON *a = lab_env_series(env, "activations", "activations (estimate)", "batch", "GiB");
  /* The GPU's own free memory is always the capacity line; a real run
   * capped lower by budget_gib draws that cap as a second line (limit), so
   * the chart answers both "does it fit this GPU" and "this run". */
  cJSON *c = lab_env_series(env, "capacity", "free device memory", "batch", "GiB");
  cJSON *l = v->by_budget ? lab_env_series(env, "limit", "the run's limit (budget_gib)", "batch", "GiB") : NULL;
  /* Powers of two up to 4096 with the learner's batch in its place: the
   * stacked terms against the capacity line show where the OOM begins. */
  long xs[16];
  int n = 0;
  for (long b = 1; b <= 4096 && n < 15; b *= 2) {
    if (batch < b && (n == 0 || xs[n - 1] < batch)) xs[n++] = batch;
    xs[n++] = b;
  }
  if (batch > xs[n - 1]) xs[n++] = batch;
  for (int i = 0; i < n; i++) {
    if (i > 0 && xs[i] == xs[i - 1]) continue;
    lab_mem_budget b;
    lab_memory_budget(params, xs[i], seq, hidden, layers, &b);
    lab_series_point(w, (double)xs[i], gib(b.weights));
    lab_series_point(g, (double)xs[i], gib(b.gradients));
    lab_series_point(o, (double)xs[i], gib(b.optimizer));
    lab_series_point(a, (double)xs[i], gib(b.activations));
    lab_series_point(c, (double)xs[i], gib(m->free_before_bytes));
    if (l) lab_series_point(l, (double)xs[i], gib(v->limit));
  }
  cJSON *al = lab_env_series(env, "allocated", "allocated (tensors)", "step", "MiB");
  cJSON *re = lab_env_series(env, "reserved", "reserved (allocator's segments)", "step", "MiB");
  cJSON *du = lab_env_series(env, "device_used", "used on the device, as nvidia-smi shows it (CUDA context included)",
                             "step", "MiB");
  for (int i = 0; i < m->n_steps; i++) {
    lab_series_point(al, i, mib(m->steps[i].allocated));
    lab_series_point(re, i, mib(m->steps[i].reserved));
    lab_series_point(du, i, mib(m->steps[i].device_used));
  }
}

static void add_details(cJSON *env, const lab_params *p, const lab_memory_measure *m, const verdict *v) {
  cJSON *d = lab_env_details(env);
  cJSON *terms = cJSON_AddArrayToObject(d, "terms");
  const struct { const char *id, *label; uint64_t bytes; double per_param; } t[] = {
      {"weights", "weights (fp32)", m->budget.weights, 4},
      {"gradients", "gradients (fp32)", m->budget.gradients, 4},
      {"optimizer", "Adam m and v (fp32)", m->budget.optimizer, 8},
      {"activations", "activations kept for backward (estimate)", m->budget.activations, 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", t[i].id);
    cJSON_AddStringToObject(o, "label", t[i].label);
    cJSON_AddNumberToObject(o, "bytes", (double)t[i].bytes);
    if (t[i].per_param > 0) cJSON_AddNumberToObject(o, "bytes_per_param", t[i].per_param);
    else cJSON_AddNullToObject(o, "bytes_per_param");
    cJSON_AddItemToArray(terms, o);
  }
  cJSON_AddStringToObject(d, "activation_estimate",
                          "batch × seq_len × hidden × layers × 16 values × 4 bytes: about 16 hidden-size vectors "
                          "per token per transformer layer kept for backward in fp32; attention score matrices "
                          "(seq² per head) are not counted, as fused attention does not keep them.");
  cJSON *steps = cJSON_AddArrayToObject(d, "steps");
  for (int i = 0; i < m->n_steps; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "label", m->steps[i].label);
    cJSON_AddNumberToObject(o, "allocated_bytes", (double)m->steps[i].allocated);
    cJSON_AddNumberToObject(o, "reserved_bytes", (double)m->steps[i].reserved);
    cJSON_AddNumberToObject(o, "device_used_bytes", (double)m->steps[i].device_used);
    cJSON_AddItemToArray(steps, o);
  }
  cJSON *al = cJSON_AddObjectToObject(d, "allocator");
  cJSON_AddNumberToObject(al, "limit_bytes", (double)m->limit_bytes);
  cJSON_AddNumberToObject(al, "reserve_calls", m->reserve_calls);
  cJSON_AddNumberToObject(al, "release_calls", m->release_calls);
  cJSON_AddStringToObject(al, "rule",
                          "Requests are rounded up to 512 bytes; up to 1 MiB they share 2 MiB segments, up to "
                          "10 MiB 20 MiB segments, larger ones get their own segment; freed blocks stay cached "
                          "until empty_cache().");
  if (!m->oom) {
    cJSON_AddNullToObject(d, "oom");
    return;
  }
  cJSON *oom = cJSON_AddObjectToObject(d, "oom");
  cJSON_AddStringToObject(oom, "kind", oom_kind_name(m->oom_kind));
  cJSON_AddBoolToObject(oom, "deliberate", m->deliberate);
  cJSON_AddStringToObject(oom, "step", m->oom_step);
  cJSON_AddNumberToObject(oom, "requested_bytes", (double)m->oom_request);
  cJSON_AddNumberToObject(oom, "allocated_bytes", (double)m->oom_allocated);
  cJSON_AddNumberToObject(oom, "reserved_bytes", (double)m->oom_reserved);
  cJSON_AddNumberToObject(oom, "limit_bytes", (double)m->limit_bytes);
  char msg[480], part[160] = "";
  /* A term is allocated as one tensor per layer: say so, or "asked for
   * 635.8 MiB while 635.8 MiB was allocated" reads like a contradiction. */
  if (m->oom_tensors > 1)
    snprintf(part, sizeof part, " (one of the %d per-layer tensors of '%s')", m->oom_tensors, m->oom_step);
  snprintf(msg, sizeof msg,
           "Out of memory: asked for %s%s while %s was allocated and %s reserved; %s.",
           LAB_IEC(m->oom_request), part, LAB_IEC(m->oom_allocated), LAB_IEC(m->oom_reserved),
           m->oom_kind == LAB_POOL_OOM_DEVICE ? "the GPU itself had no free memory left for it"
           : m->oom_kind == LAB_POOL_OOM_TABLE ? "the allocator's tables were full"
                                               : "reserving it would pass the run's budget_gib cap");
  cJSON_AddStringToObject(oom, "message", msg);
  cJSON_AddStringToObject(oom, "limit", m->oom_kind == LAB_POOL_OOM_DEVICE ? "device" : "budget");
  add_fixes(oom, p, m, v);
}

static void add_findings(cJSON *env, const lab_params *p, const lab_memory_measure *m, const verdict *v) {
  const lab_params_memory tp = lab_params_memory_of(p);
  const lab_mem_budget *b = &m->budget;
  uint64_t floor_b = b->weights + b->gradients + b->optimizer;
  lab_env_finding(env,
                  "Training %.1f million parameters with Adam needs %s before any activation: 4 bytes of "
                  "weights, 4 of gradients and 8 for Adam's two moments, 16 bytes per parameter.",
                  b->params / 1e6, LAB_IEC(floor_b));
  if (m->limit_bytes)
    lab_env_finding(env,
                    "Activations for %lld × %lld tokens add about %s, so a step needs %s. This run may use "
                    "%s, %s (budget_gib %.3g, %s free on the device): it %s.%s",
                    (long long)tp.batch, (long long)tp.seq_len, LAB_IEC(b->activations), LAB_IEC(b->total),
                    LAB_IEC(v->limit), limit_name(v), gib(m->limit_bytes), LAB_IEC(m->free_before_bytes),
                    v->fits ? "fits" : "does not fit",
                    v->floor_fits ? "" : " Not even batch 1 would fit: the floor is the problem.");
  else
    lab_env_finding(env,
                    "Activations for %lld × %lld tokens add about %s, so a step needs %s. This simulated run "
                    "may use all %s free on the device once the CUDA context is made (budget_gib caps only "
                    "real runs, on a shared GPU): it %s.%s",
                    (long long)tp.batch, (long long)tp.seq_len, LAB_IEC(b->activations), LAB_IEC(b->total),
                    LAB_IEC(m->free_before_bytes), v->fits ? "fits" : "does not fit",
                    v->floor_fits ? "" : " Not even batch 1 would fit: the floor is the problem.");
  if (v->max_batch > 0)
    lab_env_finding(env, "Under that limit the largest batch that fits is about %ld.", v->max_batch);
  int after_free = -1, after_empty = -1;
  for (int i = 0; i < m->n_steps; i++) {
    if (strncmp(m->steps[i].label, "backward", 8) == 0) after_free = i;
    if (strncmp(m->steps[i].label, "empty_cache", 11) == 0) after_empty = i;
  }
  if (m->n_steps > 0)
    lab_env_finding(env, "Before the first tensor the device already had %s in use: the CUDA context "
                    "(kernels, libraries, bookkeeping), which nvidia-smi counts and torch.cuda.memory_allocated() "
                    "never does.",
                    LAB_IEC(m->steps[0].device_used));
  if (after_free >= 0)
    lab_env_finding(env,
                    "After backward freed the activations, %s was allocated but %s stayed reserved, and "
                    "nvidia-smi showed %s in use (the reserved segments plus the context): it shows reserved "
                    "memory and the context, not what tensors hold.",
                    LAB_IEC(m->steps[after_free].allocated), LAB_IEC(m->steps[after_free].reserved),
                    LAB_IEC(m->steps[after_free].device_used));
  if (after_empty >= 0 && m->steps[after_free].reserved > m->steps[after_empty].reserved)
    lab_env_finding(env, "empty_cache() gave %s back to the device.",
                    LAB_IEC(m->steps[after_free].reserved - m->steps[after_empty].reserved));
  else if (after_empty >= 0)
    lab_env_finding(env, "empty_cache() gave nothing back: every reserved segment still held a live tensor.");
  if (m->oom)
    lab_env_finding(env,
                    "%s at '%s': asking for %s with %s reserved, against %s %s, failed; the "
                    "error was caught, everything freed, and the result lists the fixes.",
                    m->deliberate ? "The deliberate out-of-memory happened" : "The model ran out of memory",
                    m->oom_step, LAB_IEC(m->oom_request), LAB_IEC(m->oom_reserved),
                    m->limit_bytes ? "a budget of" : "the device's free",
                    LAB_IEC(m->limit_bytes ? m->limit_bytes : m->free_before_bytes));
  if (restored(m))
    lab_env_finding(env, "Free device memory was %s before and %s after: all of it came back.",
                    LAB_IEC(m->free_before_bytes), LAB_IEC(m->free_after_bytes));
  else
    lab_env_finding(env,
                    "Free device memory was %s before but %s after: %s did not come back "
                    "(another process on this GPU may have taken it).",
                    LAB_IEC(m->free_before_bytes), LAB_IEC(m->free_after_bytes),
                    LAB_IEC(m->free_before_bytes - m->free_after_bytes));
}

cJSON *lab_memory_envelope(const lab_params *p, const lab_memory_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("memory", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  const lab_mem_budget *b = &m->budget;
  /* What a training job can use: free memory once the context exists. */
  uint64_t usable = m->free_before_bytes;
  verdict v = judge(p, m);
  lab_env_metric(env, "weights_bytes", (double)b->weights);
  lab_env_metric(env, "gradients_bytes", (double)b->gradients);
  lab_env_metric(env, "optimizer_bytes", (double)b->optimizer);
  lab_env_metric(env, "activations_bytes", (double)b->activations);
  lab_env_metric(env, "floor_bytes", (double)(b->weights + b->gradients + b->optimizer));
  lab_env_metric(env, "total_bytes", (double)b->total);
  lab_env_metric(env, "capacity_bytes", (double)m->capacity_bytes);
  lab_env_metric(env, "usable_bytes", (double)usable);
  /* fits: under this run's limit (the lower of budget_gib and free device
   * memory), the one verdict every part of the result shows. */
  lab_env_metric(env, "fits", v.fits);
  lab_env_metric(env, "fits_device", b->total <= usable);
  lab_env_metric(env, "limit_bytes", (double)v.limit);
  lab_env_metric(env, "limit_is_budget", v.by_budget);
  lab_env_metric(env, "max_batch", (double)v.max_batch);
  lab_env_metric(env, "budget_bytes", lab_params_memory_of(p).budget_gib * GIB);
  lab_env_metric(env, "peak_allocated_bytes", (double)m->peak_allocated);
  lab_env_metric(env, "peak_reserved_bytes", (double)m->peak_reserved);
  lab_env_metric(env, "oom", m->oom);
  lab_env_metric(env, "oom_requested_bytes", (double)m->oom_request);
  lab_env_metric(env, "free_before_bytes", (double)m->free_before_bytes);
  lab_env_metric(env, "free_after_bytes", (double)m->free_after_bytes);
  lab_env_metric(env, "free_restored", restored(m));
  add_series(env, p, m, &v);
  add_details(env, p, m, &v);
  add_findings(env, p, m, &v);
  lab_env_stats(env, 1, 0, NULL, 0,
                strcmp(backend, "simulated") == 0
                    ? "Modelled: the same allocator bookkeeping as on a GPU, reserving from the profile's memory "
                      "minus its CUDA context, with no budget_gib cap (that caps real runs on a shared GPU), so an "
                      "out-of-memory comes from the card's capacity; the budget terms are arithmetic."
                    : "cudaMemGetInfo after each step of the walk; allocated and reserved come from the caching "
                      "allocator's own bookkeeping; segments are real cudaMalloc/cudaFree calls.");
  return env;
}

/* ---- the simulator ----------------------------------------------------- */

/* The profile's memory: the context takes its share first; cudaMalloc
 * hands out 2 MiB pages, so the driver's count grows in those. */
static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  lab_sim_mem mem;
  lab_sim_mem_init(&mem, prof);
  lab_pool_device dev = lab_sim_mem_device(&mem);
  lab_pool *pool = malloc(sizeof *pool);
  lab_memory_measure *m = malloc(sizeof *m);
  *out = NULL;
  if (pool && m) {
    /* A simulated run has the profile's whole memory, as a training job on
     * that GPU would: its out-of-memory comes from the card's capacity. */
    walk_under(p, pool, &dev, m, 0);
    *out = lab_memory_envelope(p, m, "simulated", prof->device_name, prof);
  }
  free(pool);
  free(m);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_memory tp = lab_params_memory_of(p);
  /* The walk's allocator (and its deliberate OOM) stay inside budget_gib,
   * plus the 2 MiB warm-up buffer. */
  *param = "budget_gib";
  return tp.budget_gib * 1073741824.0 + 2.0 * 1024 * 1024;
}

/* CPU cost (lab_experiment_cpu_ms): the simulated allocator walks the
 * layers (about 5 µs a layer measured by bench/cpu_cost, 1.4 ms at 256
 * layers); 10 µs a layer over the 1 ms floor. */
LAB_CPU_MS(memory);

LAB_CPU_MS(memory) {
  const lab_params_memory tp = lab_params_memory_of(p);
  *param = "layers";
  return 1.0 + 0.01 * (double)tp.layers;
}

const lab_experiment lab_exp_memory = {
    .name = "memory",
    .title = "GPU memory: the budget and the out-of-memory",
    .summary = "Weights, gradients and Adam's moments set a floor of 16 bytes per parameter; activations grow "
               "with the batch; a caching allocator reserves more than tensors use; a safe deliberate OOM and "
               "its fixes.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_memory_spec,
    .n_params = LAB_PARAMS_COUNT(memory),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
