/* One training step in steady state (the optimizer state already made by
 * the first): the parameters, buffers, batch, optimizer state and (on CUDA)
 * cuBLAS's workspaces; each micro-batch's forward under autocast, the loss
 * divided by the accumulation, backward; the optimizer step with its
 * temporaries; zero_grad (set_to_none=True, or the gradients kept as
 * zeros). What is live is counted all the way (plan_sim.c); the answer is
 * the peak and what it is made of. Optimizers: torch/optim/adamw.py and
 * sgd.py (for-loop, foreach or fused), transformers' optimization.py (Adafactor),
 * bitsandbytes' optim/optimizer.py (8-bit Adam). */
#include <stdlib.h>
#include <string.h>

#include "plan_llmc.h"
#include "plan_models.h"
#include "plan_ops.h"

#define MIB (1024ull * 1024ull)

/* cuBLAS's workspace per handle and stream, allocated through PyTorch's
 * caching allocator (aten/src/ATen/cuda/CublasHandlePool.cpp): the default
 * CUBLAS_WORKSPACE_CONFIG :4096:2:16:8, 32 MiB from compute capability 9 on.
 * Forward and backward run on two threads, so two handles, two workspaces. */
static uint64_t cublas_workspace(const lab_profile *p) {
  return p->cc_major >= 9 ? 4096ull * 8 * 1024 : 4096ull * 1024 * 2 + 16ull * 1024 * 8;
}

/* 8-bit Adam keeps uint8 moments for tensors of at least 4096 elements
 * (min_8bit_size), with an fp32 absmax per block of 256 for each moment. */
#define ADAM8_MIN 4096
#define ADAM8_BLOCK 256

static void make_state(pl_sim *s, const pl_model *m, int opt, int backend) {
  for (int i = 0; i < s->n_params; i++) {
    const pl_tensor *p = &s->t[s->params[i]];
    if (!p->rg) continue;
    uint64_t n = p->numel;
    int dt = p->dtype;
    switch (opt) {
      case LAB_PLAN_ADAMW:
        pl_new(s, n, dt, PL_K_STATE);
        pl_new(s, n, dt, PL_K_STATE);
        break;
      case LAB_PLAN_SGD: pl_new(s, n, dt, PL_K_STATE); break;
      case LAB_PLAN_ADAFACTOR:
        if (m->dim_prev[i]) { /* a row and a column statistic */
          pl_new(s, n / m->dim_last[i], dt, PL_K_STATE);
          pl_new(s, n / m->dim_prev[i], dt, PL_K_STATE);
        } else {
          pl_new(s, n, dt, PL_K_STATE);
        }
        break;
      default:
        if (n >= ADAM8_MIN) {
          pl_new(s, n, PL_BOOL, PL_K_STATE);
          pl_new(s, n, PL_BOOL, PL_K_STATE);
          pl_new(s, (n + ADAM8_BLOCK - 1) / ADAM8_BLOCK, PL_F32, PL_K_STATE);
          pl_new(s, (n + ADAM8_BLOCK - 1) / ADAM8_BLOCK, PL_F32, PL_K_STATE);
        } else {
          pl_new(s, n, PL_F32, PL_K_STATE);
          pl_new(s, n, PL_F32, PL_K_STATE);
        }
        break;
    }
    /* torch.optim keeps the step count as a tensor on the parameter's
     * device on the CPU; on CUDA (not fused, not capturable) on the host */
    if (backend == LAB_PLAN_BACKEND_CPU && opt == LAB_PLAN_ADAMW) pl_new(s, 1, PL_F32, PL_K_STATE);
  }
}

/* The optimizer step's temporaries. For-loop AdamW: denom =
 * (exp_avg_sq.sqrt() / c).add_(eps): two tensors of one parameter at once;
 * foreach AdamW: torch._foreach_sqrt(exp_avg_sqs), one of every parameter;
 * fused AdamW: none (one kernel updates in place); Adafactor (a loop):
 * update = grad ** 2 + eps beside a second full-size tensor; SGD with
 * momentum and 8-bit Adam update in place. */
static uint64_t optimizer_step(pl_sim *s, int opt, int impl) {
  uint64_t before = s->raw, top = s->raw;
  s->src = LAB_PLAN_SRC_OPTIMIZER;
  if (opt == LAB_PLAN_ADAMW && impl == LAB_PLAN_IMPL_FOREACH) {
    int first = s->n_t;
    for (int i = 0; i < s->n_params; i++) {
      const pl_tensor *p = &s->t[s->params[i]];
      if (p->rg) pl_new(s, p->numel, p->dtype, PL_K_ACT);
    }
    top = s->raw;
    for (int i = first; i < s->n_t; i++)
      if (s->t[i].live) pl_drop(s, i);
  } else if ((opt == LAB_PLAN_ADAMW && impl == LAB_PLAN_IMPL_FOR_LOOP) || opt == LAB_PLAN_ADAFACTOR) {
    for (int i = 0; i < s->n_params; i++) {
      const pl_tensor *p = &s->t[s->params[i]];
      if (!p->rg) continue;
      int dt = opt == LAB_PLAN_ADAFACTOR ? PL_F32 : p->dtype;
      int a = pl_new(s, p->numel, dt, PL_K_ACT), b = pl_new(s, p->numel, dt, PL_K_ACT);
      if (s->raw > top) top = s->raw;
      pl_drop(s, a);
      pl_drop(s, b);
    }
  }
  return top - before;
}

static void fill(const pl_sim *s, lab_plan_memory *out, uint64_t acts, const uint64_t *src,
                 uint64_t opt_temp) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < s->n_params; i++) {
    const pl_tensor *p = &s->t[s->params[i]];
    out->params += (double)p->numel;
    if (p->rg) out->trainable += (double)p->numel;
  }
  out->activations = acts;
  memcpy(out->act_src, src, sizeof out->act_src);
  out->optimizer_temp = opt_temp;
  out->tensor_peak = s->peak_raw;
  out->allocated = s->peak_rounded;
  out->reserved = s->small_hw + s->large_hw;
  out->peak_phase = s->peak_phase;
  memcpy(out->peak_kind, s->by_kind_at_peak, sizeof out->peak_kind);
  memcpy(out->peak_src, s->by_src_at_peak, sizeof out->peak_src);
}

struct lab_plan_work {
  pl_sim sim;
  pl_model model;
  int layers; /* what the tables were made for */
};

lab_plan_work *lab_plan_work_new(int layers) {
  lab_plan_work *w = malloc(sizeof *w);
  if (!w) return NULL;
  w->layers = layers;
  if (pl_sim_init(&w->sim, layers, PL_POLICY_CUDA) != 0) {
    free(w);
    return NULL;
  }
  return w;
}

void lab_plan_work_free(lab_plan_work *w) {
  if (!w) return;
  pl_sim_free(&w->sim);
  free(w);
}

/* llm.c allocates every buffer once, before the first step, with
 * cudaMalloc (no caching allocator): the counters all read the same sum,
 * and the device adds the context and cuBLASLt's 32 MiB workspace. */
static void llmc_memory(const lab_plan_settings *set, lab_plan_memory *out) {
  const lab_plan_model *md = &set->model;
  lab_plan_llmc g = {.layers = (uint64_t)md->layers, .channels = (uint64_t)md->hidden, .heads = (uint64_t)md->heads,
                     .vocab = (uint64_t)md->vocab, .max_seq = (uint64_t)md->max_positions,
                     .batch = (uint64_t)set->batch, .seq = (uint64_t)set->seq,
                     .cpu = set->precision == LAB_PLAN_FP32, .recompute = set->checkpointing,
                     .cudnn = set->attention == LAB_PLAN_SDPA};
  lab_plan_llmc_bytes b;
  lab_plan_llmc_sizes(&g, &b);
  memset(out, 0, sizeof *out);
  out->params = out->trainable = (double)b.params;
  out->weights = b.param_bytes;
  out->gradients = b.grad_bytes;
  out->optimizer_state = b.optimizer_bytes;
  out->activations = b.activations;
  out->act_src[LAB_PLAN_SRC_OTHER] = b.activations;
  out->workspace = g.cpu ? 0 : 32ull << 20;
  out->tensor_peak = out->allocated = out->reserved = b.param_bytes + b.grad_bytes + b.optimizer_bytes + b.activations;
  out->peak_phase = PL_PH_SETUP;
  out->peak_kind[PL_K_ACT] = b.activations;
  out->peak_kind[PL_K_PARAM] = b.param_bytes;
  out->peak_kind[PL_K_GRAD] = b.grad_bytes;
  out->peak_kind[PL_K_STATE] = b.optimizer_bytes;
  out->peak_kind[PL_K_WORKSPACE] = out->workspace;
  out->written_bytes = b.activations * 2;
  out->ops = md->layers * 30;
  out->param_tensors = 16;
  out->context = lab_plan_context_bytes(set, &out->context_label);
  out->device = out->allocated + out->workspace + out->context;
}

int lab_plan_memory_in(lab_plan_work *w, const lab_plan_settings *set, lab_plan_memory *out, lab_error *err) {
  if (set->layout == LAB_PLAN_LAYOUT_LLMC) {
    llmc_memory(set, out);
    return 0;
  }
  if (set->model.layers > w->layers)
    return lab_fail(err, LAB_E_INTERNAL, NULL, "the planner's tables were made for %d layers", w->layers);
  pl_sim *s = &w->sim;
  pl_model *m = &w->model;
  pl_sim_reset(s, set->backend == LAB_PLAN_BACKEND_CPU ? PL_POLICY_CPU : PL_POLICY_CUDA);
  pl_set_phase(s, PL_PH_SETUP);
  if (pl_model_setup(s, m, set) != 0) goto too_big;
  make_state(s, m, set->optimizer, set->backend);
  if (set->backend == LAB_PLAN_BACKEND_CUDA && set->model.arch != LAB_PLAN_CNN) {
    pl_new(s, cublas_workspace(&set->profile), PL_BOOL, PL_K_WORKSPACE);
    pl_new(s, cublas_workspace(&set->profile), PL_BOOL, PL_K_WORKSPACE);
  }
  uint64_t kind0[6];
  memcpy(kind0, s->by_kind, sizeof kind0);
  int half = set->precision == LAB_PLAN_AMP_FP16 ? PL_F16 : set->precision == LAB_PLAN_AMP_BF16 ? PL_BF16 : 0;
  /* the second and later micro-batches are alike; gradients kept as zeros
   * by zero_grad are there in the next step's forward as in a second micro-batch */
  int micro = set->accum > 1 || set->zero_grad == LAB_PLAN_ZERO_ZEROS ? 2 : 1;
  uint64_t acts = 0, src[LAB_PLAN_SOURCES] = {0}, written = 0;
  int ops = 0;
  for (int k = 0; k < micro && !s->failed; k++) {
    uint64_t w0 = s->written;
    int o0 = s->ops;
    pl_set_phase(s, PL_PH_FORWARD);
    s->autocast = half;
    s->census = k == 0;
    int loss = pl_model_forward(s, m);
    s->census = 0;
    pl_autocast_end(s);
    s->autocast = 0;
    if (k == 0) {
      acts = s->census_bytes;
      memcpy(src, s->census_src, sizeof src);
    }
    pl_set_phase(s, PL_PH_LOSS);
    int scaled = pl_scale(s, loss); /* loss / accum */
    pl_drop(s, loss);
    pl_set_phase(s, PL_PH_BACKWARD);
    pl_backward(s, scaled);
    pl_drop(s, scaled);
    written = s->written - w0;
    ops = s->ops - o0;
  }
  uint64_t grads = s->by_kind[PL_K_GRAD];
  pl_set_phase(s, PL_PH_OPTIMIZER);
  uint64_t temp = optimizer_step(s, set->optimizer, lab_plan_optimizer_impl_of(set));
  if (s->failed) goto too_big;
  fill(s, out, acts, src, temp);
  out->weights = kind0[PL_K_PARAM];
  out->optimizer_state = kind0[PL_K_STATE];
  out->buffers = kind0[PL_K_BUFFER];
  out->workspace = kind0[PL_K_WORKSPACE];
  out->gradients = grads;
  out->written_bytes = written;
  out->ops = ops;
  out->param_tensors = s->n_params;
  out->context = lab_plan_context_bytes(set, &out->context_label);
  out->device = out->reserved + out->context;
  return 0;
too_big:
  return lab_fail(err, LAB_E_INVALID_PARAM, "layers", "the model is too large for the planner's tables (%d layers)",
                  set->model.layers);
}

int lab_plan_memory_of(const lab_plan_settings *set, lab_plan_memory *out, lab_error *err) {
  lab_plan_work *w = lab_plan_work_new(set->model.layers);
  if (!w) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  int rc = lab_plan_memory_in(w, set, out, err);
  lab_plan_work_free(w);
  return rc;
}
