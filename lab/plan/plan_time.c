/* The step time: FLOPs of every matmul of the step (forward 2·m·n·k,
 * backward twice that, once for a frozen weight: its input's gradient
 * only), attention's seq² products, the forward run again by
 * checkpointing; each matmul at the rate the profile's GEMM model gives its
 * shape on the tensor cores or the SIMT cores (lab/sim/gpu_model.c); the
 * elementwise, norm and softmax kernels as memory traffic (every byte the
 * step's ops write, written once and read twice) at the profile's copy
 * bandwidth; the host's cost per op (launch + PyTorch's own), which hides
 * behind a busy GPU and shows when the GPU waits; the optimizer's pass over
 * its state. docs/plan.md gives the sources; the band says how sure. */
#include "plan_time.h"

#include "gpu_model.h"

/* An ms figure from flops at a rate. */
static double gemm_ms(const lab_plan_settings *s, double m, double n, double k, double flops) {
  const lab_profile *p = &s->profile;
  double rate;
  switch (s->precision) {
    case LAB_PLAN_AMP_FP16: rate = p->fp16_tflops * lab_tc_efficiency(p, m, n, k, 2); break;
    case LAB_PLAN_AMP_BF16:
    case LAB_PLAN_BF16:
      /* without BF16 tensor cores (T4, V100) bf16 matmuls run emulated */
      rate = p->bf16_tflops > 0 ? p->bf16_tflops * lab_tc_efficiency(p, m, n, k, 2)
                                : p->fp32_tflops * lab_gemm_efficiency(p, m, n, k) * p->bf16_fallback;
      break;
    default: rate = p->fp32_tflops * lab_gemm_efficiency(p, m, n, k); break;
  }
  if (!(rate > 0)) rate = p->fp32_tflops * lab_gemm_efficiency(p, m, n, k);
  return flops / (rate * 1e12) * 1e3;
}

/* One linear over m rows: forward, and backward's input and weight products. */
static void linear(const lab_plan_settings *s, double m, double in, double out, bool trainable, double passes,
                   lab_plan_time *t) {
  double f = 2 * m * in * out;
  double ms = gemm_ms(s, m, out, in, f);
  double bwd = trainable ? 2 : 1;
  t->flops += f * (passes + bwd);
  t->matmul_ms += ms * (passes + bwd);
}

static void transformer(const lab_plan_settings *s, lab_plan_time *t) {
  const lab_plan_model *md = &s->model;
  double N = (double)s->batch * s->seq, h = md->hidden, f = md->ffn, V = md->vocab, T = s->seq;
  double d = h / md->heads, kvd = d * md->kv_heads, bh = (double)s->batch * md->heads;
  bool full = s->lora_rank == 0, all = s->lora_targets == LAB_PLAN_LORA_ALL;
  /* the forward runs twice under full checkpointing */
  double passes = s->checkpointing == LAB_PLAN_CKPT_FULL ? 2 : 1;
  for (int l = 0; l < md->layers; l++) {
    if (md->arch == LAB_PLAN_LLAMA) {
      const double io[7][2] = {{h, h}, {h, kvd}, {h, kvd}, {h, h}, {h, f}, {h, f}, {f, h}};
      for (int i = 0; i < 7; i++) linear(s, N, io[i][0], io[i][1], full, passes, t);
      if (s->lora_rank) {
        int targets = all ? 7 : s->lora_targets == LAB_PLAN_LORA_QKVO ? 4 : 2;
        for (int i = 0; i < targets; i++) {
          linear(s, N, h, s->lora_rank, true, passes, t);
          linear(s, N, s->lora_rank, h, true, passes, t);
        }
      }
    } else {
      if (md->arch == LAB_PLAN_GPT2) linear(s, N, h, 3 * h, true, passes, t);
      else for (int i = 0; i < 3; i++) linear(s, N, h, h, true, passes, t);
      linear(s, N, h, h, true, passes, t);
      linear(s, N, h, f, true, passes, t);
      linear(s, N, f, h, true, passes, t);
    }
    /* q·kᵀ and p·v: 2·2·b·heads·seq²·head_dim forward; eager computes every
     * score, SDPA's causal kernels half of them and recompute them once
     * more in backward (flash attention's backward: 2.5 forwards) */
    double fa = 4 * bh * T * T * d, bwd = 2, extra = 0;
    if (s->attention == LAB_PLAN_SDPA) {
      if (md->arch != LAB_PLAN_BERT) fa *= 0.5;
      bwd = 2.5;
    }
    if (s->checkpointing == LAB_PLAN_CKPT_SELECTIVE) extra = 1;
    double ms = gemm_ms(s, bh * T, T, d, fa);
    t->flops += fa * (passes + extra + bwd);
    t->matmul_ms += ms * (passes + extra + bwd);
  }
  if (md->arch == LAB_PLAN_BERT && md->head == LAB_PLAN_HEAD_LM) linear(s, N, h, h, true, 1, t);
  if (md->arch == LAB_PLAN_BERT && md->head == LAB_PLAN_HEAD_CLASSIFY) linear(s, s->batch, h, md->classes, true, 1, t);
  else linear(s, N, h, V, full, 1, t);
}

static void convnet(const lab_plan_settings *s, lab_plan_time *t) {
  const lab_plan_model *md = &s->model;
  double side = md->image, in = md->in_channels;
  for (int l = 0; l < md->layers; l++) {
    double out = (double)md->channels * (1 << l);
    linear(s, (double)s->batch * side * side, in * 9, out, true, 1, t); /* an implicit GEMM */
    in = out;
    side /= 2;
  }
  linear(s, s->batch, in * side * side, md->classes, true, 1, t);
}

/* Bytes per trainable parameter the optimizer step reads and writes:
 * AdamW reads weight, gradient and two moments and writes three; SGD with
 * momentum reads three and writes two; Adafactor about the weight and the
 * gradient twice; 8-bit Adam its byte moments. */
static double optimizer_bytes(const lab_plan_settings *s, const lab_plan_memory *m) {
  double per = s->precision == LAB_PLAN_BF16 ? 2 : 4, n = m->trainable;
  switch (s->optimizer) {
    case LAB_PLAN_ADAMW: return n * per * 7;
    case LAB_PLAN_SGD: return n * per * 5;
    case LAB_PLAN_ADAFACTOR: return n * per * 4;
    default: return n * (per * 3 + 4);
  }
}

void lab_plan_time_of(const lab_plan_settings *s, const lab_plan_memory *m, lab_plan_time *t) {
  const lab_profile *p = &s->profile;
  *t = (lab_plan_time){0};
  if (s->model.arch == LAB_PLAN_CNN) convnet(s, t);
  else transformer(s, t);
  t->memory_ms = LAB_PLAN_TRAFFIC_PER_BYTE * (double)m->written_bytes / (p->mem_bw_gbps * 1e9) * 1e3;
  t->host_ms = (double)m->ops * (p->launch_us + p->torch_op_us) / 1e3;
  double gpu = t->matmul_ms + t->memory_ms;
  double micro = gpu > t->host_ms ? gpu : t->host_ms;
  t->host_bound = t->host_ms > gpu;
  /* foreach: a few dozen kernels; fused: a handful; a loop: about five per parameter tensor */
  int impl = lab_plan_optimizer_impl_of(s);
  double kernels = s->optimizer != LAB_PLAN_ADAMW || impl == LAB_PLAN_IMPL_FOR_LOOP ? 5.0 * m->param_tensors
                   : impl == LAB_PLAN_IMPL_FUSED                                   ? 5
                                                                                   : 40;
  t->optimizer_ms = optimizer_bytes(s, m) / (p->mem_bw_gbps * 1e9) * 1e3 + kernels * (p->launch_us + p->torch_op_us) / 1e3;
  t->flops *= s->accum;
  t->matmul_ms *= s->accum;
  t->memory_ms *= s->accum;
  t->host_ms *= s->accum;
  t->step_ms = micro * s->accum + t->optimizer_ms;
  t->low_ms = t->step_ms * LAB_PLAN_TIME_LOW;
  /* the estimate hides the host behind the GPU (or the GPU behind the host);
   * the high end has neither hidden: the H100 lease's small Llama step took
   * 1.6 times its planned GPU work (docs/plan.md, "What the H100 showed") */
  t->high_ms = (t->matmul_ms + t->memory_ms + t->host_ms + t->optimizer_ms) * LAB_PLAN_TIME_HIGH;
  double tokens = (double)s->batch * s->accum * (s->model.arch == LAB_PLAN_CNN ? 1 : s->seq);
  t->tokens_per_s = tokens / (t->step_ms / 1e3);
}
