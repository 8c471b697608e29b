/* The names of the planner's choices, as the settings JSON spells them
 * (plan.h's enums, in order): one table the settings reader, the presets
 * and the answer all read. */
#include "plan.h"

const char *const lab_plan_arch_names[LAB_PLAN_ARCHS] = {"gpt2", "llama", "bert", "cnn"};
const char *const lab_plan_mlp_names[LAB_PLAN_MLPS] = {"gelu", "gelu_tanh", "swiglu"};
const char *const lab_plan_precision_names[LAB_PLAN_PRECISIONS] = {"fp32", "amp-fp16", "amp-bf16", "bf16"};
const char *const lab_plan_optimizer_names[LAB_PLAN_OPTIMIZERS] = {"adamw", "sgd", "adafactor", "adam8bit"};
const char *const lab_plan_ckpt_names[LAB_PLAN_CKPTS] = {"none", "selective", "full"};
const char *const lab_plan_attention_names[LAB_PLAN_ATTENTIONS] = {"eager", "sdpa"};
const char *const lab_plan_loss_names[LAB_PLAN_LOSSES] = {"standard", "fused", "plain"};
const char *const lab_plan_lora_target_names[LAB_PLAN_LORA_TARGETS] = {"qv", "qkvo", "all"};
const char *const lab_plan_optimizer_impl_names[LAB_PLAN_IMPLS] = {"auto", "foreach", "for_loop", "fused"};
const char *const lab_plan_zero_grad_names[LAB_PLAN_ZERO_GRADS] = {"none", "zeros"};
const char *const lab_plan_backend_names[LAB_PLAN_BACKENDS] = {"cuda", "cpu"};
const char *const lab_plan_head_names[LAB_PLAN_HEADS] = {"lm", "classify"};
const char *const lab_plan_layout_names[LAB_PLAN_LAYOUTS] = {"pytorch", "llmc"};
const char *const lab_plan_module_loading_names[LAB_PLAN_LOADINGS] = {"lazy", "eager"};
