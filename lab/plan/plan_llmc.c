/* The planner set to llm.c's layout (karpathy/llm.c at f1e2ace6): llm.c
 * sizes every tensor of its GPT-2 training itself and allocates each group
 * once. train_gpt2.cu (bf16 activations in floatX, fp32 layernorm
 * statistics and losses, AdamW's m and v and master weights in fp32) keeps
 * per layer ln1, ln1 statistics, atty, the attention matrix (cuDNN keeps
 * only its row statistics), residual2, ln2 and its statistics, fch,
 * fch_gelu, residual3 and qkvr, plus scratch buffers; recompute 1 drops
 * fch_gelu to one layer's worth and 2 also the layernorm outputs.
 * train_gpt2.c (the CPU reference, all fp32) keeps preatt and att, qkv,
 * attproj and fcproj too, and the logits and probabilities. Each is
 * llm.c's fill_in_activation_sizes, read from its source and written here
 * as the planner's own arithmetic (docs/plan.md, "llm.c's layout"). */
#include "plan_llmc.h"

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t m = a > b ? a : b;
  return m > c ? m : c;
}

void lab_plan_llmc_sizes(const lab_plan_llmc *g, lab_plan_llmc_bytes *out) {
  uint64_t L = g->layers, C = g->channels, NH = g->heads, Vp = g->vocab, B = g->batch, T = g->seq;
  uint64_t BT = B * T, fx = g->cpu ? 4 : 2, f32 = 4;
  uint64_t acts;
  if (g->cpu) {
    acts = BT * C + L * BT * C + 2 * L * BT + L * BT * 3 * C + L * BT * C + 2 * L * B * NH * T * T + L * BT * C +
           L * BT * C + L * BT * C + 2 * L * BT + 2 * L * BT * 4 * C + L * BT * C + L * BT * C + BT * C + 2 * BT +
           2 * BT * Vp + BT;
    acts *= f32;
  } else {
    int r = g->recompute;
    acts = BT * C * fx;                                      /* encoded */
    acts += (r < 2 ? L * BT * C : 0) * fx;                   /* ln1 */
    acts += 2 * L * BT * f32;                                /* ln1 mean, rstd */
    acts += L * BT * C * fx;                                 /* atty */
    acts += g->cudnn ? L * B * NH * T * f32 : L * B * NH * T * T * fx; /* att */
    acts += L * BT * C * fx;                                 /* residual2 */
    acts += (r < 2 ? L * BT * C : 0) * fx;                   /* ln2 */
    acts += 2 * L * BT * f32;                                /* ln2 mean, rstd */
    acts += L * BT * 4 * C * fx;                             /* fch */
    acts += (r < 1 ? L * BT * 4 * C : BT * 4 * C) * fx;      /* fch_gelu */
    acts += L * BT * C * fx;                                 /* residual3 */
    acts += BT * C * fx + 3 * BT * f32;                      /* lnf; lnf mean, rstd; losses */
    acts += L * BT * 3 * C * fx;                             /* qkvr */
    acts += BT * max3(3 * C, NH * T, Vp) * fx;               /* output (logits, scratch) */
    acts += BT * 4 * C * fx + BT * C * fx;                   /* scratch_bt4c, scratch_btc */
  }
  /* fill_in_parameter_sizes: wte, wpe, then per layer ln1, qkv, attproj, ln2, fc, fcproj, then lnf */
  uint64_t params = Vp * C + g->max_seq * C + L * (2 * C + 3 * C * C + 3 * C + C * C + C + 2 * C + 4 * C * C + 4 * C +
                                                   4 * C * C + C) + 2 * C;
  out->activations = acts;
  out->params = params;
  out->param_bytes = params * fx;
  out->grad_bytes = params * fx;
  /* AdamW m, v and (bf16 training) an fp32 master copy */
  out->optimizer_bytes = params * f32 * (g->cpu ? 2 : 3);
}
