/* The planner's autograd model (plan_int.h): tensors live while a variable
 * holds them or a node saved them; backward runs the nodes in reverse order
 * of creation, as PyTorch's engine runs a graph built by one thread
 * (torch/csrc/autograd/engine.cpp: a node's gradients are made, then its
 * incoming gradient and its saved tensors are let go, then the gradients
 * are added into the next nodes' buffers, in place when nothing else holds
 * the buffer: input_buffer.cpp). Every allocation is counted as requested,
 * rounded to 512 bytes, and in the caching allocator's pools: blocks up to
 * 1 MiB in 2 MiB segments, up to 10 MiB in 20 MiB segments, larger ones in
 * segments of their own rounded to 2 MiB (lab_pool_segment_size, the rule
 * of c10/cuda/CUDACachingAllocator.cpp). */
#include <stdlib.h>
#include <string.h>

#include "caching_alloc.h"
#include "plan_int.h"

#define MIB (1024ull * 1024ull)

const char *const pl_phase_names[PL_PHASES] = {"before the step", "forward", "loss", "backward", "optimizer step"};

int pl_dtype_size(int dtype) {
  static const int size[PL_DTYPES] = {4, 2, 2, 8, 1};
  return dtype >= 0 && dtype < PL_DTYPES ? size[dtype] : 4;
}

int pl_sim_init(pl_sim *s, int layers, int policy) {
  memset(s, 0, sizeof *s);
  s->cap_t = 1024 + layers * 256;
  s->cap_nodes = 512 + layers * 160;
  s->t = malloc(sizeof *s->t * (size_t)s->cap_t);
  s->nodes = malloc(sizeof *s->nodes * (size_t)s->cap_nodes);
  s->params = malloc(sizeof *s->params * (size_t)(64 + layers * 32));
  s->cast_cache = malloc(sizeof *s->cast_cache * (size_t)(64 + layers * 32));
  s->cast_outer = malloc(sizeof *s->cast_outer * (size_t)(64 + layers * 32));
  s->free_ids = malloc(sizeof *s->free_ids * (size_t)s->cap_t);
  s->policy = policy;
  s->src = LAB_PLAN_SRC_OTHER;
  if (!s->t || !s->nodes || !s->params || !s->cast_cache || !s->cast_outer || !s->free_ids) {
    pl_sim_free(s);
    return -1;
  }
  return 0;
}

void pl_sim_reset(pl_sim *s, int policy) {
  pl_sim keep = *s;
  memset(s, 0, sizeof *s);
  s->t = keep.t;
  s->cap_t = keep.cap_t;
  s->nodes = keep.nodes;
  s->cap_nodes = keep.cap_nodes;
  s->params = keep.params;
  s->cast_cache = keep.cast_cache;
  s->cast_outer = keep.cast_outer;
  s->free_ids = keep.free_ids;
  s->policy = policy;
  s->src = LAB_PLAN_SRC_OTHER;
}

void pl_sim_free(pl_sim *s) {
  free(s->t);
  free(s->nodes);
  free(s->params);
  free(s->cast_cache);
  free(s->cast_outer);
  free(s->free_ids);
  memset(s, 0, sizeof *s);
}

uint64_t pl_bytes(const pl_sim *s, int t) {
  return s->t[t].numel * (uint64_t)pl_dtype_size(s->t[t].dtype);
}

static uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

/* What the CUDA allocator hands out for a request: 512-byte blocks. */
static uint64_t block_of(uint64_t bytes) { return bytes ? round_up(bytes, LAB_POOL_ROUND) : 0; }

static void pool_footprint(pl_sim *s) {
  uint64_t small = round_up(s->small_live, 2 * MIB);
  uint64_t large = round_up(s->medium_live, 20 * MIB) + s->large_seg;
  if (small > s->small_hw) s->small_hw = small;
  if (large > s->large_hw) s->large_hw = large;
}

static void account(pl_sim *s, int id, int sign) {
  pl_tensor *t = &s->t[id];
  if (!t->counted) return;
  uint64_t raw = pl_bytes(s, id), blk = block_of(raw);
  uint64_t seg = lab_pool_segment_size(blk);
  if (sign > 0) {
    s->written += raw;
    s->ops++;
    s->raw += raw;
    s->rounded += blk;
    s->by_kind[t->kind] += raw;
    if (t->kind == PL_K_ACT) s->by_src[t->src] += raw;
    if (seg == 2 * MIB) s->small_live += blk;
    else if (seg == 20 * MIB) s->medium_live += blk;
    else s->large_seg += seg;
    if (s->raw > s->peak_raw) s->peak_raw = s->raw;
    if (s->rounded > s->peak_rounded) {
      s->peak_rounded = s->rounded;
      s->peak_phase = s->phase;
      memcpy(s->by_kind_at_peak, s->by_kind, sizeof s->by_kind);
      memcpy(s->by_src_at_peak, s->by_src, sizeof s->by_src);
    }
    pool_footprint(s);
  } else {
    s->raw -= raw;
    s->rounded -= blk;
    s->by_kind[t->kind] -= raw;
    if (t->kind == PL_K_ACT) s->by_src[t->src] -= raw;
    if (seg == 2 * MIB) s->small_live -= blk;
    else if (seg == 20 * MIB) s->medium_live -= blk;
    else s->large_seg -= seg;
  }
}

/* A tensor that changes what it is (an activation's gradient becoming a
 * parameter's .grad) moves between the totals by kind. */
static void set_kind(pl_sim *s, int id, int kind) {
  pl_tensor *t = &s->t[id];
  if (t->live && t->counted) {
    uint64_t raw = pl_bytes(s, id);
    s->by_kind[t->kind] -= raw;
    if (t->kind == PL_K_ACT) s->by_src[t->src] -= raw;
    s->by_kind[kind] += raw;
  }
  t->kind = (uint8_t)kind;
}

void pl_set_phase(pl_sim *s, int phase) { s->phase = phase; }

static int slot(pl_sim *s) {
  if (s->n_free > 0) return s->free_ids[--s->n_free];
  if (s->n_t >= s->cap_t) {
    s->failed = 1;
    return 0; /* tensor 0 stands in; the plan is refused afterwards */
  }
  return s->n_t++;
}

int pl_new(pl_sim *s, uint64_t numel, int dtype, int kind) {
  int id = slot(s);
  if (s->failed) return id;
  pl_tensor *t = &s->t[id];
  memset(t, 0, sizeof *t);
  t->numel = numel;
  t->dtype = (uint8_t)dtype;
  t->kind = (uint8_t)kind;
  t->src = (uint8_t)s->src;
  t->base = -1;
  t->grad = -1;
  t->param = -1;
  t->refs = 1;
  t->live = true;
  t->counted = true;
  account(s, id, +1);
  return id;
}

int pl_view(pl_sim *s, int of) {
  int id = slot(s);
  if (s->failed) return id;
  int base = of;
  while (s->t[base].base >= 0) base = s->t[base].base;
  pl_tensor *t = &s->t[id];
  memset(t, 0, sizeof *t);
  t->numel = s->t[of].numel;
  t->dtype = s->t[base].dtype;
  t->kind = s->t[base].kind;
  t->src = s->t[base].src;
  t->base = base;
  t->grad = -1;
  t->param = -1;
  t->refs = 1;
  t->live = true;
  s->t[base].refs++;
  return id;
}

void pl_ref(pl_sim *s, int t) { s->t[t].refs++; }

static void maybe_free(pl_sim *s, int id) {
  pl_tensor *t = &s->t[id];
  if (!t->live || t->refs > 0 || t->saves > 0) return;
  t->live = false;
  account(s, id, -1);
  if (t->base >= 0) pl_drop(s, t->base);
}

void pl_drop(pl_sim *s, int id) {
  if (s->failed) return;
  s->t[id].refs--;
  maybe_free(s, id);
}

/* The census counts each storage a forward saves once, under the source
 * it was first saved in (an autocast copy of a weight under its own), as
 * tests/plan/measure.py counts them with saved_tensors_hooks. */
static void save(pl_sim *s, int id) {
  s->t[id].saves++;
  int root = id;
  while (s->t[root].base >= 0) root = s->t[root].base;
  pl_tensor *r = &s->t[root];
  if (!s->census || r->censused || r->kind != PL_K_ACT) return;
  r->censused = true;
  int src = r->src == LAB_PLAN_SRC_AUTOCAST ? LAB_PLAN_SRC_AUTOCAST : s->src;
  s->census_bytes += pl_bytes(s, root);
  s->census_src[src] += pl_bytes(s, root);
}

static void unsave(pl_sim *s, int id) {
  s->t[id].saves--;
  maybe_free(s, id);
}

int pl_node_add(pl_sim *s, int op, int out, const int *in, int n_in, const int *saved, int n_saved, int tmp_x) {
  bool rg = false;
  for (int i = 0; i < n_in; i++) rg = rg || s->t[in[i]].rg;
  if (s->failed || s->nograd || !rg) return -1;
  if (s->n_nodes >= s->cap_nodes) {
    s->failed = 1;
    return -1;
  }
  s->t[out].rg = true;
  pl_node *n = &s->nodes[s->n_nodes];
  memset(n, 0, sizeof *n);
  n->op = (uint8_t)op;
  n->out = out;
  n->n_in = (uint8_t)n_in;
  n->tmp_x = (uint8_t)tmp_x;
  for (int i = 0; i < n_in; i++) n->in[i] = in[i];
  n->n_saved = (uint8_t)n_saved;
  for (int i = 0; i < n_saved; i++) {
    n->saved[i] = saved[i];
    save(s, saved[i]);
  }
  return s->n_nodes++;
}

int pl_ckpt_add(pl_sim *s, int out, const int *in, int n_in, pl_region_fn fn, const void *ctx) {
  int n = pl_node_add(s, PL_OP_CKPT, out, in, n_in, in, n_in, 0);
  if (n >= 0) {
    s->nodes[n].fn = fn;
    s->nodes[n].ctx = ctx;
    s->nodes[n].autocast = s->autocast;
  }
  return n;
}

/* ---- backward -------------------------------------------------------------- */

/* The gradient g (one reference, ours) reaches tensor id. */
static void route(pl_sim *s, int id, int g) {
  pl_tensor *t = &s->t[id];
  if (!t->rg) {
    pl_drop(s, g);
    return;
  }
  if (t->param >= 0) {
    /* AccumulateGrad: the first gradient becomes .grad when nothing else
     * holds it, later ones are added in place (accumulate_grad.h). */
    if (t->grad < 0) {
      if (s->t[g].refs == 1 && s->t[g].base < 0) {
        t->grad = g;
      } else {
        t->grad = pl_new(s, t->numel, t->dtype, PL_K_GRAD);
        pl_drop(s, g);
      }
      set_kind(s, t->grad, PL_K_GRAD);
    } else {
      pl_drop(s, g);
    }
    return;
  }
  if (t->grad < 0) {
    t->grad = g;
  } else if (s->t[t->grad].refs == 1) {
    pl_drop(s, g); /* added in place into the buffer */
  } else {
    int sum = pl_new(s, s->t[t->grad].numel, s->t[t->grad].dtype, PL_K_ACT);
    pl_drop(s, t->grad);
    pl_drop(s, g);
    t->grad = sum;
  }
}

static void run_nodes(pl_sim *s, int from);

/* A checkpointed region (torch.utils.checkpoint, reentrant): its inputs
 * detached, the region run again with grad under the autocast state of the
 * forward (a fresh autocast cache), then backward through it from the
 * incoming gradient; the inputs' gradients go on. */
static void run_region(pl_sim *s, pl_node *node, int g) {
  int mark = s->n_nodes, in[PL_MAX_IN], n_in = node->n_in;
  int outer_autocast = s->autocast, outer_nograd = s->nograd;
  for (int i = 0; i < n_in; i++) {
    in[i] = pl_view(s, node->in[i]);
    s->t[in[i]].rg = s->t[node->in[i]].rg;
  }
  int *cache = s->cast_cache, n_params = s->n_params;
  memcpy(s->cast_outer, cache, sizeof *cache * (size_t)n_params);
  for (int i = 0; i < n_params; i++) cache[i] = -1;
  s->autocast = node->autocast;
  s->nograd = 0;
  int out = node->fn(s, node->ctx, in, n_in);
  for (int i = 0; i < n_params; i++)
    if (cache[i] >= 0) pl_drop(s, cache[i]);
  memcpy(cache, s->cast_outer, sizeof *cache * (size_t)n_params);
  s->autocast = outer_autocast;
  s->nograd = outer_nograd;
  if (s->failed) return;
  s->t[out].grad = g;
  pl_drop(s, out);
  run_nodes(s, mark);
  s->n_nodes = mark;
  for (int i = 0; i < n_in; i++) {
    int gi = s->t[in[i]].grad;
    s->t[in[i]].grad = -1;
    pl_drop(s, in[i]);
    if (gi >= 0) route(s, node->in[i], gi);
  }
}

static void run_node(pl_sim *s, int i) {
  pl_node n = s->nodes[i];
  int out = n.out, g = s->t[out].grad;
  int grads[PL_MAX_IN], n_g = 0;
  if (g >= 0) s->t[out].grad = -1;
  if (g >= 0 && n.op == PL_OP_CKPT) {
    for (int k = 0; k < n.n_saved; k++) unsave(s, n.saved[k]);
    run_region(s, &n, g);
    return;
  }
  if (g >= 0 && n.op == PL_OP_GIVE) {
    pl_drop(s, g); /* a scale of 1/accum is applied in place */
    for (int k = 0; k < n.n_in; k++) {
      grads[k] = k < n.n_saved ? n.saved[k] : -1;
      if (grads[k] >= 0) pl_ref(s, grads[k]);
    }
    for (int k = 0; k < n.n_saved; k++) unsave(s, n.saved[k]);
    for (int k = 0; k < n.n_in; k++)
      if (grads[k] >= 0) route(s, n.in[k], grads[k]);
    return;
  }
  if (g >= 0 && n.op == PL_OP_SPLIT) {
    /* in[0] is the base; the parts' gradients are gathered into one (cat) */
    int whole = pl_new(s, s->t[n.in[0]].numel, s->t[n.in[0]].dtype, PL_K_ACT);
    pl_drop(s, g);
    for (int k = 1; k < n.n_part; k++) {
      int gk = s->t[n.part[k]].grad;
      if (gk >= 0) {
        s->t[n.part[k]].grad = -1;
        pl_drop(s, gk);
      }
    }
    route(s, n.in[0], whole);
    return;
  }
  if (g >= 0) {
    int tmp[4], n_tmp = n.tmp_x < 4 ? n.tmp_x : 4;
    for (int k = 0; k < n_tmp; k++) tmp[k] = pl_new(s, s->t[n.in[0]].numel, s->t[n.in[0]].dtype, PL_K_ACT);
    for (int k = 0; k < n.n_in; k++) {
      const pl_tensor *in = &s->t[n.in[k]];
      grads[k] = -1;
      if (!in->rg) continue;
      if (n.op == PL_OP_PASS || (n.op == PL_OP_ADD && in->numel == s->t[out].numel && in->dtype == s->t[out].dtype)) {
        pl_ref(s, g);
        grads[k] = g;
      } else {
        grads[k] = pl_new(s, in->numel, in->dtype, PL_K_ACT);
      }
    }
    n_g = n.n_in;
    for (int k = 0; k < n_tmp; k++) pl_drop(s, tmp[k]);
    pl_drop(s, g);
  }
  for (int k = 0; k < n.n_saved; k++) unsave(s, n.saved[k]);
  for (int k = 0; k < n_g; k++)
    if (grads[k] >= 0) route(s, n.in[k], grads[k]);
}

static void run_nodes(pl_sim *s, int from) {
  for (int i = s->n_nodes - 1; i >= from && !s->failed; i--) run_node(s, i);
}

void pl_recycle(pl_sim *s) {
  s->n_free = 0;
  for (int i = 0; i < s->n_t; i++)
    if (!s->t[i].live) s->free_ids[s->n_free++] = i;
}

void pl_backward(pl_sim *s, int loss) {
  if (s->failed || !s->t[loss].rg) return;
  s->t[loss].grad = pl_new(s, 1, s->t[loss].dtype, PL_K_ACT);
  run_nodes(s, 0);
  s->n_nodes = 0;
  pl_recycle(s);
}
