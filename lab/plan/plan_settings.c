/* The planner's settings from JSON (the API body, `gpulab plan --json`'s
 * flags turned into the same object): a preset or a pasted config.json,
 * then the model fields that override it, the training fields and the
 * profile. One table lists every field with its type and bounds; unknown
 * fields, wrong types, values out of bounds and settings that contradict
 * each other are refused naming the field. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "plan.h"
#include "plan_config.h"
#include "plan_presets.h"


typedef enum { F_INT, F_NUM, F_BOOL, F_ENUM } ftype;

typedef struct field {
  const char *key;
  ftype type;
  double lo, hi;                /* INT, NUM */
  const char *const *choices;   /* ENUM */
  int n_choices;
  size_t off;                   /* into lab_plan_settings */
  bool model;                   /* a model field (overrides a preset) */
  const char *help;
} field;

#define M(k, t, lo, hi, ch, n, member, help) {k, t, lo, hi, ch, n, offsetof(lab_plan_settings, model.member), true, help}
#define S(k, t, lo, hi, ch, n, member, help) {k, t, lo, hi, ch, n, offsetof(lab_plan_settings, member), false, help}

static const field fields[] = {
    M("arch", F_ENUM, 0, 0, lab_plan_arch_names, LAB_PLAN_ARCHS, arch, "model family"),
    M("layers", F_INT, 1, 256, NULL, 0, layers, "transformer layers (conv blocks for cnn)"),
    M("hidden", F_INT, 8, 32768, NULL, 0, hidden, "hidden size"),
    M("heads", F_INT, 1, 256, NULL, 0, heads, "attention heads"),
    M("kv_heads", F_INT, 1, 256, NULL, 0, kv_heads, "key/value heads"),
    M("ffn", F_INT, 1, 262144, NULL, 0, ffn, "MLP inner size"),
    M("mlp", F_ENUM, 0, 0, lab_plan_mlp_names, LAB_PLAN_MLPS, mlp, "MLP kind"),
    M("vocab", F_INT, 2, 1000000, NULL, 0, vocab, "vocabulary"),
    M("max_positions", F_INT, 1, 1048576, NULL, 0, max_positions, "position table size"),
    M("tied", F_BOOL, 0, 1, NULL, 0, tied, "lm_head shares the token embedding"),
    M("dropout", F_NUM, 0, 0.9, NULL, 0, dropout, "dropout probability"),
    M("head", F_ENUM, 0, 0, lab_plan_head_names, LAB_PLAN_HEADS, head, "BERT's head"),
    M("image", F_INT, 8, 1024, NULL, 0, image, "image side, pixels"),
    M("channels", F_INT, 1, 4096, NULL, 0, channels, "first conv block's channels"),
    M("in_channels", F_INT, 1, 64, NULL, 0, in_channels, "image channels"),
    M("classes", F_INT, 2, 100000, NULL, 0, classes, "classes"),
    S("seq", F_INT, 1, 131072, NULL, 0, seq, "tokens per sequence"),
    S("batch", F_INT, 1, 4096, NULL, 0, batch, "micro-batch"),
    S("accum", F_INT, 1, 1024, NULL, 0, accum, "micro-batches per optimizer step"),
    S("precision", F_ENUM, 0, 0, lab_plan_precision_names, LAB_PLAN_PRECISIONS, precision, "precision"),
    S("optimizer", F_ENUM, 0, 0, lab_plan_optimizer_names, LAB_PLAN_OPTIMIZERS, optimizer, "optimizer"),
    S("checkpointing", F_ENUM, 0, 0, lab_plan_ckpt_names, LAB_PLAN_CKPTS, checkpointing, "activation checkpointing"),
    S("attention", F_ENUM, 0, 0, lab_plan_attention_names, LAB_PLAN_ATTENTIONS, attention, "attention kernel"),
    S("loss", F_ENUM, 0, 0, lab_plan_loss_names, LAB_PLAN_LOSSES, loss, "cross-entropy"),
    S("lora_rank", F_INT, 0, 1024, NULL, 0, lora_rank, "LoRA rank (0: full fine-tuning)"),
    S("lora_targets", F_ENUM, 0, 0, lab_plan_lora_target_names, LAB_PLAN_LORA_TARGETS, lora_targets, "LoRA targets"),
    S("lora_dropout", F_NUM, 0, 0.9, NULL, 0, lora_dropout, "dropout on each LoRA adapter's input"),
    S("optimizer_impl", F_ENUM, 0, 0, lab_plan_optimizer_impl_names, LAB_PLAN_IMPLS, optimizer_impl,
      "how torch.optim runs the update"),
    S("zero_grad", F_ENUM, 0, 0, lab_plan_zero_grad_names, LAB_PLAN_ZERO_GRADS, zero_grad,
      "what zero_grad leaves between steps"),
    S("backend", F_ENUM, 0, 0, lab_plan_backend_names, LAB_PLAN_BACKENDS, backend, "what runs it"),
    S("layout", F_ENUM, 0, 0, lab_plan_layout_names, LAB_PLAN_LAYOUTS, layout, "whose memory layout"),
    S("cuda", F_NUM, LAB_PLAN_CUDA_MIN, LAB_PLAN_CUDA_MAX, NULL, 0, cuda,
      "the CUDA version PyTorch was built with, torch.version.cuda, e.g. 11.2"),
    S("module_loading", F_ENUM, 0, 0, lab_plan_module_loading_names, LAB_PLAN_LOADINGS, module_loading,
      "how CUDA loads kernels into the context"),
};
#define N_FIELDS (int)(sizeof fields / sizeof fields[0])

static void *at(lab_plan_settings *s, const field *f) { return (char *)s + f->off; }

static int read_field(const field *f, const cJSON *v, lab_plan_settings *s, lab_error *err) {
  switch (f->type) {
    case F_INT:
    case F_NUM: {
      if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return lab_fail(err, LAB_E_INVALID_PARAM, f->key, "%s must be a number (%s)", f->key, f->help);
      double x = v->valuedouble;
      if (f->type == F_INT && x != floor(x))
        return lab_fail(err, LAB_E_INVALID_PARAM, f->key, "%s must be a whole number (%s)", f->key, f->help);
      if (x < f->lo || x > f->hi)
        return lab_fail(err, LAB_E_INVALID_PARAM, f->key, "%s must be between %g and %g (%s)", f->key, f->lo, f->hi,
                        f->help);
      if (f->type == F_INT) *(int *)at(s, f) = (int)x;
      else *(double *)at(s, f) = x;
      return 0;
    }
    case F_BOOL:
      if (!cJSON_IsBool(v)) return lab_fail(err, LAB_E_INVALID_PARAM, f->key, "%s must be true or false", f->key);
      *(bool *)at(s, f) = cJSON_IsTrue(v);
      return 0;
    default: {
      const char *name = cJSON_GetStringValue(v);
      for (int i = 0; name && i < f->n_choices; i++)
        if (strcmp(name, f->choices[i]) == 0) {
          *(int *)at(s, f) = i;
          return 0;
        }
      char list[160] = "";
      for (int i = 0; i < f->n_choices; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", f->choices[i]);
      return lab_fail(err, LAB_E_INVALID_PARAM, f->key, "%s must be one of %s", f->key, list);
    }
  }
}

static const field *find_field(const char *key) {
  for (int i = 0; i < N_FIELDS; i++)
    if (strcmp(fields[i].key, key) == 0) return &fields[i];
  return NULL;
}

/* Llama's MLP size when none is given: 2/3 of 4h, up to a multiple of 256. */
static int swiglu_ffn(int h) { return (8 * h / 3 + 255) / 256 * 256; }

static void model_defaults(lab_plan_model *m, const bool *given) {
  bool gpt = m->arch == LAB_PLAN_GPT2, llama = m->arch == LAB_PLAN_LLAMA;
  if (!given[offsetof(lab_plan_model, kv_heads)]) m->kv_heads = m->heads;
  if (!given[offsetof(lab_plan_model, mlp)]) m->mlp = gpt ? LAB_PLAN_MLP_GELU_TANH : llama ? LAB_PLAN_MLP_SWIGLU : LAB_PLAN_MLP_GELU;
  if (!given[offsetof(lab_plan_model, ffn)]) m->ffn = m->mlp == LAB_PLAN_MLP_SWIGLU ? swiglu_ffn(m->hidden) : 4 * m->hidden;
  if (!given[offsetof(lab_plan_model, tied)]) m->tied = !llama;
  if (!given[offsetof(lab_plan_model, dropout)]) m->dropout = llama ? 0 : 0.1;
  if (!m->in_channels) m->in_channels = 3;
  if (!m->classes) m->classes = m->arch == LAB_PLAN_CNN ? 10 : 2;
}

static int check_model(const lab_plan_settings *s, lab_error *err) {
  const lab_plan_model *m = &s->model;
  if (m->arch == LAB_PLAN_CNN) {
    if (!m->layers || !m->image || !m->channels)
      return lab_fail(err, LAB_E_INVALID_PARAM, !m->layers ? "layers" : !m->image ? "image" : "channels",
                      "the conv net needs layers (conv blocks), image (side in pixels) and channels");
    if (m->layers > 8) return lab_fail(err, LAB_E_INVALID_PARAM, "layers", "the conv net has at most 8 blocks");
    if (m->image % (1 << m->layers))
      return lab_fail(err, LAB_E_INVALID_PARAM, "image", "image (%d) must halve cleanly %d times, once per block",
                      m->image, m->layers);
    if ((long)m->channels << (m->layers - 1) > 65536)
      return lab_fail(err, LAB_E_INVALID_PARAM, "channels", "the last block would have more than 65536 channels");
    return 0;
  }
  static const char *const need[] = {"layers", "hidden", "heads", "vocab"};
  const int have[] = {m->layers, m->hidden, m->heads, m->vocab};
  for (int i = 0; i < 4; i++)
    if (!have[i])
      return lab_fail(err, LAB_E_INVALID_PARAM, need[i], "%s is missing: give a preset, a config.json or --%s",
                      need[i], need[i]);
  if (m->hidden % m->heads)
    return lab_fail(err, LAB_E_INVALID_PARAM, "heads", "hidden (%d) must be a multiple of heads (%d)", m->hidden,
                    m->heads);
  if (m->kv_heads > m->heads || m->heads % m->kv_heads)
    return lab_fail(err, LAB_E_INVALID_PARAM, "kv_heads", "heads (%d) must be a multiple of kv_heads (%d)", m->heads,
                    m->kv_heads);
  if (m->arch != LAB_PLAN_LLAMA && m->kv_heads != m->heads)
    return lab_fail(err, LAB_E_INVALID_PARAM, "kv_heads", "grouped-query attention (kv_heads) is for llama models");
  if (m->arch == LAB_PLAN_LLAMA && (m->hidden / m->heads) % 2)
    return lab_fail(err, LAB_E_INVALID_PARAM, "heads", "the rotary embedding needs an even head size (hidden / heads)");
  if ((m->mlp == LAB_PLAN_MLP_SWIGLU) != (m->arch == LAB_PLAN_LLAMA))
    return lab_fail(err, LAB_E_INVALID_PARAM, "mlp", "the swiglu MLP goes with llama models, and only with them");
  if (m->arch != LAB_PLAN_LLAMA && s->seq > m->max_positions)
    return lab_fail(err, LAB_E_INVALID_PARAM, "seq", "seq (%d) is longer than the model's position table (%d)", s->seq,
                    m->max_positions);
  return 0;
}

static int check_training(const lab_plan_settings *s, lab_error *err) {
  const lab_plan_model *m = &s->model;
  if (s->lora_rank && m->arch != LAB_PLAN_LLAMA)
    return lab_fail(err, LAB_E_INVALID_PARAM, "lora_rank", "LoRA is planned for llama models (q, v or all linears)");
  if (s->lora_rank && s->lora_rank > m->hidden)
    return lab_fail(err, LAB_E_INVALID_PARAM, "lora_rank", "lora_rank (%d) must not exceed hidden (%d)", s->lora_rank,
                    m->hidden);
  if (m->arch == LAB_PLAN_CNN && (s->checkpointing || s->loss || s->attention))
    return lab_fail(err, LAB_E_INVALID_PARAM,
                    s->checkpointing ? "checkpointing" : s->loss ? "loss" : "attention",
                    "the conv net takes no checkpointing, attention or loss choice");
  if (m->arch == LAB_PLAN_BERT && m->head == LAB_PLAN_HEAD_CLASSIFY && s->loss)
    return lab_fail(err, LAB_E_INVALID_PARAM, "loss",
                    "a classifier head's loss is transformers' own (standard): it has no vocabulary to fuse over");
  if (s->layout == LAB_PLAN_LAYOUT_LLMC &&
      (m->arch != LAB_PLAN_GPT2 || (s->precision != LAB_PLAN_BF16 && s->precision != LAB_PLAN_FP32) ||
       s->optimizer != LAB_PLAN_ADAMW || s->lora_rank || s->loss))
    return lab_fail(err, LAB_E_INVALID_PARAM, "layout",
                    "llm.c's layout is GPT-2 trained with AdamW, in bf16 (train_gpt2.cu) or fp32 (train_gpt2.c)");
  if (s->lora_dropout > 0 && !s->lora_rank)
    return lab_fail(err, LAB_E_INVALID_PARAM, "lora_dropout", "lora_dropout needs LoRA (lora_rank)");
  if (s->optimizer_impl != LAB_PLAN_IMPL_AUTO && s->optimizer != LAB_PLAN_ADAMW && s->optimizer != LAB_PLAN_SGD)
    return lab_fail(err, LAB_E_INVALID_PARAM, "optimizer_impl",
                    "optimizer_impl is torch.optim's choice for adamw and sgd (%s runs its own way)",
                    lab_plan_optimizer_names[s->optimizer]);
  if (s->precision == LAB_PLAN_AMP_FP16 && s->backend == LAB_PLAN_BACKEND_CPU)
    return lab_fail(err, LAB_E_INVALID_PARAM, "precision", "autocast on the CPU runs in bf16: use amp-bf16");
  return 0;
}

/* The CUDA version and how it loads kernels (plan_context.c): a version is
 * major.minor; lazy loading needs 11.7 or later; without module_loading,
 * a CUDA before 11.7 loads eagerly and anything else lazily (PyTorch sets
 * CUDA_MODULE_LOADING=LAZY itself). The CPU and llm.c's layout have no
 * PyTorch CUDA context to plan. */
static int check_cuda(const cJSON *json, lab_plan_settings *s, lab_error *err) {
  bool given = cJSON_GetObjectItemCaseSensitive(json, "module_loading") != NULL;
  double tenths = s->cuda * 10;
  if (s->cuda > 0 && fabs(tenths - round(tenths)) > 1e-6)
    return lab_fail(err, LAB_E_INVALID_PARAM, "cuda",
                    "cuda must be a version major.minor with one digit after the point, as torch.version.cuda "
                    "prints it (e.g. 11.2, 12.4)");
  bool before_lazy = s->cuda > 0 && s->cuda < LAB_PLAN_CUDA_LAZY_FROM - 1e-9;
  if (given && before_lazy && s->module_loading == LAB_PLAN_LOADING_LAZY)
    return lab_fail(err, LAB_E_INVALID_PARAM, "module_loading",
                    "lazy module loading came with CUDA %.1f: CUDA %.1f loads every kernel (use eager, or a later cuda)",
                    LAB_PLAN_CUDA_LAZY_FROM, s->cuda);
  if (!given && before_lazy) s->module_loading = LAB_PLAN_LOADING_EAGER;
  if ((s->cuda > 0 || s->module_loading == LAB_PLAN_LOADING_EAGER) &&
      (s->backend != LAB_PLAN_BACKEND_CUDA || s->layout != LAB_PLAN_LAYOUT_PYTORCH))
    return lab_fail(err, LAB_E_INVALID_PARAM, s->cuda > 0 ? "cuda" : "module_loading",
                    "the CUDA context's version and module loading are PyTorch's on a GPU: the %s has none to plan",
                    s->backend != LAB_PLAN_BACKEND_CUDA ? "CPU backend" : "llm.c layout");
  return 0;
}

static int read_profile(const cJSON *v, lab_plan_settings *s, lab_error *err) {
  if (!v) {
    s->profile = *lab_profile_find("t4");
    return 0;
  }
  if (cJSON_IsString(v)) {
    const lab_profile *p = lab_profile_find(v->valuestring);
    if (!p) return lab_fail(err, LAB_E_UNKNOWN_PROFILE, "profile", "no profile is called \"%.40s\"", v->valuestring);
    s->profile = *p;
    return 0;
  }
  if (cJSON_IsObject(v)) {
    if (lab_profile_from_json(v, &s->profile, err)) return -1;
    s->own_profile = true;
    return 0;
  }
  return lab_fail(err, LAB_E_INVALID_PARAM, "profile",
                  "profile must be a profile's name or a profile JSON (as gpulab calibrate --out writes it)");
}

/* The model's label: 1 to size-1 printable ASCII characters. */
static int read_label(const cJSON *v, char *out, size_t size, lab_error *err) {
  const char *t = cJSON_GetStringValue(v);
  size_t n = t ? strlen(t) : 0;
  bool ok = n > 0 && n < size;
  for (size_t i = 0; ok && i < n; i++) ok = t[i] >= 0x20 && t[i] < 0x7f;
  if (!ok)
    return lab_fail(err, LAB_E_INVALID_PARAM, "model",
                    "model is the plan's label for the model: 1 to %zu printable ASCII characters (a preset is "
                    "chosen with \"preset\")",
                    size - 1);
  snprintf(out, size, "%s", t);
  return 0;
}

int lab_plan_settings_from_json(const cJSON *json, lab_plan_settings *s, lab_error *err) {
  memset(s, 0, sizeof *s);
  if (!cJSON_IsObject(json)) return lab_fail(err, LAB_E_INVALID_JSON, NULL, "the settings must be a JSON object");
  const cJSON *v;
  cJSON_ArrayForEach(v, json) {
    if (strcmp(v->string, "preset") && strcmp(v->string, "config") && strcmp(v->string, "profile") &&
        strcmp(v->string, "model") && !find_field(v->string))
      return lab_fail(err, LAB_E_INVALID_PARAM, v->string, "unknown field \"%.40s\" (see docs/plan.md)", v->string);
  }
  const cJSON *preset = cJSON_GetObjectItemCaseSensitive(json, "preset");
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(json, "config");
  if (preset && config) return lab_fail(err, LAB_E_INVALID_PARAM, "config", "give a preset or a config, not both");
  s->model.arch = LAB_PLAN_GPT2;
  snprintf(s->model.name, sizeof s->model.name, "custom");
  if (preset) {
    const lab_plan_preset *p = lab_plan_preset_find(cJSON_GetStringValue(preset));
    if (!p) return lab_fail(err, LAB_E_INVALID_PARAM, "preset", "unknown preset (gpulab plan --presets lists them)");
    s->model = p->m;
    s->lora_rank = p->lora_rank;
    snprintf(s->model.name, sizeof s->model.name, "%s", p->name);
    snprintf(s->model.source, sizeof s->model.source, "%s", p->source);
  } else if (config && lab_plan_config_read(config, &s->model, err)) {
    return -1;
  }
  /* The plan's own "settings" name the model they describe ("model"):
   * given back, it stays the plan's label (a preset's fields are all in
   * them, so nothing else comes from the name). */
  const cJSON *label = cJSON_GetObjectItemCaseSensitive(json, "model");
  if (label && (read_label(label, s->model.name, sizeof s->model.name, err))) return -1;
  /* defaults of the training fields */
  s->seq = 1024;
  s->batch = 8;
  s->accum = 1;
  bool given[sizeof(lab_plan_model)] = {false};
  bool from_model = preset || config;
  for (int i = 0; i < N_FIELDS; i++) {
    v = cJSON_GetObjectItemCaseSensitive(json, fields[i].key);
    if (!v) continue;
    if (read_field(&fields[i], v, s, err)) return -1;
    if (fields[i].model) given[fields[i].off - offsetof(lab_plan_settings, model)] = true;
  }
  if (from_model) {
    /* a preset's or config's own values stand unless a field overrode them */
    for (size_t k = 0; k < sizeof given; k++) given[k] = true;
  }
  model_defaults(&s->model, given);
  if (s->model.arch != LAB_PLAN_LLAMA && !s->model.max_positions)
    s->model.max_positions = s->seq > 1024 ? s->seq : 1024;
  if (!s->model.max_positions) s->model.max_positions = s->seq;
  if (s->model.arch == LAB_PLAN_CNN) s->seq = 1;
  if (check_model(s, err) || check_training(s, err) || check_cuda(json, s, err)) return -1;
  return read_profile(cJSON_GetObjectItemCaseSensitive(json, "profile"), s, err);
}

int lab_plan_optimizer_impl_of(const lab_plan_settings *s) {
  if (s->optimizer_impl != LAB_PLAN_IMPL_AUTO) return s->optimizer_impl;
  return s->backend == LAB_PLAN_BACKEND_CUDA ? LAB_PLAN_IMPL_FOREACH : LAB_PLAN_IMPL_FOR_LOOP;
}

/* Is field f one the model's family uses (the conv net has its own)? */
static bool shown(const lab_plan_model *m, const field *f) {
  if (!f->model) return true;
  size_t off = f->off - offsetof(lab_plan_settings, model);
  bool conv_field = off >= offsetof(lab_plan_model, image) && off <= offsetof(lab_plan_model, classes);
  if (off == offsetof(lab_plan_model, arch) || off == offsetof(lab_plan_model, layers)) return true;
  if (m->arch == LAB_PLAN_CNN) return conv_field;
  if (off == offsetof(lab_plan_model, classes)) return m->arch == LAB_PLAN_BERT && m->head == LAB_PLAN_HEAD_CLASSIFY;
  if (off == offsetof(lab_plan_model, head)) return m->arch == LAB_PLAN_BERT;
  return !conv_field;
}

cJSON *lab_plan_settings_json(const lab_plan_settings *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "model", s->model.name);
  for (int i = 0; i < N_FIELDS; i++) {
    const field *f = &fields[i];
    const void *p = (const char *)s + f->off;
    if (!shown(&s->model, f) || (f->off == offsetof(lab_plan_settings, cuda) && s->cuda <= 0)) continue;
    switch (f->type) {
      case F_INT: cJSON_AddNumberToObject(o, f->key, *(const int *)p); break;
      case F_NUM: cJSON_AddNumberToObject(o, f->key, *(const double *)p); break;
      case F_BOOL: cJSON_AddBoolToObject(o, f->key, *(const bool *)p); break;
      default: cJSON_AddStringToObject(o, f->key, f->choices[*(const int *)p]); break;
    }
  }
  cJSON_AddStringToObject(o, "profile", s->profile.name);
  return o;
}
