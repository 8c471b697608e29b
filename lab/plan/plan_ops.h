/* The ops of the planner's PyTorch model (plan_ops.c), used by the model
 * builders. Each returns a new reference to its output (pl_drop it when the
 * program variable would go); the inputs stay the caller's. */
#ifndef LAB_PLAN_OPS_H
#define LAB_PLAN_OPS_H

#include "plan_int.h"

int pl_promote(int a, int b);
/* A parameter (trainable or frozen), numbered in creation order. */
int pl_param(pl_sim *s, uint64_t numel, int dtype, bool trainable);
/* Autocast's cached weight copies are let go when its region ends. */
void pl_autocast_end(pl_sim *s);

int pl_to(pl_sim *s, int x, int dtype);
int pl_copy(pl_sim *s, int x); /* .contiguous() of a view that needs it, clone */
/* y = x W^T + b over `rows` rows (b may be -1). */
int pl_linear(pl_sim *s, int x, int w, int b, uint64_t rows, uint64_t out_f);
/* a @ b; copy_a/copy_b: that operand is a permuted view at::matmul copies. */
int pl_matmul(pl_sim *s, int a, int b, uint64_t out_numel, bool copy_a, bool copy_b);
int pl_layernorm(pl_sim *s, int x, int w, int b, uint64_t rows);

/* An elementwise op of one input: what it saves and its output's dtype. */
#define PL_U_SAVE_IN 1  /* saves its input (gelu, silu, pow) */
#define PL_U_SAVE_OUT 2 /* saves its output (tanh, relu, softmax, rsqrt) */
#define PL_U_FP32 4     /* autocast runs it in fp32 on CUDA (softmax, log_softmax) */
#define PL_U_TO_FP32 8  /* asked for in fp32 (softmax(..., dtype=torch.float32)) */
int pl_unary(pl_sim *s, int x, int how, int tmp_x);
int pl_pow(pl_sim *s, int x);   /* x ** 2, x ** 3 (fp32 under CUDA autocast) */
int pl_scale(pl_sim *s, int x); /* x * a Python number, x / a Python number */
int pl_shift(pl_sim *s, int x); /* x + a Python number */
int pl_add(pl_sim *s, int a, int b);
int pl_mul(pl_sim *s, int a, int b, int tmp_x);
int pl_dropout(pl_sim *s, int x, double p);
int pl_embedding(pl_sim *s, int w, int ids, uint64_t rows, uint64_t width);
/* F.cross_entropy on fp32 logits: log_softmax (its output saved) and nll_loss. */
int pl_cross_entropy(pl_sim *s, int logits);
/* scaled_dot_product_attention (flash / memory-efficient); rows: batch * heads * seq. */
int pl_sdpa(pl_sim *s, int q, int k, int v, uint64_t rows);
/* The fused linear + cross-entropy over `rows` rows (returns the loss). */
int pl_fused_ce(pl_sim *s, int x, int w, uint64_t rows, uint64_t vocab, uint64_t hidden);
/* parts views of `base` of part_numel each (split, chunk); out[] gets them. */
int pl_split(pl_sim *s, int base, int parts, uint64_t part_numel, int *out);

#endif
