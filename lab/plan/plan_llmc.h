/* llm.c's own memory layout for GPT-2 training (plan_llmc.c). */
#ifndef LAB_PLAN_LLMC_H
#define LAB_PLAN_LLMC_H

#include <stdbool.h>
#include <stdint.h>

typedef struct lab_plan_llmc {
  uint64_t layers, channels, heads;
  uint64_t vocab;   /* as llm.c holds it: padded_vocab_size (50304 for GPT-2), or 50257 before it padded */
  uint64_t max_seq; /* the position table, 1024 */
  uint64_t batch, seq;
  bool cpu;         /* train_gpt2.c, all fp32; else train_gpt2.cu in bf16 */
  int recompute;    /* train_gpt2.cu's -r: 0, 1 (GELU), 2 (GELU and layernorm) */
  bool cudnn;       /* built with cuDNN attention (keeps row statistics, not the seq x seq matrix) */
} lab_plan_llmc;

typedef struct lab_plan_llmc_bytes {
  uint64_t activations; /* the one activation allocation, bytes */
  uint64_t params;      /* parameter count */
  uint64_t param_bytes, grad_bytes, optimizer_bytes;
} lab_plan_llmc_bytes;

void lab_plan_llmc_sizes(const lab_plan_llmc *g, lab_plan_llmc_bytes *out);

#endif
