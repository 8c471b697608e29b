/* The planner's answer as JSON: the settings used, the model's size, the
 * memory per component and per counter with bands, the verdict on the
 * profile's GPU, the step time, and the levers. One builder for the CLI's
 * --json, the API and the page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "json.h"
#include "plan_answer.h"
#include "plan_int.h"

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
  component(list, "cuda_context", "CUDA context (the profile's)", m->context);
  return o;
}

cJSON *lab_plan_answer(const lab_plan_settings *s, lab_error *err) {
  lab_plan_memory m;
  if (lab_plan_memory_of(s, &m, err)) return NULL;
  cJSON *o = cJSON_CreateObject();
  if (!o) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  cJSON_AddNumberToObject(o, "plan", 1);
  cJSON_AddItemToObject(o, "settings", lab_plan_settings_json(s));
  cJSON *model = cJSON_AddObjectToObject(o, "model");
  cJSON_AddNumberToObject(model, "params", m.params);
  cJSON_AddNumberToObject(model, "trainable_params", m.trainable);
  cJSON_AddItemToObject(o, "memory", lab_plan_memory_json(&m));
  return o;
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
