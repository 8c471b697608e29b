/* The ops the model builders use, each as PyTorch runs it: the output it
 * allocates (in the dtype autocast or type promotion gives), what its
 * autograd node saves (only what the gradients that will be needed use:
 * mm saves its first operand only when the second requires grad), and the
 * kind of backward (plan_sim.c). Sources: aten/src/ATen/autocast_mode.cpp
 * (which ops run in half, which in fp32, on CUDA and on the CPU),
 * tools/autograd/derivatives.yaml (what each op saves), and
 * aten/src/ATen/native/Dropout.cpp (a bool mask on CUDA, a float noise
 * tensor on the CPU). Every function returns a new reference to its
 * output; the inputs stay the caller's. */
#include "plan_ops.h"

static int act(pl_sim *s, uint64_t numel, int dtype) { return pl_new(s, numel, dtype, PL_K_ACT); }

static bool rg(const pl_sim *s, int t) { return t >= 0 && s->t[t].rg; }

int pl_promote(int a, int b) {
  if (a == b) return a;
  return PL_F32; /* fp32 with either half type, and fp16 with bf16, give fp32 */
}

int pl_param(pl_sim *s, uint64_t numel, int dtype, bool trainable) {
  int id = pl_new(s, numel, dtype, PL_K_PARAM);
  if (s->failed) return id;
  s->t[id].rg = trainable;
  s->t[id].param = s->n_params;
  s->cast_cache[s->n_params] = -1;
  s->params[s->n_params++] = id;
  return id;
}

int pl_to(pl_sim *s, int x, int dtype) {
  if (s->t[x].dtype == dtype) {
    pl_ref(s, x);
    return x;
  }
  int out = act(s, s->t[x].numel, dtype);
  pl_node_add(s, PL_OP_EACH, out, &x, 1, NULL, 0, 0);
  return out;
}

/* An input of a matmul-family op under autocast: an fp32 tensor becomes a
 * half copy. A parameter that requires grad is cast once per autocast
 * region and the copy is cached until the region ends (cached_cast). */
static int lower(pl_sim *s, int x) {
  if (x < 0) return -1;
  if (!s->autocast || s->t[x].dtype != PL_F32) {
    pl_ref(s, x);
    return x;
  }
  int p = s->t[x].param;
  bool cacheable = p >= 0 && s->t[x].rg;
  if (cacheable && s->cast_cache[p] >= 0) {
    pl_ref(s, s->cast_cache[p]);
    return s->cast_cache[p];
  }
  int src = s->src;
  if (p >= 0) s->src = LAB_PLAN_SRC_AUTOCAST;
  int c = pl_to(s, x, s->autocast);
  s->src = src;
  if (cacheable) {
    s->cast_cache[p] = c;
    pl_ref(s, c);
  }
  return c;
}

/* An input of an op autocast runs in fp32 (layer_norm, softmax, pow, the
 * losses on CUDA; the losses on the CPU). */
static int upper(pl_sim *s, int x) {
  if (s->autocast && s->t[x].dtype != PL_F32) return pl_to(s, x, PL_F32);
  pl_ref(s, x);
  return x;
}

void pl_autocast_end(pl_sim *s) {
  for (int i = 0; i < s->n_params; i++)
    if (s->cast_cache[i] >= 0) {
      pl_drop(s, s->cast_cache[i]);
      s->cast_cache[i] = -1;
    }
}

static void drop3(pl_sim *s, int a, int b, int c) {
  if (a >= 0) pl_drop(s, a);
  if (b >= 0) pl_drop(s, b);
  if (c >= 0) pl_drop(s, c);
}

int pl_linear(pl_sim *s, int x, int w, int b, uint64_t rows, uint64_t out_f) {
  int xx = lower(s, x), ww = lower(s, w), bb = lower(s, b);
  int out = act(s, rows * out_f, s->t[xx].dtype);
  int in[3] = {xx, ww, bb}, saved[2], n_saved = 0;
  if (rg(s, ww)) saved[n_saved++] = xx;
  if (rg(s, xx)) saved[n_saved++] = ww;
  pl_node_add(s, PL_OP_EACH, out, in, bb >= 0 ? 3 : 2, saved, n_saved, 0);
  drop3(s, xx, ww, bb);
  return out;
}

int pl_matmul(pl_sim *s, int a, int b, uint64_t out_numel, bool copy_a, bool copy_b) {
  int aa = lower(s, a), bb = lower(s, b);
  /* at::matmul folds the batch dimensions with reshape: a permuted view
   * whose dimensions do not merge is copied first, and the copy is saved. */
  if (copy_a) {
    int c = pl_copy(s, aa);
    pl_drop(s, aa);
    aa = c;
  }
  if (copy_b) {
    int c = pl_copy(s, bb);
    pl_drop(s, bb);
    bb = c;
  }
  int out = act(s, out_numel, pl_promote(s->t[aa].dtype, s->t[bb].dtype));
  int in[2] = {aa, bb}, saved[2], n_saved = 0;
  if (rg(s, bb)) saved[n_saved++] = aa;
  if (rg(s, aa)) saved[n_saved++] = bb;
  pl_node_add(s, PL_OP_EACH, out, in, 2, saved, n_saved, 0);
  drop3(s, aa, bb, -1);
  return out;
}

int pl_copy(pl_sim *s, int x) {
  int out = act(s, s->t[x].numel, s->t[x].dtype);
  pl_node_add(s, PL_OP_PASS, out, &x, 1, NULL, 0, 0);
  return out;
}

int pl_layernorm(pl_sim *s, int x, int w, int b, uint64_t rows) {
  int xx = s->policy == PL_POLICY_CUDA ? upper(s, x) : (pl_ref(s, x), x);
  int out = act(s, s->t[xx].numel, s->t[xx].dtype);
  /* mean and rstd: one per row, fp32 (the accumulation type) */
  int stat_dtype = s->t[xx].dtype == PL_F32 || s->policy == PL_POLICY_CUDA ? PL_F32 : s->t[xx].dtype;
  int mean = act(s, rows, stat_dtype), rstd = act(s, rows, stat_dtype);
  int in[3] = {xx, w, b}, saved[5] = {xx, w, b, mean, rstd};
  pl_node_add(s, PL_OP_EACH, out, in, b >= 0 ? 3 : 2, saved, b >= 0 ? 5 : 4, 0);
  drop3(s, xx, mean, rstd);
  return out;
}

int pl_unary(pl_sim *s, int x, int how, int tmp_x) {
  bool fp32 = (how & PL_U_FP32) && s->autocast && s->policy == PL_POLICY_CUDA;
  int dtype = (how & PL_U_TO_FP32) || fp32 ? PL_F32 : s->t[x].dtype;
  int out = act(s, s->t[x].numel, dtype);
  int saved = (how & PL_U_SAVE_OUT) ? out : x;
  pl_node_add(s, PL_OP_EACH, out, &x, 1, &saved, (how & (PL_U_SAVE_IN | PL_U_SAVE_OUT)) ? 1 : 0, tmp_x);
  return out;
}

int pl_pow(pl_sim *s, int x) {
  int xx = s->policy == PL_POLICY_CUDA ? upper(s, x) : (pl_ref(s, x), x);
  int out = pl_unary(s, xx, PL_U_SAVE_IN, 1);
  pl_drop(s, xx);
  return out;
}

/* x * 0.5 or x / 2.0: PyTorch wraps the Python number in a 0-dim float64
 * tensor, which mul and div save; on CUDA it stays on the host. */
int pl_scale(pl_sim *s, int x) {
  int out = act(s, s->t[x].numel, s->t[x].dtype);
  int wrapped = -1;
  if (s->policy == PL_POLICY_CPU && s->t[x].rg && !s->nograd) wrapped = act(s, 1, PL_I64);
  pl_node_add(s, PL_OP_EACH, out, &x, 1, &wrapped, wrapped >= 0 ? 1 : 0, 0);
  if (wrapped >= 0) pl_drop(s, wrapped);
  return out;
}

int pl_shift(pl_sim *s, int x) {
  int out = act(s, s->t[x].numel, s->t[x].dtype);
  pl_node_add(s, PL_OP_PASS, out, &x, 1, NULL, 0, 0);
  return out;
}

int pl_add(pl_sim *s, int a, int b) {
  uint64_t n = s->t[a].numel > s->t[b].numel ? s->t[a].numel : s->t[b].numel;
  int out = act(s, n, pl_promote(s->t[a].dtype, s->t[b].dtype));
  int in[2] = {a, b};
  pl_node_add(s, PL_OP_ADD, out, in, 2, NULL, 0, 0);
  return out;
}

int pl_mul(pl_sim *s, int a, int b, int tmp_x) {
  uint64_t n = s->t[a].numel > s->t[b].numel ? s->t[a].numel : s->t[b].numel;
  int out = act(s, n, pl_promote(s->t[a].dtype, s->t[b].dtype));
  int in[2] = {a, b}, saved[2], n_saved = 0;
  if (rg(s, b)) saved[n_saved++] = a;
  if (rg(s, a)) saved[n_saved++] = b;
  pl_node_add(s, PL_OP_EACH, out, in, 2, saved, n_saved, tmp_x);
  return out;
}

int pl_dropout(pl_sim *s, int x, double p) {
  if (p <= 0 || p >= 1) {
    pl_ref(s, x);
    return x;
  }
  int src = s->src;
  s->src = LAB_PLAN_SRC_DROPOUT;
  int out;
  if (s->policy == PL_POLICY_CUDA) {
    /* native_dropout: the output and a bool mask; backward needs the mask */
    int mask = act(s, s->t[x].numel, PL_BOOL);
    out = act(s, s->t[x].numel, s->t[x].dtype);
    pl_node_add(s, PL_OP_EACH, out, &x, 1, &mask, 1, 0);
    pl_drop(s, mask);
  } else {
    /* the CPU path: a noise tensor of the input's dtype, then input * noise */
    int noise = act(s, s->t[x].numel, s->t[x].dtype);
    out = act(s, s->t[x].numel, s->t[x].dtype);
    pl_node_add(s, PL_OP_EACH, out, &x, 1, &noise, 1, 0);
    pl_drop(s, noise);
  }
  s->src = src;
  return out;
}

int pl_embedding(pl_sim *s, int w, int ids, uint64_t rows, uint64_t width) {
  int out = act(s, rows * width, s->t[w].dtype);
  pl_node_add(s, PL_OP_SCATTER, out, &w, 1, &ids, 1, 0); /* saves the indices */
  return out;
}

int pl_cross_entropy(pl_sim *s, int logits) {
  int x = upper(s, logits);
  int lp = act(s, s->t[x].numel, s->t[x].dtype); /* log_softmax saves its output */
  pl_node_add(s, PL_OP_EACH, lp, &x, 1, &lp, 1, 0);
  int total = act(s, 1, s->t[x].dtype), loss = act(s, 1, s->t[x].dtype);
  pl_node_add(s, PL_OP_EACH, loss, &lp, 1, &total, 1, 0); /* nll_loss: a zeroed gradient, then scatter */
  drop3(s, x, lp, total);
  return loss;
}

int pl_split(pl_sim *s, int base, int parts, uint64_t part_numel, int *out) {
  for (int i = 0; i < parts; i++) {
    out[i] = pl_view(s, base);
    s->t[out[i]].numel = part_numel;
  }
  int n = pl_node_add(s, PL_OP_SPLIT, out[0], &base, 1, NULL, 0, 0);
  if (n >= 0) {
    s->nodes[n].n_part = (uint8_t)parts;
    for (int i = 0; i < parts; i++) {
      s->nodes[n].part[i] = out[i];
      s->t[out[i]].rg = true;
    }
  }
  return n;
}

/* F.scaled_dot_product_attention on the GPU (flash or memory-efficient
 * kernels): it keeps q, k, v, its output and the log-sum-exp of each row
 * (fp32), never the seq x seq matrices; its backward holds an fp32
 * accumulator the size of q (aten/src/ATen/native/transformers/cuda/). */
int pl_sdpa(pl_sim *s, int q, int k, int v, uint64_t rows) {
  int qq = lower(s, q), kk = lower(s, k), vv = lower(s, v);
  int out = act(s, s->t[qq].numel, s->t[qq].dtype);
  int lse = act(s, rows, PL_F32);
  int in[3] = {qq, kk, vv}, saved[5] = {qq, kk, vv, out, lse};
  pl_node_add(s, PL_OP_EACH, out, in, 3, saved, 5, s->t[qq].dtype == PL_F32 ? 1 : 2);
  drop3(s, qq, kk, vv);
  pl_drop(s, lse);
  return out;
}

/* A fused linear + cross-entropy (Liger's FusedLinearCrossEntropy): the
 * logits are made a chunk of rows at a time (about rows * hidden / vocab
 * rows, a power of two), each chunk's gradient is written straight into the
 * input's and the weight's gradients, which forward keeps for backward. */
int pl_fused_ce(pl_sim *s, int x, int w, uint64_t rows, uint64_t vocab, uint64_t hidden) {
  int gi = act(s, s->t[x].numel, s->t[x].dtype);
  int gw = act(s, s->t[w].numel, s->t[w].dtype);
  int wh = lower(s, w);
  uint64_t per = (vocab + hidden - 1) / hidden, chunk = 1;
  while (chunk * per < rows && chunk < rows) chunk <<= 1;
  if (chunk > rows) chunk = rows;
  int logits = act(s, chunk * vocab, s->t[wh].dtype), l32 = act(s, chunk * vocab, PL_F32);
  pl_drop(s, logits);
  pl_drop(s, l32);
  pl_drop(s, wh);
  int loss = act(s, 1, PL_F32);
  int in[2] = {x, w}, saved[2] = {gi, gw};
  pl_node_add(s, PL_OP_GIVE, loss, in, 2, saved, 2, 0);
  pl_drop(s, gi);
  pl_drop(s, gw);
  return loss;
}
