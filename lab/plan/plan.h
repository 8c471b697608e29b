/* The training planner: will this training configuration fit on this GPU,
 * and how long will a step take? From a model (flags, a preset of a real
 * model, or a pasted Hugging Face config.json) and the training settings it
 * predicts the step's peak memory per component and per counter
 * (max_memory_allocated, max_memory_reserved, nvidia-smi), the step time
 * on a device profile, the verdict and what each lever would change.
 * docs/plan.md cites the source of every formula. The CLI (`gpulab plan`),
 * the API and the page all send the same JSON settings and get the same
 * JSON answer (lab_plan). */
#ifndef LAB_PLAN_H
#define LAB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "profiles.h"

/* A settings document (a pasted config.json included) is at most this big. */
#define LAB_PLAN_MAX_BYTES (64 * 1024)

/* The bands around each counter's point figure (docs/plan.md, "Bands"):
 * allocated: the tensors are modelled op by op (within 5 % of PyTorch on
 * the CPU), but some GPU kernels allocate workspaces of their own;
 * reserved: the allocator's pools are modelled by their high-water marks,
 * not block by block; device: the CUDA context is a published figure for
 * the CUDA version's module loading, not the learner's card. */
#define LAB_PLAN_ALLOCATED_LOW 0.95
#define LAB_PLAN_ALLOCATED_HIGH 1.10
#define LAB_PLAN_RESERVED_LOW 0.90
#define LAB_PLAN_RESERVED_HIGH 1.20
#define LAB_PLAN_DEVICE_LOW 0.85
#define LAB_PLAN_DEVICE_HIGH 1.20
#define LAB_PLAN_METHOD                                                                                          \
  "Planned, not measured: one training step of PyTorch modelled op by op (what each op allocates and what "     \
  "autograd saves, backward in reverse order), the caching allocator's 512-byte rounding and 2/20 MiB segments, " \
  "the CUDA context of the CUDA version's module loading (lazy: the profile's estimate and the step's "       \
  "kernels as an H100 loaded them; eager: published sizes); the step time from each matmul's FLOPs at the "    \
  "profile's GEMM rate, the other kernels as memory traffic, and the host's cost per op, hidden behind the "   \
  "GPU in the estimate and not in the band's top. docs/plan.md cites every rule."

/* ---- settings ------------------------------------------------------------ */

typedef enum { LAB_PLAN_GPT2, LAB_PLAN_LLAMA, LAB_PLAN_BERT, LAB_PLAN_CNN, LAB_PLAN_ARCHS } lab_plan_arch;
/* gelu: F.gelu (saves its input); gelu_tanh: transformers' gelu_new written
 * in Python ops (GPT-2); swiglu: down(silu(gate(x)) * up(x)) (Llama). */
typedef enum { LAB_PLAN_MLP_GELU, LAB_PLAN_MLP_GELU_TANH, LAB_PLAN_MLP_SWIGLU, LAB_PLAN_MLPS } lab_plan_mlp;
typedef enum { LAB_PLAN_FP32, LAB_PLAN_AMP_FP16, LAB_PLAN_AMP_BF16, LAB_PLAN_BF16, LAB_PLAN_PRECISIONS } lab_plan_precision;
typedef enum { LAB_PLAN_ADAMW, LAB_PLAN_SGD, LAB_PLAN_ADAFACTOR, LAB_PLAN_ADAM8BIT, LAB_PLAN_OPTIMIZERS } lab_plan_optimizer;
typedef enum { LAB_PLAN_CKPT_NONE, LAB_PLAN_CKPT_SELECTIVE, LAB_PLAN_CKPT_FULL, LAB_PLAN_CKPTS } lab_plan_ckpt;
typedef enum { LAB_PLAN_EAGER, LAB_PLAN_SDPA, LAB_PLAN_ATTENTIONS } lab_plan_attention;
/* standard: transformers' loss, the full logits upcast to fp32, log-softmax
 * saved; fused: the lm_head and the loss computed together in chunks (the
 * logits never exist whole); plain: F.cross_entropy on the logits as the
 * model returns them, no fp32 copy (nanoGPT-style training code). */
typedef enum { LAB_PLAN_LOSS_STANDARD, LAB_PLAN_LOSS_FUSED, LAB_PLAN_LOSS_PLAIN, LAB_PLAN_LOSSES } lab_plan_loss;
/* qv: q_proj and v_proj (PEFT's default for Llama); qkvo: the attention's
 * four projections; all: those and the MLP's three. */
typedef enum { LAB_PLAN_LORA_QV, LAB_PLAN_LORA_QKVO, LAB_PLAN_LORA_ALL, LAB_PLAN_LORA_TARGETS } lab_plan_lora_targets;
/* How torch.optim runs the update: auto (foreach on CUDA, the for-loop on
 * the CPU), foreach (one temporary of every parameter at once), for_loop
 * (temporaries of one parameter at a time), fused (none). */
typedef enum { LAB_PLAN_IMPL_AUTO, LAB_PLAN_IMPL_FOREACH, LAB_PLAN_IMPL_FOR_LOOP, LAB_PLAN_IMPL_FUSED, LAB_PLAN_IMPLS } lab_plan_optimizer_impl;
/* zero_grad(set_to_none=True), PyTorch 2's default: the gradients are freed
 * between steps; zeros (set_to_none=False, PyTorch 1's default): they stay
 * allocated through the next forward. */
typedef enum { LAB_PLAN_ZERO_NONE, LAB_PLAN_ZERO_ZEROS, LAB_PLAN_ZERO_GRADS } lab_plan_zero_grad;
/* cuda: what a GPU run does (CUDA autocast lists, bool dropout masks,
 * foreach optimizers); cpu: what PyTorch does on the CPU (its autocast
 * lists, float dropout masks, for-loop optimizers): the PyTorch reference. */
typedef enum { LAB_PLAN_BACKEND_CUDA, LAB_PLAN_BACKEND_CPU, LAB_PLAN_BACKENDS } lab_plan_backend;
typedef enum { LAB_PLAN_HEAD_LM, LAB_PLAN_HEAD_CLASSIFY, LAB_PLAN_HEADS } lab_plan_head;
/* pytorch: the model as PyTorch runs it; llmc: GPT-2 as karpathy/llm.c
 * lays it out (train_gpt2.cu in bf16, train_gpt2.c in fp32). */
typedef enum { LAB_PLAN_LAYOUT_PYTORCH, LAB_PLAN_LAYOUT_LLMC, LAB_PLAN_LAYOUTS } lab_plan_layout;
/* How CUDA loads kernels into the context (plan_context.c): lazy, when a
 * kernel first runs (CUDA 11.7 on; PyTorch sets CUDA_MODULE_LOADING=LAZY
 * when it is unset); eager, every kernel of every library at context
 * creation (CUDA before 11.7, or CUDA_MODULE_LOADING=EAGER). */
typedef enum { LAB_PLAN_LOADING_LAZY, LAB_PLAN_LOADING_EAGER, LAB_PLAN_LOADINGS } lab_plan_module_loading;
/* The first CUDA with lazy loading, and the versions `cuda` may name. */
#define LAB_PLAN_CUDA_LAZY_FROM 11.7
#define LAB_PLAN_CUDA_MIN 10.0
#define LAB_PLAN_CUDA_MAX 13.9

extern const char *const lab_plan_arch_names[LAB_PLAN_ARCHS];
extern const char *const lab_plan_mlp_names[LAB_PLAN_MLPS];
extern const char *const lab_plan_precision_names[LAB_PLAN_PRECISIONS];
extern const char *const lab_plan_optimizer_names[LAB_PLAN_OPTIMIZERS];
extern const char *const lab_plan_ckpt_names[LAB_PLAN_CKPTS];
extern const char *const lab_plan_attention_names[LAB_PLAN_ATTENTIONS];
extern const char *const lab_plan_loss_names[LAB_PLAN_LOSSES];
extern const char *const lab_plan_lora_target_names[LAB_PLAN_LORA_TARGETS];
extern const char *const lab_plan_optimizer_impl_names[LAB_PLAN_IMPLS];
extern const char *const lab_plan_zero_grad_names[LAB_PLAN_ZERO_GRADS];
extern const char *const lab_plan_backend_names[LAB_PLAN_BACKENDS];
extern const char *const lab_plan_head_names[LAB_PLAN_HEADS];
extern const char *const lab_plan_layout_names[LAB_PLAN_LAYOUTS];
extern const char *const lab_plan_module_loading_names[LAB_PLAN_LOADINGS];

typedef struct lab_plan_model {
  int arch;          /* lab_plan_arch */
  int layers;        /* transformer layers, or conv blocks; e.g. 12 */
  int hidden;        /* e.g. 768 */
  int heads;         /* attention heads, e.g. 12 */
  int kv_heads;      /* key/value heads (grouped-query attention), e.g. 8 of 32 */
  int ffn;           /* MLP inner size, e.g. 3072 */
  int mlp;           /* lab_plan_mlp */
  int vocab;         /* e.g. 50257 */
  int max_positions; /* learned position table size (GPT-2, BERT), e.g. 1024 */
  bool tied;         /* the lm_head shares the token embedding */
  double dropout;    /* e.g. 0.1 (GPT-2, BERT); 0 (Llama) */
  int head;          /* lab_plan_head: BERT's MLM head or a classifier */
  /* the convolutional net: conv 3x3 + ReLU + 2x2 max-pool blocks, channels doubling */
  int image;         /* input height = width, pixels, e.g. 32 */
  int channels;      /* first block's channels, e.g. 32 */
  int in_channels;   /* e.g. 3 */
  int classes;       /* e.g. 10 */
  double published_params; /* a preset's published parameter count, 0 when none */
  char name[48];     /* "gpt2-124m", "config.json", "custom" */
  char source[256];  /* where a preset's numbers come from */
} lab_plan_model;

typedef struct lab_plan_settings {
  lab_plan_model model;
  int seq;           /* tokens per sequence */
  int batch;         /* micro-batch, sequences (images for the conv net) */
  int accum;         /* micro-batches per optimizer step */
  int precision, optimizer, checkpointing, attention, loss; /* the enums above */
  int lora_rank;     /* 0: full fine-tuning */
  int lora_targets;
  double lora_dropout; /* PEFT's lora_dropout on each adapter's input, e.g. 0.1 */
  int optimizer_impl;  /* lab_plan_optimizer_impl */
  int zero_grad;       /* lab_plan_zero_grad */
  int backend;
  int layout;          /* lab_plan_layout */
  double cuda;         /* the CUDA PyTorch was built with (torch.version.cuda), e.g. 11.2; 0: not given */
  int module_loading;  /* lab_plan_module_loading */
  lab_profile profile; /* the GPU (a copy: a built-in or the learner's own) */
  bool own_profile;    /* the profile came with the settings */
} lab_plan_settings;

/* ---- memory ----------------------------------------------------------------- */

typedef enum {
  LAB_PLAN_SRC_OTHER,
  LAB_PLAN_SRC_EMBEDDINGS,
  LAB_PLAN_SRC_NORMS,
  LAB_PLAN_SRC_ATTENTION,        /* q, k, v, rotary, the attention output */
  LAB_PLAN_SRC_SCORES,           /* the seq x seq attention matrices (eager) */
  LAB_PLAN_SRC_MLP,
  LAB_PLAN_SRC_DROPOUT,          /* dropout masks */
  LAB_PLAN_SRC_LOGITS,           /* logits and loss */
  LAB_PLAN_SRC_AUTOCAST,         /* autocast's half copies of the weights */
  LAB_PLAN_SRC_CHECKPOINTS,      /* the inputs a checkpointed region keeps */
  LAB_PLAN_SRC_CONV,
  LAB_PLAN_SRC_OPTIMIZER,        /* the optimizer step's temporaries (at the peak only) */
  LAB_PLAN_SOURCES
} lab_plan_source;
extern const char *const lab_plan_source_ids[LAB_PLAN_SOURCES];
extern const char *const lab_plan_source_labels[LAB_PLAN_SOURCES];

typedef struct lab_plan_memory {
  double params, trainable;     /* parameter counts */
  uint64_t weights, gradients, optimizer_state, buffers, inputs, workspace; /* bytes */
  uint64_t activations;         /* distinct storages saved for backward in one forward */
  uint64_t act_src[LAB_PLAN_SOURCES];
  uint64_t optimizer_temp;      /* the optimizer step's temporaries at their largest */
  uint64_t tensor_peak;         /* peak of live tensor bytes as requested */
  uint64_t allocated;           /* ... rounded as the CUDA allocator rounds: max_memory_allocated */
  uint64_t reserved;            /* the allocator's segments at their high-water mark: max_memory_reserved */
  uint64_t context;             /* CUDA context (lab_plan_context_bytes) */
  const char *context_label;    /* ... and which figure it is (static text) */
  uint64_t device;              /* what nvidia-smi shows at the peak */
  int peak_phase;               /* where the peak is: "forward", "backward" ... */
  uint64_t peak_kind[6];        /* the peak's bytes by kind: activations, weights, grads, state, buffers, workspace */
  uint64_t peak_src[LAB_PLAN_SOURCES]; /* activations at the peak by source */
  /* for the step time: one micro-batch's forward and backward */
  uint64_t written_bytes;       /* every byte its ops wrote */
  int ops;                      /* the ops (kernels) it ran */
  int param_tensors;
} lab_plan_memory;

/* Reads settings (the JSON of the API, the CLI's --json input): a preset
 * or a config object, the model fields (which override them), the training
 * fields and the profile. Every field typed and bounded; an unknown field,
 * or a model gpulab does not plan (mixture of experts, multimodal), fails
 * with a lab_error naming the field. */
int lab_plan_settings_from_json(const cJSON *json, lab_plan_settings *s, lab_error *err);
/* How the optimizer update runs once "auto" is resolved: foreach for CUDA
 * tensors, the for-loop on the CPU (torch.optim's own default). */
int lab_plan_optimizer_impl_of(const lab_plan_settings *s);
/* The settings as JSON, every value used (caller owns). */
cJSON *lab_plan_settings_json(const lab_plan_settings *s);

/* The CUDA context nvidia-smi would show for these settings: the profile's
 * estimate when kernels load lazily (or the learner's own profile's figure),
 * the published size of an eager context for the CUDA version otherwise, 0
 * on the CPU backend; *what (may be NULL) says which. */
uint64_t lab_plan_context_bytes(const lab_plan_settings *s, const char **what);

/* The memory of one training step (no verdict, no levers): for sweeps. */
int lab_plan_memory_of(const lab_plan_settings *s, lab_plan_memory *m, lab_error *err);
/* The same in tables made once for models of up to `layers` layers, for a
 * sweep of many plans (a micro-batch search, the levers): no allocation per
 * plan. lab_plan_work_new returns NULL without memory. */
typedef struct lab_plan_work lab_plan_work;
lab_plan_work *lab_plan_work_new(int layers);
void lab_plan_work_free(lab_plan_work *w);
int lab_plan_memory_in(lab_plan_work *w, const lab_plan_settings *s, lab_plan_memory *m, lab_error *err);

/* The whole answer (memory per component and counter with bands, verdict,
 * largest micro-batch, step time, levers). NULL and err on failure. */
cJSON *lab_plan_answer(const lab_plan_settings *s, lab_error *err);
/* The presets: name, family, published parameter count, source (caller owns). */
cJSON *lab_plan_presets_json(void);
/* Settings JSON in, answer out: what `gpulab plan` and POST /api/plan call. */
cJSON *lab_plan(const cJSON *request, lab_error *err);

#endif
