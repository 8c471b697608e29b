/* The planner in the simulation module (plan_run.h): the same lab_plan the
 * server answers POST /api/plan with, plus a sweep over micro-batches made
 * with one lab_plan_work (no allocation per plan). */
#include "plan_run.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plan.h"

static const char *const kind_ids[6] = {"activations", "weights", "gradients", "optimizer_state", "buffers", "workspace"};

/* The step's memory for micro-batches 1, 2, 4, … past the largest that
 * fits (at least up to the one asked for): per point the bytes by kind at
 * the peak, the allocator's and the context's share, and nvidia-smi's. */
static cJSON *sweep(const lab_plan_settings *s, lab_error *err) {
  lab_plan_work *w = lab_plan_work_new(s->model.layers);
  lab_plan_settings *t = malloc(sizeof *t);
  cJSON *out = cJSON_CreateArray();
  if (!w || !t || !out) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto fail;
  }
  *t = *s;
  int over = 0;
  for (int i = 0, batch = 1; i < UI_PLAN_SWEEP_MAX && batch <= 4096; i++, batch *= 2) {
    lab_plan_memory m;
    t->batch = batch;
    if (lab_plan_memory_in(w, t, &m, err)) goto fail;
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(out, p);
    cJSON_AddNumberToObject(p, "batch", batch);
    double sum = 0;
    for (int k = 0; k < 6; k++) {
      cJSON_AddNumberToObject(p, kind_ids[k], (double)m.peak_kind[k]);
      sum += (double)m.peak_kind[k];
    }
    cJSON_AddNumberToObject(p, "allocator_context", (double)m.device > sum ? (double)m.device - sum : 0);
    cJSON_AddNumberToObject(p, "device_bytes", (double)m.device);
    if (m.device > s->profile.memory_bytes) over++;
    if (over >= 2 && batch >= s->batch) break; /* one past the first that does not fit */
  }
  free(t);
  lab_plan_work_free(w);
  return out;
fail:
  free(t);
  lab_plan_work_free(w);
  cJSON_Delete(out);
  return NULL;
}

int ui_plan_run(const char *settings_json, char **text) {
  lab_error err;
  memset(&err, 0, sizeof err);
  *text = NULL;
  cJSON *req = settings_json ? lab_json_parse(settings_json, strlen(settings_json), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  lab_plan_settings *s = malloc(sizeof *s);
  cJSON *out = NULL;
  if (!s) lab_fail(&err, LAB_E_NOMEM, NULL, NULL);
  else if (!cJSON_IsObject(req)) lab_fail(&err, LAB_E_INVALID_JSON, "settings", "the settings must be a JSON object");
  else if (lab_plan_settings_from_json(req, s, &err) == 0 && (out = lab_plan_answer(s, &err))) {
    cJSON *sw = s->backend == LAB_PLAN_BACKEND_CUDA ? sweep(s, &err) : cJSON_CreateArray();
    if (!sw) {
      cJSON_Delete(out);
      out = NULL;
    } else {
      cJSON_AddItemToObject(out, "sweep", sw);
      cJSON_AddItemToObject(out, "presets", lab_plan_presets_json());
    }
  }
  cJSON_Delete(req);
  free(s);
  int status = out ? 200 : lab_err_http_status(err.code);
  if (!out) out = lab_error_json(&err);
  if (out) *text = cJSON_PrintUnformatted(out);
  cJSON_Delete(out);
  return status;
}
