/* The planner's answer as JSON: the settings used, the model's size, the
 * memory per component and per counter with bands, the verdict on the
 * profile's GPU, the step time, and the levers. One builder for the CLI's
 * --json, the API and the page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "json.h"
#include "plan_answer.h"
#include "plan_int.h"
#include "plan_time.h"
#include "units.h"

const char *const lab_plan_source_ids[LAB_PLAN_SOURCES] = {
    "other", "embeddings", "norms", "attention", "attention_scores", "mlp", "dropout_masks", "logits_loss",
    "autocast_copies", "checkpoints", "conv", "optimizer_step"};
const char *const lab_plan_source_labels[LAB_PLAN_SOURCES] = {
    "other",
    "embeddings",
    "norms (their inputs and statistics)",
    "attention: q, k, v and its output",
    "attention scores (seq x seq per head)",
    "MLP",
    "dropout masks",
    "logits and loss",
    "autocast's half copies of the weights",
    "checkpointed layers' inputs",
    "convolutions",
    "the optimizer step's temporaries",
};

static void add_bytes(cJSON *o, const char *key, uint64_t b) { cJSON_AddNumberToObject(o, key, (double)b); }

static cJSON *component(cJSON *list, const char *id, const char *label, uint64_t bytes) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "id", id);
  cJSON_AddStringToObject(c, "label", label);
  add_bytes(c, "bytes", bytes);
  cJSON_AddItemToArray(list, c);
  return c;
}

cJSON *lab_plan_memory_json(const lab_plan_memory *m) {
  cJSON *o = cJSON_CreateObject();
  add_bytes(o, "allocated_bytes", m->allocated);
  add_bytes(o, "reserved_bytes", m->reserved);
  add_bytes(o, "device_bytes", m->device);
  add_bytes(o, "tensor_peak_bytes", m->tensor_peak);
  cJSON_AddStringToObject(o, "peak_phase", pl_phase_names[m->peak_phase]);
  /* what the peak is made of (as requested, not rounded) */
  static const char *const kinds[6] = {"activations", "weights", "gradients", "optimizer_state", "buffers", "workspace"};
  cJSON *at = cJSON_AddObjectToObject(o, "at_peak");
  for (int i = 0; i < 6; i++) add_bytes(at, kinds[i], m->peak_kind[i]);
  cJSON *srcs = cJSON_AddObjectToObject(at, "sources");
  for (int i = 0; i < LAB_PLAN_SOURCES; i++)
    if (m->peak_src[i]) add_bytes(srcs, lab_plan_source_ids[i], m->peak_src[i]);
  cJSON *list = cJSON_AddArrayToObject(o, "components");
  component(list, "weights", "weights", m->weights);
  component(list, "gradients", "gradients", m->gradients);
  component(list, "optimizer_state", "optimizer state", m->optimizer_state);
  cJSON *a = component(list, "activations", "activations saved for backward (one micro-batch)", m->activations);
  cJSON *src = cJSON_AddArrayToObject(a, "sources");
  for (int i = 0; i < LAB_PLAN_SOURCES; i++)
    if (m->act_src[i]) component(src, lab_plan_source_ids[i], lab_plan_source_labels[i], m->act_src[i]);
  component(list, "optimizer_step_temp", "the optimizer step's temporaries", m->optimizer_temp);
  component(list, "buffers", "buffers and the batch", m->buffers);
  component(list, "workspace", "cuBLAS workspaces", m->workspace);
  component(list, "cuda_context", m->context_label ? m->context_label : "CUDA context", m->context);
  return o;
}

static void band(cJSON *o, const char *key, uint64_t point, double lo, double hi) {
  cJSON *b = cJSON_AddArrayToObject(o, key);
  cJSON_AddItemToArray(b, cJSON_CreateNumber(floor((double)point * lo)));
  cJSON_AddItemToArray(b, cJSON_CreateNumber(ceil((double)point * hi)));
}

static bool fits_on(const lab_plan_settings *s, const lab_plan_memory *m) {
  return m->device <= s->profile.memory_bytes;
}

/* The largest micro-batch (at most 4096) whose step fits on the profile's
 * GPU; 0 when not even one fits. Memory grows with the micro-batch almost
 * on a straight line (the allocator's rounding bends it a little, and a
 * peak in the optimizer step does not grow at all), so the line through the
 * plan's own batch and its double (or half) gives a first guess; then
 * probes that step by doubling strides close in on the answer: a handful of
 * plans, not a bisection of 4096. */
static int max_batch(lab_plan_work *w, const lab_plan_settings *s, const lab_plan_memory *m0, lab_error *err) {
  lab_plan_settings *t = malloc(sizeof *t);
  lab_plan_memory m;
  if (!t) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  *t = *s;
  const int top = 4096;
  int lo = 0, hi = top, best = -1; /* lo fits (0 trivially), nothing above hi does */
  int b0 = s->batch;
  bool fit0 = fits_on(s, m0);
  if (fit0) lo = b0;
  else hi = b0 - 1;
  int b1 = fit0 ? (2 * b0 > top ? top : 2 * b0) : (b0 / 2 > 0 ? b0 / 2 : 1);
  int guess = b1;
  if (b1 != b0 && b1 > lo && b1 <= hi) {
    t->batch = b1;
    if (lab_plan_memory_in(w, t, &m, err)) goto end;
    if (fits_on(t, &m)) lo = b1;
    else hi = b1 - 1;
    double slope = ((double)m.device - (double)m0->device) / (double)(b1 - b0);
    guess = slope > 0 ? b0 + (int)(((double)s->profile.memory_bytes - (double)m0->device) / slope) : 2 * lo;
  }
  for (int stride = 1; lo < hi; stride *= 2) {
    int probe = guess <= lo ? lo + 1 : guess > hi ? hi : guess;
    t->batch = probe;
    if (lab_plan_memory_in(w, t, &m, err)) goto end;
    bool ok = fits_on(t, &m);
    if (ok) lo = probe;
    else hi = probe - 1;
    guess = ok ? probe + stride : probe - stride;
    if (hi - lo <= stride) guess = lo + (hi - lo + 1) / 2;
  }
  best = lo;
end:
  free(t);
  return best;
}

/* ---- levers ------------------------------------------------------------------ */

typedef struct lever {
  const char *id, *label;
} lever;

static const lever levers[] = {
    {"halve_batch", "halve the micro-batch (the optimizer step sees half the tokens)"},
    {"accumulate", "halve the micro-batch and accumulate two (the same tokens per optimizer step)"},
    {"shorter_seq", "halve the sequence length"},
    {"amp", "mixed precision (autocast)"},
    {"checkpointing", "checkpoint every layer (recompute it in backward)"},
    {"sdpa", "SDPA attention (no seq x seq matrices kept)"},
    {"lighter_optimizer", "8-bit Adam (bitsandbytes)"},
    {"lora", "LoRA, rank 8 on q and v (the base frozen)"},
    {"fused_loss", "a fused linear + cross-entropy (the logits never whole)"},
};

/* What lever i changes; false when it does not apply to these settings. */
static bool apply(int i, const lab_plan_settings *s, lab_plan_settings *t) {
  const lab_plan_model *md = &s->model;
  bool lm = md->arch != LAB_PLAN_CNN, cuda = s->backend == LAB_PLAN_BACKEND_CUDA;
  *t = *s;
  switch (i) {
    case 0: t->batch = s->batch / 2; return s->batch >= 2;
    case 1:
      t->batch = s->batch / 2;
      t->accum = s->accum * 2;
      return s->batch >= 2 && s->accum <= 512;
    case 2: t->seq = s->seq / 2; return lm && s->seq >= 2;
    case 3:
      t->precision = s->profile.bf16_tflops > 0 ? LAB_PLAN_AMP_BF16 : LAB_PLAN_AMP_FP16;
      return cuda && s->precision == LAB_PLAN_FP32;
    case 4: t->checkpointing = LAB_PLAN_CKPT_FULL; return lm && s->checkpointing != LAB_PLAN_CKPT_FULL;
    case 5: t->attention = LAB_PLAN_SDPA; return cuda && lm && s->attention == LAB_PLAN_EAGER;
    case 6:
      t->optimizer = LAB_PLAN_ADAM8BIT;
      t->optimizer_impl = LAB_PLAN_IMPL_AUTO;
      return cuda && s->optimizer == LAB_PLAN_ADAMW;
    case 7:
      t->lora_rank = 8;
      t->lora_targets = LAB_PLAN_LORA_QV;
      return md->arch == LAB_PLAN_LLAMA && s->lora_rank == 0;
    default:
      t->loss = LAB_PLAN_LOSS_FUSED;
      return lm && s->loss == LAB_PLAN_LOSS_STANDARD && !(md->arch == LAB_PLAN_BERT && md->head == LAB_PLAN_HEAD_CLASSIFY);
  }
}

static int add_lever(lab_plan_work *w, cJSON *list, const lever *lv, const lab_plan_settings *t, const lab_plan_memory *base,
                     const lab_plan_time *base_t, lab_error *err) {
  lab_plan_memory m;
  lab_plan_time tm;
  if (lab_plan_memory_in(w, t, &m, err)) return -1;
  lab_plan_time_of(t, &m, &tm);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "id", lv->id);
  cJSON_AddStringToObject(o, "label", lv->label);
  cJSON_AddItemToObject(o, "settings", lab_plan_settings_json(t));
  double saves = (double)base->device - (double)m.device;
  double pct = (tm.step_ms / base_t->step_ms - 1) * 100;
  cJSON_AddNumberToObject(o, "device_bytes", (double)m.device);
  cJSON_AddNumberToObject(o, "saves_bytes", saves);
  cJSON_AddNumberToObject(o, "step_ms", tm.step_ms);
  cJSON_AddNumberToObject(o, "step_time_pct", pct);
  cJSON_AddBoolToObject(o, "fits", fits_on(t, &m));
  char text[160];
  snprintf(text, sizeof text, "%s %s, %s %.0f %% step time", saves >= 0 ? "saves" : "adds",
           LAB_IEC(saves >= 0 ? saves : -saves), pct >= 0 ? "costs" : "saves", pct >= 0 ? pct : -pct);
  cJSON_AddStringToObject(o, "text", text);
  cJSON_AddItemToArray(list, o);
  return 0;
}

/* ---- the answer ------------------------------------------------------------------ */

static void verdict(cJSON *o, const lab_plan_settings *s, const lab_plan_memory *m, int best) {
  const lab_profile *p = &s->profile;
  char text[480];
  uint64_t cap = p->memory_bytes, top = (uint64_t)((double)m->device * LAB_PLAN_DEVICE_HIGH);
  uint64_t floor_b = m->weights + m->gradients + m->optimizer_state + m->context;
  if (fits_on(s, m) && top <= cap)
    snprintf(text, sizeof text, "Fits on the %s (%s): nvidia-smi would show about %s at the step's peak, leaving %s.",
             p->device_name, LAB_IEC(cap), LAB_IEC(m->device), LAB_IEC(cap - m->device));
  else if (fits_on(s, m))
    snprintf(text, sizeof text,
             "Fits on the %s (%s), but tightly: about %s at the step's peak, and the top of the band (%s) is over "
             "the card.",
             p->device_name, LAB_IEC(cap), LAB_IEC(m->device), LAB_IEC(top));
  else if (best > 0)
    snprintf(text, sizeof text,
             "Does not fit on the %s (%s): the step's peak needs about %s on the device. The largest micro-batch "
             "that fits is %d.",
             p->device_name, LAB_IEC(cap), LAB_IEC(m->device), best);
  else
    snprintf(text, sizeof text,
             "Does not fit on the %s (%s), not even with a micro-batch of 1: weights, gradients, optimizer state "
             "and the CUDA context alone take %s of the %s the step needs.",
             p->device_name, LAB_IEC(cap), LAB_IEC(floor_b), LAB_IEC(m->device));
  cJSON_AddStringToObject(o, "verdict", text);
}

static void add_time(cJSON *o, const lab_plan_time *tm) {
  cJSON_AddNumberToObject(o, "step_ms", tm->step_ms);
  cJSON *tb = cJSON_AddArrayToObject(o, "step_ms_band");
  cJSON_AddItemToArray(tb, cJSON_CreateNumber(tm->low_ms));
  cJSON_AddItemToArray(tb, cJSON_CreateNumber(tm->high_ms));
  cJSON_AddNumberToObject(o, "tokens_per_s", tm->tokens_per_s);
  cJSON *time = cJSON_AddObjectToObject(o, "time");
  cJSON_AddNumberToObject(time, "flops_per_step", tm->flops);
  cJSON_AddNumberToObject(time, "matmul_ms", tm->matmul_ms);
  cJSON_AddNumberToObject(time, "memory_bound_ms", tm->memory_ms);
  cJSON_AddNumberToObject(time, "host_ms", tm->host_ms);
  cJSON_AddNumberToObject(time, "optimizer_ms", tm->optimizer_ms);
  cJSON_AddBoolToObject(time, "host_bound", tm->host_bound);
}

static void add_model(cJSON *o, const lab_plan_settings *s, const lab_plan_memory *m) {
  cJSON *model = cJSON_AddObjectToObject(o, "model");
  cJSON_AddStringToObject(model, "name", s->model.name);
  cJSON_AddNumberToObject(model, "params", m->params);
  cJSON_AddNumberToObject(model, "trainable_params", m->trainable);
  if (s->model.published_params > 0) cJSON_AddNumberToObject(model, "published_params", s->model.published_params);
  if (s->model.source[0]) cJSON_AddStringToObject(model, "source", s->model.source);
}

cJSON *lab_plan_answer(const lab_plan_settings *s, lab_error *err) {
  lab_plan_memory m;
  lab_plan_time tm;
  lab_plan_work *w = lab_plan_work_new(s->model.layers);
  lab_plan_settings *t = malloc(sizeof *t);
  cJSON *o = NULL;
  bool cuda = s->backend == LAB_PLAN_BACKEND_CUDA;
  int best = 0;
  if (!w || !t) goto fail;
  if (lab_plan_memory_in(w, s, &m, err)) goto fail;
  lab_plan_time_of(s, &m, &tm);
  if (cuda && (best = max_batch(w, s, &m, err)) < 0) goto fail;
  if (!(o = cJSON_CreateObject())) goto fail;
  cJSON_AddNumberToObject(o, "plan", 1);
  cJSON_AddItemToObject(o, "settings", lab_plan_settings_json(s));
  add_model(o, s, &m);
  cJSON *mem = lab_plan_memory_json(&m);
  cJSON_AddItemToObject(o, "memory", mem);
  band(mem, "allocated_band", m.allocated, LAB_PLAN_ALLOCATED_LOW, LAB_PLAN_ALLOCATED_HIGH);
  band(mem, "reserved_band", m.reserved, LAB_PLAN_RESERVED_LOW, LAB_PLAN_RESERVED_HIGH);
  band(mem, "device_band", m.device, LAB_PLAN_DEVICE_LOW, LAB_PLAN_DEVICE_HIGH);
  add_bytes(mem, "capacity_bytes", s->profile.memory_bytes);
  if (cuda) {
    cJSON_AddBoolToObject(o, "fits", fits_on(s, &m));
    cJSON_AddNumberToObject(o, "room_bytes", (double)s->profile.memory_bytes - (double)m.device);
    cJSON_AddNumberToObject(o, "max_batch", best);
    verdict(o, s, &m, best);
  } else {
    cJSON_AddNullToObject(o, "fits");
    cJSON_AddStringToObject(o, "verdict", "Planned as PyTorch runs on the CPU (the reference's backend): no GPU verdict.");
  }
  add_time(o, &tm);
  cJSON *list = cJSON_AddArrayToObject(o, "levers");
  for (int i = 0; cuda && i < (int)(sizeof levers / sizeof levers[0]); i++)
    if (apply(i, s, t) && add_lever(w, list, &levers[i], t, &m, &tm, err)) goto fail;
  cJSON_AddStringToObject(o, "method", LAB_PLAN_METHOD);
  free(t);
  lab_plan_work_free(w);
  return o;
fail:
  if (err->code == LAB_OK) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  free(t);
  lab_plan_work_free(w);
  cJSON_Delete(o);
  return NULL;
}

cJSON *lab_plan(const cJSON *request, lab_error *err) {
  lab_plan_settings *s = malloc(sizeof *s);
  if (!s) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  cJSON *out = lab_plan_settings_from_json(request, s, err) ? NULL : lab_plan_answer(s, err);
  free(s);
  return out;
}
