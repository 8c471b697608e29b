/* GPT-2, Llama, BERT and the small conv net, op by op in the order
 * transformers' eager code runs them (modeling_gpt2.py: GPT2Attention,
 * Conv1D, NewGELUActivation; modeling_llama.py: LlamaRMSNorm,
 * apply_rotary_pos_emb, repeat_kv, LlamaMLP; modeling_bert.py), with the
 * loss as ForCausalLMLoss computes it (logits upcast to fp32). Program
 * variables are dropped where Python would let go of them.
 * tests/plan/models.py is the same code in PyTorch. */
#include "plan_models.h"

#include <string.h>

#include "plan_ops.h"

/* Parameter slots of a layer. */
enum {
  GP_LN1_W, GP_LN1_B, GP_ATTN_W, GP_ATTN_B, GP_PROJ_W, GP_PROJ_B, GP_LN2_W, GP_LN2_B, GP_FC_W, GP_FC_B,
  GP_OUT_W, GP_OUT_B
};
enum { LL_IN_NORM, LL_Q, LL_K, LL_V, LL_O, LL_POST_NORM, LL_GATE, LL_UP, LL_DOWN, LL_LORA };
/* LoRA adapters: A and B of q, k, v, o, gate, up, down from LL_LORA on */
enum {
  BE_Q_W, BE_Q_B, BE_K_W, BE_K_B, BE_V_W, BE_V_B, BE_O_W, BE_O_B, BE_N1_W, BE_N1_B, BE_I_W, BE_I_B, BE_OUT_W,
  BE_OUT_B, BE_N2_W, BE_N2_B
};
enum { CV_W, CV_B };

static int param(pl_sim *s, pl_model *m, uint64_t prev, uint64_t last, bool trainable) {
  uint64_t numel = prev ? prev * last : last;
  int id = pl_param(s, numel, m->wdtype, trainable);
  if (s->failed) return id;
  int k = s->t[id].param;
  if (k < PL_MAX_PARAMS) {
    m->dim_last[k] = (uint32_t)last;
    m->dim_prev[k] = (uint32_t)prev;
  }
  if (trainable && numel > m->largest_param) m->largest_param = numel;
  return id;
}

static bool full_ft(const pl_model *m) { return m->set->lora_rank == 0; }

/* ---- parameters ------------------------------------------------------------ */

static void setup_gpt2(pl_sim *s, pl_model *m) {
  const lab_plan_model *md = &m->set->model;
  uint64_t h = m->h, f = m->ffn, n = (uint64_t)md->max_positions;
  m->wte = param(s, m, m->V, h, true);
  m->wpe = param(s, m, n, h, true);
  for (int l = 0; l < md->layers; l++) {
    int *p = m->lp[l];
    p[GP_LN1_W] = param(s, m, 0, h, true);
    p[GP_LN1_B] = param(s, m, 0, h, true);
    p[GP_ATTN_W] = param(s, m, h, 3 * h, true);
    p[GP_ATTN_B] = param(s, m, 0, 3 * h, true);
    p[GP_PROJ_W] = param(s, m, h, h, true);
    p[GP_PROJ_B] = param(s, m, 0, h, true);
    m->causal[l] = pl_new(s, n * n, PL_BOOL, PL_K_BUFFER);
    p[GP_LN2_W] = param(s, m, 0, h, true);
    p[GP_LN2_B] = param(s, m, 0, h, true);
    p[GP_FC_W] = param(s, m, h, f, true);
    p[GP_FC_B] = param(s, m, 0, f, true);
    p[GP_OUT_W] = param(s, m, f, h, true);
    p[GP_OUT_B] = param(s, m, 0, h, true);
  }
  m->lnf_w = param(s, m, 0, h, true);
  m->lnf_b = param(s, m, 0, h, true);
  m->head = md->tied ? m->wte : param(s, m, m->V, h, true);
}

/* A Llama linear: frozen under LoRA, with its adapter when it is a target. */
static void lora_linear(pl_sim *s, pl_model *m, int *p, int slot, uint64_t in, uint64_t out, bool target) {
  p[slot] = param(s, m, out, in, full_ft(m));
  int r = m->set->lora_rank, a = LL_LORA + 2 * (slot - LL_Q);
  if (r && target) {
    /* PEFT keeps the adapters in fp32 unless the whole model is bf16 */
    int wd = m->wdtype;
    m->wdtype = m->set->precision == LAB_PLAN_BF16 ? PL_BF16 : PL_F32;
    p[a] = param(s, m, (uint64_t)r, in, true);
    p[a + 1] = param(s, m, out, (uint64_t)r, true);
    m->wdtype = wd;
  } else {
    p[a] = p[a + 1] = -1;
  }
}

static void setup_llama(pl_sim *s, pl_model *m) {
  const lab_plan_model *md = &m->set->model;
  uint64_t h = m->h, kvd = m->kv * m->d, f = m->ffn;
  bool all = m->set->lora_targets == LAB_PLAN_LORA_ALL, attn = all || m->set->lora_targets == LAB_PLAN_LORA_QKVO;
  m->wte = param(s, m, m->V, h, full_ft(m));
  for (int l = 0; l < md->layers; l++) {
    int *p = m->lp[l];
    p[LL_IN_NORM] = param(s, m, 0, h, full_ft(m));
    lora_linear(s, m, p, LL_Q, h, h, true);
    lora_linear(s, m, p, LL_K, h, kvd, attn);
    lora_linear(s, m, p, LL_V, h, kvd, true);
    lora_linear(s, m, p, LL_O, h, h, attn);
    p[LL_POST_NORM] = param(s, m, 0, h, full_ft(m));
    lora_linear(s, m, p, LL_GATE, h, f, all);
    lora_linear(s, m, p, LL_UP, h, f, all);
    lora_linear(s, m, p, LL_DOWN, f, h, all);
  }
  m->lnf_w = param(s, m, 0, h, full_ft(m));
  m->inv_freq = pl_new(s, m->d / 2, m->wdtype, PL_K_BUFFER);
  m->head = md->tied ? m->wte : param(s, m, m->V, h, full_ft(m));
}

static void setup_bert(pl_sim *s, pl_model *m) {
  const lab_plan_model *md = &m->set->model;
  uint64_t h = m->h, f = m->ffn;
  m->wte = param(s, m, m->V, h, true);
  m->wpe = param(s, m, (uint64_t)md->max_positions, h, true);
  m->tte = param(s, m, 2, h, true);
  m->emb_w = param(s, m, 0, h, true);
  m->emb_b = param(s, m, 0, h, true);
  for (int l = 0; l < md->layers; l++) {
    int *p = m->lp[l];
    static const int sq[][2] = {{BE_Q_W, BE_Q_B}, {BE_K_W, BE_K_B}, {BE_V_W, BE_V_B}, {BE_O_W, BE_O_B}};
    for (int i = 0; i < 4; i++) {
      p[sq[i][0]] = param(s, m, h, h, true);
      p[sq[i][1]] = param(s, m, 0, h, true);
    }
    p[BE_N1_W] = param(s, m, 0, h, true);
    p[BE_N1_B] = param(s, m, 0, h, true);
    p[BE_I_W] = param(s, m, f, h, true);
    p[BE_I_B] = param(s, m, 0, f, true);
    p[BE_OUT_W] = param(s, m, h, f, true);
    p[BE_OUT_B] = param(s, m, 0, h, true);
    p[BE_N2_W] = param(s, m, 0, h, true);
    p[BE_N2_B] = param(s, m, 0, h, true);
  }
  if (md->head == LAB_PLAN_HEAD_LM) {
    m->tr_w = param(s, m, h, h, true);
    m->tr_b = param(s, m, 0, h, true);
    m->lnf_w = param(s, m, 0, h, true);
    m->lnf_b = param(s, m, 0, h, true);
    m->dec_b = param(s, m, 0, m->V, true);
    m->head = md->tied ? m->wte : param(s, m, m->V, h, true);
  } else {
    m->tr_w = param(s, m, h, h, true); /* the pooler */
    m->tr_b = param(s, m, 0, h, true);
    m->head = param(s, m, (uint64_t)md->classes, h, true);
    m->dec_b = param(s, m, 0, (uint64_t)md->classes, true);
  }
}

static uint64_t cnn_out_side(const lab_plan_model *md, int block) { return (uint64_t)md->image >> (block + 1); }

static void setup_cnn(pl_sim *s, pl_model *m) {
  const lab_plan_model *md = &m->set->model;
  uint64_t ch = (uint64_t)md->in_channels;
  for (int l = 0; l < md->layers; l++) {
    uint64_t out = (uint64_t)md->channels << l;
    m->lp[l][CV_W] = param(s, m, out * ch * 3, 3, true);
    m->dim_prev[s->t[m->lp[l][CV_W]].param] = 3;
    m->lp[l][CV_B] = param(s, m, 0, out, true);
    ch = out;
  }
  uint64_t side = cnn_out_side(md, md->layers - 1);
  m->fc_w = param(s, m, (uint64_t)md->classes, ch * side * side, true);
  m->fc_b = param(s, m, 0, (uint64_t)md->classes, true);
}

int pl_model_setup(pl_sim *s, pl_model *m, const lab_plan_settings *set) {
  const lab_plan_model *md = &set->model;
  memset(m, 0, sizeof *m);
  m->set = set;
  m->B = (uint64_t)set->batch;
  m->T = (uint64_t)set->seq;
  m->N = m->B * m->T;
  m->h = (uint64_t)md->hidden;
  m->a = (uint64_t)md->heads;
  m->kv = (uint64_t)md->kv_heads;
  m->d = md->heads ? m->h / m->a : 0;
  m->ffn = (uint64_t)md->ffn;
  m->V = (uint64_t)md->vocab;
  m->wdtype = set->precision == LAB_PLAN_BF16 ? PL_BF16 : PL_F32;
  /* LoRA on a half model (PEFT with torch_dtype set): the frozen base is
   * stored in the autocast dtype */
  if (set->lora_rank && set->precision == LAB_PLAN_AMP_FP16) m->wdtype = PL_F16;
  if (set->lora_rank && set->precision == LAB_PLAN_AMP_BF16) m->wdtype = PL_BF16;
  m->head = m->wpe = m->tte = m->emb_w = m->emb_b = m->lnf_w = m->lnf_b = -1;
  m->tr_w = m->tr_b = m->dec_b = m->inv_freq = -1;
  for (int l = 0; l < md->layers && l < PL_MAX_LAYERS; l++) m->region[l] = (pl_region){.m = m, .layer = l};
  switch (md->arch) {
    case LAB_PLAN_GPT2: setup_gpt2(s, m); break;
    case LAB_PLAN_LLAMA: setup_llama(s, m); break;
    case LAB_PLAN_BERT: setup_bert(s, m); break;
    default: setup_cnn(s, m); break;
  }
  /* the batch: token ids and labels (int64), or images and labels */
  if (md->arch == LAB_PLAN_CNN) {
    uint64_t side = (uint64_t)md->image;
    m->ids = pl_new(s, m->B * (uint64_t)md->in_channels * side * side, m->wdtype, PL_K_BUFFER);
    m->labels = pl_new(s, m->B, PL_I64, PL_K_BUFFER);
  } else {
    m->ids = pl_new(s, m->N, PL_I64, PL_K_BUFFER);
    m->labels = pl_new(s, m->N, PL_I64, PL_K_BUFFER);
  }
  return s->failed ? -1 : 0;
}

/* ---- GPT-2 -------------------------------------------------------------------- */

static int gpt2_core(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  (void)n_in;
  uint64_t scores = m->B * m->a * m->T * m->T;
  s->src = LAB_PLAN_SRC_SCORES;
  int w = pl_matmul(s, in[0], in[1], scores, true, true);
  int scale = pl_new(s, 1, s->t[w].dtype, PL_K_ACT); /* torch.full([], sqrt(d)) */
  int w2 = pl_new(s, scores, s->t[w].dtype, PL_K_ACT);
  pl_node_add(s, PL_OP_EACH, w2, &w, 1, &scale, 1, 0);
  pl_drop(s, scale);
  pl_drop(s, w);
  int mask = m->causal[r->layer], fill = pl_new(s, 1, s->t[w2].dtype, PL_K_ACT);
  int w3 = pl_new(s, scores, s->t[w2].dtype, PL_K_ACT); /* torch.where(causal, w, min) */
  pl_node_add(s, PL_OP_EACH, w3, &w2, 1, &mask, 1, 0);
  pl_drop(s, fill);
  pl_drop(s, w2);
  int p = pl_unary(s, w3, PL_U_SAVE_OUT | PL_U_FP32, 0);
  pl_drop(s, w3);
  int pt = pl_to(s, p, s->t[in[2]].dtype);
  pl_drop(s, p);
  int pd = pl_dropout(s, pt, m->set->model.dropout);
  pl_drop(s, pt);
  s->src = LAB_PLAN_SRC_SCORES;
  int o = pl_matmul(s, pd, in[2], m->N * m->h, false, true);
  pl_drop(s, pd);
  return o;
}

/* gelu_new: 0.5 * x * (1.0 + tanh(sqrt(2 / pi) * (x + 0.044715 * pow(x, 3)))) */
static int gelu_tanh(pl_sim *s, int x) {
  s->src = LAB_PLAN_SRC_MLP;
  int half = pl_scale(s, x);
  int p = pl_pow(s, x);
  int p2 = pl_scale(s, p);
  pl_drop(s, p);
  int s1 = pl_add(s, x, p2);
  pl_drop(s, p2);
  int s2 = pl_scale(s, s1);
  pl_drop(s, s1);
  int th = pl_unary(s, s2, PL_U_SAVE_OUT, 0);
  pl_drop(s, s2);
  int s3 = pl_shift(s, th);
  pl_drop(s, th);
  int out = pl_mul(s, half, s3, 0);
  pl_drop(s, half);
  pl_drop(s, s3);
  return out;
}

/* The attention core with SDPA: transformers' *SdpaAttention passes q, k,
 * v (k and v repeated for grouped-query attention) and no mask when the
 * batch has no padding (is_causal for decoders). */
static int sdpa_core(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  (void)n_in;
  s->src = LAB_PLAN_SRC_SCORES;
  return pl_sdpa(s, in[0], in[1], in[2], m->B * m->a * m->T);
}

static int core_or_ckpt(pl_sim *s, const pl_model *m, int layer, pl_region_fn core, int *in, int n_in) {
  const void *ctx = &m->region[layer];
  if (m->set->attention == LAB_PLAN_SDPA) core = sdpa_core;
  if (m->set->checkpointing != LAB_PLAN_CKPT_SELECTIVE || s->nograd) return core(s, ctx, in, n_in);
  s->nograd = 1;
  int out = core(s, ctx, in, n_in);
  s->nograd = 0;
  s->src = LAB_PLAN_SRC_CHECKPOINTS;
  pl_ckpt_add(s, out, in, n_in, core, ctx);
  return out;
}

static int gpt2_block(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  const int *p = m->lp[r->layer];
  uint64_t N = m->N, h = m->h;
  double drop = m->set->model.dropout;
  int x = in[0];
  (void)n_in;
  s->src = LAB_PLAN_SRC_NORMS;
  int ln = pl_layernorm(s, x, p[GP_LN1_W], p[GP_LN1_B], N);
  s->src = LAB_PLAN_SRC_ATTENTION;
  int qkv = pl_linear(s, ln, p[GP_ATTN_W], p[GP_ATTN_B], N, 3 * h);
  pl_drop(s, ln);
  int parts[3];
  pl_split(s, qkv, 3, N * h, parts);
  pl_drop(s, qkv);
  int o = core_or_ckpt(s, m, r->layer, gpt2_core, parts, 3);
  for (int i = 0; i < 3; i++) pl_drop(s, parts[i]);
  s->src = LAB_PLAN_SRC_ATTENTION;
  int om = pl_copy(s, o);
  pl_drop(s, o);
  int a = pl_linear(s, om, p[GP_PROJ_W], p[GP_PROJ_B], N, h);
  pl_drop(s, om);
  int ad = pl_dropout(s, a, drop);
  pl_drop(s, a);
  int x2 = pl_add(s, ad, x);
  pl_drop(s, ad);
  s->src = LAB_PLAN_SRC_NORMS;
  int ln2 = pl_layernorm(s, x2, p[GP_LN2_W], p[GP_LN2_B], N);
  s->src = LAB_PLAN_SRC_MLP;
  int f = pl_linear(s, ln2, p[GP_FC_W], p[GP_FC_B], N, m->ffn);
  pl_drop(s, ln2);
  int g = m->set->model.mlp == LAB_PLAN_MLP_GELU_TANH ? gelu_tanh(s, f) : pl_unary(s, f, PL_U_SAVE_IN, 0);
  pl_drop(s, f);
  s->src = LAB_PLAN_SRC_MLP;
  int y = pl_linear(s, g, p[GP_OUT_W], p[GP_OUT_B], N, h);
  pl_drop(s, g);
  int yd = pl_dropout(s, y, drop);
  pl_drop(s, y);
  int out = pl_add(s, x2, yd);
  pl_drop(s, x2);
  pl_drop(s, yd);
  return out;
}

/* ---- Llama ---------------------------------------------------------------------- */

static int rmsnorm(pl_sim *s, int x, int w, uint64_t rows) {
  s->src = LAB_PLAN_SRC_NORMS;
  int dt = s->t[x].dtype;
  int x32 = pl_to(s, x, PL_F32);
  int p2 = pl_pow(s, x32);
  /* mean(-1, keepdim=True): torch 1.13's node saves its input, torch 2's
   * only the sizes (the CPU reference runs 1.13) */
  int var = pl_new(s, rows, PL_F32, PL_K_ACT);
  pl_node_add(s, PL_OP_EACH, var, &p2, 1, &p2, s->policy == PL_POLICY_CPU ? 1 : 0, 0);
  pl_drop(s, p2);
  int ve = pl_shift(s, var);
  pl_drop(s, var);
  int r = pl_unary(s, ve, PL_U_SAVE_OUT, 0); /* rsqrt */
  pl_drop(s, ve);
  int y = pl_mul(s, x32, r, 1);
  pl_drop(s, x32);
  pl_drop(s, r);
  int yc = pl_to(s, y, dt);
  pl_drop(s, y);
  int in[2] = {yc, w};
  int out = pl_new(s, s->t[yc].numel, pl_promote(s->t[w].dtype, s->t[yc].dtype), PL_K_ACT);
  int saved[2], n_saved = 0;
  if (s->t[w].rg) saved[n_saved++] = yc;
  if (s->t[yc].rg) saved[n_saved++] = w;
  pl_node_add(s, PL_OP_EACH, out, in, 2, saved, n_saved, 1);
  pl_drop(s, yc);
  return out;
}

/* nn.Linear, or PEFT's lora.Linear: base(x) + lora_B(lora_A(dropout(x))) *
 * scaling, each adapter with a dropout of its own (peft/tuners/lora/layer.py) */
static int llama_linear(pl_sim *s, const pl_model *m, const int *p, int slot, int x, uint64_t out_f) {
  uint64_t N = m->N;
  int y = pl_linear(s, x, p[slot], -1, N, out_f);
  int a = LL_LORA + 2 * (slot - LL_Q);
  if (slot < LL_Q || p[a] < 0) return y;
  int xd = pl_dropout(s, x, m->set->lora_dropout);
  int la = pl_linear(s, xd, p[a], -1, N, (uint64_t)m->set->lora_rank);
  pl_drop(s, xd);
  int lb = pl_linear(s, la, p[a + 1], -1, N, out_f);
  pl_drop(s, la);
  int ls = pl_scale(s, lb);
  pl_drop(s, lb);
  int sum = pl_add(s, y, ls);
  pl_drop(s, y);
  pl_drop(s, ls);
  return sum;
}

/* (q * cos) + (rotate_half(q) * sin); cos and sin need no grad, so the
 * products save only them. */
static int rope(pl_sim *s, int q, int cos, int sin) {
  int t1 = pl_mul(s, q, cos, 0);
  /* rotate_half: -x2 (half of q; its backward fills a zeroed q-sized
   * gradient), then torch.cat((-x2, x1)) (whose backward only narrows) */
  int neg = pl_new(s, s->t[q].numel / 2, s->t[q].dtype, PL_K_ACT);
  pl_node_add(s, PL_OP_EACH, neg, &q, 1, NULL, 0, 0);
  int rot = pl_new(s, s->t[q].numel, s->t[q].dtype, PL_K_ACT);
  pl_node_add(s, PL_OP_PASS, rot, &neg, 1, NULL, 0, 0);
  pl_drop(s, neg);
  int t2 = pl_mul(s, rot, sin, 0);
  pl_drop(s, rot);
  int out = pl_add(s, t1, t2);
  pl_drop(s, t1);
  pl_drop(s, t2);
  return out;
}

static int repeat_kv(pl_sim *s, const pl_model *m, int x) {
  if (m->kv == m->a) {
    pl_ref(s, x);
    return x;
  }
  int out = pl_new(s, m->N * m->h, s->t[x].dtype, PL_K_ACT);
  pl_node_add(s, PL_OP_EACH, out, &x, 1, NULL, 0, 0);
  return out;
}

/* softmax(q·kᵀ * scale + mask), the mask in in[3]: the seq x seq scores of
 * Llama's and BERT's eager attention. copy: q and k are permuted views
 * that matmul copies (BERT); flags: how softmax meets autocast. */
static int masked_softmax(pl_sim *s, const pl_model *m, const int *in, bool copy, int flags) {
  s->src = LAB_PLAN_SRC_SCORES;
  int w = pl_matmul(s, in[0], in[1], m->B * m->a * m->T * m->T, copy, copy);
  int w2 = pl_scale(s, w);
  pl_drop(s, w);
  int w3 = pl_add(s, w2, in[3]);
  pl_drop(s, w2);
  int p = pl_unary(s, w3, PL_U_SAVE_OUT | flags, 0);
  pl_drop(s, w3);
  return p;
}

static int llama_core(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  (void)n_in;
  int p = masked_softmax(s, m, in, false, PL_U_TO_FP32);
  int pt = pl_to(s, p, s->t[in[0]].dtype);
  pl_drop(s, p);
  int o = pl_matmul(s, pt, in[2], m->N * m->h, false, false);
  pl_drop(s, pt);
  return o;
}

static int llama_block(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  const int *p = m->lp[r->layer];
  uint64_t N = m->N, h = m->h, kvd = m->kv * m->d;
  int x = in[0], cos = in[1], sin = in[2], mask = in[3];
  (void)n_in;
  int ln = rmsnorm(s, x, p[LL_IN_NORM], N);
  s->src = LAB_PLAN_SRC_ATTENTION;
  int q = llama_linear(s, m, p, LL_Q, ln, h);
  int k = llama_linear(s, m, p, LL_K, ln, kvd);
  int v = llama_linear(s, m, p, LL_V, ln, kvd);
  pl_drop(s, ln);
  int qe = rope(s, q, cos, sin);
  pl_drop(s, q);
  int ke = rope(s, k, cos, sin);
  pl_drop(s, k);
  int kr = repeat_kv(s, m, ke);
  pl_drop(s, ke);
  int vr = repeat_kv(s, m, v);
  pl_drop(s, v);
  int core_in[4] = {qe, kr, vr, mask};
  int o = core_or_ckpt(s, m, r->layer, llama_core, core_in, 4);
  pl_drop(s, qe);
  pl_drop(s, kr);
  pl_drop(s, vr);
  s->src = LAB_PLAN_SRC_ATTENTION;
  int oc = pl_copy(s, o);
  pl_drop(s, o);
  int a = llama_linear(s, m, p, LL_O, oc, h);
  pl_drop(s, oc);
  int x2 = pl_add(s, x, a);
  pl_drop(s, a);
  int ln2 = rmsnorm(s, x2, p[LL_POST_NORM], N);
  s->src = LAB_PLAN_SRC_MLP;
  int gate = llama_linear(s, m, p, LL_GATE, ln2, m->ffn);
  int sg = pl_unary(s, gate, PL_U_SAVE_IN, 0);
  pl_drop(s, gate);
  int up = llama_linear(s, m, p, LL_UP, ln2, m->ffn);
  pl_drop(s, ln2);
  int prod = pl_mul(s, sg, up, 0);
  pl_drop(s, sg);
  pl_drop(s, up);
  int d = llama_linear(s, m, p, LL_DOWN, prod, h);
  pl_drop(s, prod);
  int out = pl_add(s, x2, d);
  pl_drop(s, x2);
  pl_drop(s, d);
  return out;
}

/* ---- BERT ----------------------------------------------------------------------- */

static int bert_core(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  (void)n_in;
  int p = masked_softmax(s, m, in, true, PL_U_FP32);
  int pd = pl_dropout(s, p, m->set->model.dropout);
  pl_drop(s, p);
  s->src = LAB_PLAN_SRC_SCORES;
  int o = pl_matmul(s, pd, in[2], m->N * m->h, false, true);
  pl_drop(s, pd);
  return o;
}

static int bert_block(pl_sim *s, const void *ctx, const int *in, int n_in) {
  const pl_region *r = ctx;
  const pl_model *m = r->m;
  const int *p = m->lp[r->layer];
  uint64_t N = m->N, h = m->h;
  double drop = m->set->model.dropout;
  int x = in[0];
  (void)n_in;
  s->src = LAB_PLAN_SRC_ATTENTION;
  int q = pl_linear(s, x, p[BE_Q_W], p[BE_Q_B], N, h);
  int k = pl_linear(s, x, p[BE_K_W], p[BE_K_B], N, h);
  int v = pl_linear(s, x, p[BE_V_W], p[BE_V_B], N, h);
  int core_in[4] = {q, k, v, in[1]};
  int o = core_or_ckpt(s, m, r->layer, bert_core, core_in, 4);
  pl_drop(s, q);
  pl_drop(s, k);
  pl_drop(s, v);
  s->src = LAB_PLAN_SRC_ATTENTION;
  int oc = pl_copy(s, o);
  pl_drop(s, o);
  int a = pl_linear(s, oc, p[BE_O_W], p[BE_O_B], N, h);
  pl_drop(s, oc);
  int ad = pl_dropout(s, a, drop);
  pl_drop(s, a);
  s->src = LAB_PLAN_SRC_NORMS;
  int sum = pl_add(s, ad, x);
  pl_drop(s, ad);
  int x2 = pl_layernorm(s, sum, p[BE_N1_W], p[BE_N1_B], N);
  pl_drop(s, sum);
  s->src = LAB_PLAN_SRC_MLP;
  int i = pl_linear(s, x2, p[BE_I_W], p[BE_I_B], N, m->ffn);
  int g = pl_unary(s, i, PL_U_SAVE_IN, 0);
  pl_drop(s, i);
  int y = pl_linear(s, g, p[BE_OUT_W], p[BE_OUT_B], N, h);
  pl_drop(s, g);
  int yd = pl_dropout(s, y, drop);
  pl_drop(s, y);
  s->src = LAB_PLAN_SRC_NORMS;
  int sum2 = pl_add(s, yd, x2);
  pl_drop(s, yd);
  pl_drop(s, x2);
  int out = pl_layernorm(s, sum2, p[BE_N2_W], p[BE_N2_B], N);
  pl_drop(s, sum2);
  return out;
}

/* ---- the layers, checkpointed or not ------------------------------------------------ */

static int run_layer(pl_sim *s, pl_model *m, pl_region_fn block, int layer, int *in, int n_in) {
  const void *ctx = &m->region[layer];
  if (m->set->checkpointing != LAB_PLAN_CKPT_FULL) return block(s, ctx, in, n_in);
  s->nograd = 1;
  int out = block(s, ctx, in, n_in);
  s->nograd = 0;
  s->src = LAB_PLAN_SRC_CHECKPOINTS;
  pl_ckpt_add(s, out, in, n_in, block, ctx);
  return out;
}

/* The language-model loss: logits (lm_head), upcast to fp32, cross-entropy. */
static int lm_loss(pl_sim *s, pl_model *m, int x) {
  s->src = LAB_PLAN_SRC_LOGITS;
  if (m->set->loss == LAB_PLAN_LOSS_FUSED) return pl_fused_ce(s, x, m->head, m->N, m->V, m->h);
  int logits = pl_linear(s, x, m->head, -1, m->N, m->V);
  if (m->dec_b >= 0) {
    int lb = pl_add(s, logits, m->dec_b);
    pl_drop(s, logits);
    logits = lb;
  }
  /* transformers' loss_function upcasts the logits (logits.float()); plain
   * code hands them to F.cross_entropy as they are (autocast still runs it in fp32) */
  bool plain = m->set->loss == LAB_PLAN_LOSS_PLAIN;
  if (plain) pl_ref(s, logits);
  int l32 = plain ? logits : pl_to(s, logits, PL_F32);
  int loss = pl_cross_entropy(s, l32);
  pl_drop(s, l32);
  pl_drop(s, logits);
  return loss;
}

/* wte(ids) + wpe(arange(seq)): GPT-2's and BERT's learned positions */
static int token_and_position(pl_sim *s, pl_model *m) {
  s->src = LAB_PLAN_SRC_EMBEDDINGS;
  int x = pl_embedding(s, m->wte, m->ids, m->N, m->h);
  int pos = pl_new(s, m->T, PL_I64, PL_K_ACT);
  int pe = pl_embedding(s, m->wpe, pos, m->T, m->h);
  pl_drop(s, pos);
  int x2 = pl_add(s, x, pe);
  pl_drop(s, x);
  pl_drop(s, pe);
  return x2;
}

static int forward_gpt2(pl_sim *s, pl_model *m) {
  int x2 = token_and_position(s, m);
  int x = pl_dropout(s, x2, m->set->model.dropout);
  pl_drop(s, x2);
  for (int l = 0; l < m->set->model.layers; l++) {
    int y = run_layer(s, m, gpt2_block, l, &x, 1);
    pl_drop(s, x);
    x = y;
  }
  s->src = LAB_PLAN_SRC_NORMS;
  int ln = pl_layernorm(s, x, m->lnf_w, m->lnf_b, m->N);
  pl_drop(s, x);
  int loss = lm_loss(s, m, ln);
  pl_drop(s, ln);
  return loss;
}

static int forward_llama(pl_sim *s, pl_model *m) {
  s->src = LAB_PLAN_SRC_EMBEDDINGS;
  int x = pl_embedding(s, m->wte, m->ids, m->N, m->h);
  if (m->set->lora_rank) s->t[x].rg = true; /* enable_input_require_grads */
  /* the rotary tables, made under no_grad once per forward: cos and sin,
   * (1, seq, head_dim) in the activations' dtype */
  s->src = LAB_PLAN_SRC_ATTENTION;
  int cos = pl_new(s, m->T * m->d, s->t[x].dtype, PL_K_ACT);
  int sin = pl_new(s, m->T * m->d, s->t[x].dtype, PL_K_ACT);
  /* eager attention adds a (batch, 1, seq, seq) causal mask; SDPA is told
   * is_causal and gets none (_update_causal_mask) */
  int mask = -1;
  if (m->set->attention == LAB_PLAN_EAGER) {
    int full = pl_new(s, m->B * m->T * m->T, s->t[x].dtype, PL_K_ACT);
    mask = pl_new(s, m->B * m->T * m->T, s->t[x].dtype, PL_K_ACT); /* .triu(1) */
    pl_drop(s, full);
  } else {
    mask = pl_new(s, 0, s->t[x].dtype, PL_K_ACT);
  }
  for (int l = 0; l < m->set->model.layers; l++) {
    int in[4] = {x, cos, sin, mask};
    int y = run_layer(s, m, llama_block, l, in, 4);
    pl_drop(s, x);
    x = y;
  }
  pl_drop(s, mask);
  int ln = rmsnorm(s, x, m->lnf_w, m->N);
  pl_drop(s, x);
  int loss = lm_loss(s, m, ln);
  pl_drop(s, ln);
  pl_drop(s, cos);
  pl_drop(s, sin);
  return loss;
}

static int forward_bert(pl_sim *s, pl_model *m) {
  int x2 = token_and_position(s, m);
  int types = pl_new(s, m->N, PL_I64, PL_K_ACT);
  int te = pl_embedding(s, m->tte, types, m->N, m->h);
  pl_drop(s, types);
  int x3 = pl_add(s, x2, te);
  pl_drop(s, x2);
  pl_drop(s, te);
  s->src = LAB_PLAN_SRC_NORMS;
  int ln = pl_layernorm(s, x3, m->emb_w, m->emb_b, m->N);
  pl_drop(s, x3);
  int mask = pl_new(s, m->N, s->t[ln].dtype, PL_K_ACT);
  int x = pl_dropout(s, ln, m->set->model.dropout);
  pl_drop(s, ln);
  for (int l = 0; l < m->set->model.layers; l++) {
    int in[2] = {x, mask};
    int y = run_layer(s, m, bert_block, l, in, 2);
    pl_drop(s, x);
    x = y;
  }
  int loss;
  if (m->set->model.head == LAB_PLAN_HEAD_LM) {
    s->src = LAB_PLAN_SRC_LOGITS;
    int t = pl_linear(s, x, m->tr_w, m->tr_b, m->N, m->h);
    pl_drop(s, x);
    int g = pl_unary(s, t, PL_U_SAVE_IN, 0);
    pl_drop(s, t);
    s->src = LAB_PLAN_SRC_NORMS;
    int n = pl_layernorm(s, g, m->lnf_w, m->lnf_b, m->N);
    pl_drop(s, g);
    loss = lm_loss(s, m, n);
    pl_drop(s, n);
  } else {
    /* the pooler on the first token, tanh, dropout, the classifier */
    s->src = LAB_PLAN_SRC_LOGITS;
    int first; /* hidden_states[:, 0]: its backward scatters into a zeroed gradient of x's size */
    pl_split(s, x, 1, m->B * m->h, &first);
    int t = pl_linear(s, first, m->tr_w, m->tr_b, m->B, m->h);
    pl_drop(s, first);
    pl_drop(s, x);
    int th = pl_unary(s, t, PL_U_SAVE_OUT, 0);
    pl_drop(s, t);
    int d = pl_dropout(s, th, m->set->model.dropout);
    pl_drop(s, th);
    int logits = pl_linear(s, d, m->head, m->dec_b, m->B, (uint64_t)m->set->model.classes);
    pl_drop(s, d);
    int l32 = pl_to(s, logits, PL_F32);
    loss = pl_cross_entropy(s, l32);
    pl_drop(s, l32);
    pl_drop(s, logits);
  }
  pl_drop(s, mask);
  return loss;
}

/* ---- the conv net ---------------------------------------------------------------------- */

static int forward_cnn(pl_sim *s, pl_model *m) {
  const lab_plan_model *md = &m->set->model;
  int x = m->ids;
  pl_ref(s, x);
  uint64_t side = (uint64_t)md->image;
  for (int l = 0; l < md->layers; l++) {
    uint64_t ch = (uint64_t)md->channels << l;
    s->src = LAB_PLAN_SRC_CONV;
    int xx = pl_linear(s, x, m->lp[l][CV_W], m->lp[l][CV_B], m->B * side * side, ch); /* conv 3x3, padding 1 */
    pl_drop(s, x);
    int r = pl_unary(s, xx, PL_U_SAVE_OUT, 0);
    pl_drop(s, xx);
    side /= 2;
    int idx = pl_new(s, m->B * ch * side * side, PL_I64, PL_K_ACT);
    x = pl_new(s, m->B * ch * side * side, s->t[r].dtype, PL_K_ACT);
    int saved[2] = {r, idx};
    pl_node_add(s, PL_OP_EACH, x, &r, 1, saved, 2, 0);
    pl_drop(s, idx);
    pl_drop(s, r);
  }
  s->src = LAB_PLAN_SRC_LOGITS;
  int logits = pl_linear(s, x, m->fc_w, m->fc_b, m->B, (uint64_t)md->classes);
  pl_drop(s, x);
  /* transformers' loss_function upcasts the logits (logits.float()); plain
   * code hands them to F.cross_entropy as they are (autocast still runs it in fp32) */
  bool plain = m->set->loss == LAB_PLAN_LOSS_PLAIN;
  if (plain) pl_ref(s, logits);
  int l32 = plain ? logits : pl_to(s, logits, PL_F32);
  int loss = pl_cross_entropy(s, l32);
  pl_drop(s, l32);
  pl_drop(s, logits);
  return loss;
}

int pl_model_forward(pl_sim *s, pl_model *m) {
  switch (m->set->model.arch) {
    case LAB_PLAN_GPT2: return forward_gpt2(s, m);
    case LAB_PLAN_LLAMA: return forward_llama(s, m);
    case LAB_PLAN_BERT: return forward_bert(s, m);
    default: return forward_cnn(s, m);
  }
}
