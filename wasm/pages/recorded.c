/* Recorded runs for the widgets (see recorded.h): static files, so a slow
 * network may take a while, never forever; each answer is checked as a
 * result of its experiment before it is offered or shown. */
#include "recorded.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "envelope.h"
#include "json.h"
#include "json_get.h"
#include "registry.h"
#include "result.h"

#define STATIC_TIMEOUT_MS 30000

static struct {
  bool asked;        /* /recorded/index.json was requested */
  intptr_t gen;      /* bumped by ui_recorded_shutdown: older answers are dropped */
  ui_recorded_label_fn on_label;
} rec;

typedef struct replay {
  intptr_t gen;
  char name[64];
  ui_recorded_done_fn done;
  void *ctx;
} replay;

static intptr_t tag(int index, intptr_t gen) { return gen << 5 | index; }

/* The envelope of a recorded run of name from a fetch's answer, checked
 * like any result; NULL with err set when it is missing or wrong. */
static cJSON *recorded_env(const char *name, int status, const char *body, size_t len, lab_error *err) {
  if (status != 200) {
    char why[32];
    if (status == UI_FETCH_TIMED_OUT) snprintf(why, sizeof why, "no answer in %d s", STATIC_TIMEOUT_MS / 1000);
    else if (status > 0) snprintf(why, sizeof why, "HTTP %d", status);
    else snprintf(why, sizeof why, "no answer");
    lab_fail(err, LAB_E_NOT_FOUND, NULL,
             "The recorded run of %s could not be loaded (%s); pick auto or a profile to run it now.", name, why);
    return NULL;
  }
  cJSON *env = lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL);
  lab_error why;
  memset(&why, 0, sizeof why);
  if (!env || lab_envelope_check(env, &why) != 0 || !ui_json_str(env, "experiment") ||
      strcmp(ui_json_str(env, "experiment"), name) != 0 || !ui_json_str(env, "backend") ||
      strcmp(ui_json_str(env, "backend"), "recorded") != 0 || !ui_json_obj(env, "recorded")) {
    lab_fail(err, LAB_E_BAD_REQUEST, NULL,
             "The file /recorded/%s.json is not a recorded run of %s (%s); record it again with make record.", name,
             name, why.message[0] ? why.message : "wrong experiment, backend or no \"recorded\" object");
    cJSON_Delete(env);
    return NULL;
  }
  return env;
}

/* A recorded file arrived: its device and date label the picker's choice. */
static void on_label(int status, const char *body, size_t len, void *ctx) {
  intptr_t t = (intptr_t)ctx;
  const lab_experiment *e = lab_experiment_at((int)(t & 31));
  lab_error err;
  char label[160];
  if (t >> 5 != rec.gen || !e || !rec.on_label) return;
  cJSON *env = recorded_env(e->name, status, body, len, &err);
  if (!env) return; /* not offered; the index named a file that is not there */
  ui_result_source(env, false, label, sizeof label);
  cJSON_Delete(env);
  rec.on_label(e->name, label);
}

/* The label from the index's "sources" entry of a recording (its
 * "recorded" and "measured_with" objects, tools/recorded_index.py): the
 * same words ui_result_source gives the whole file. False when the entry
 * is missing or names no device. */
static bool label_from_index(const lab_experiment *e, const cJSON *src) {
  char label[160];
  if (!ui_json_str(ui_json_obj(src, "recorded"), "device")) return false;
  cJSON *env = cJSON_CreateObject();
  if (!env) return false;
  cJSON_AddStringToObject(env, "experiment", e->name);
  cJSON_AddStringToObject(env, "backend", "recorded");
  cJSON_AddItemReferenceToObject(env, "recorded", cJSON_GetObjectItemCaseSensitive(src, "recorded"));
  if (ui_json_obj(src, "measured_with"))
    cJSON_AddItemReferenceToObject(env, "measured_with", cJSON_GetObjectItemCaseSensitive(src, "measured_with"));
  ui_result_source(env, false, label, sizeof label);
  cJSON_Delete(env);
  rec.on_label(e->name, label);
  return true;
}

/* /recorded/index.json: {"recorded":["timing",…],"sources":{"timing":{…}}},
 * or one "source" that every recording shares.
 * With its sources the first visit fetches no recording: each is fetched,
 * and checked, when it is replayed. An index without them (an older web
 * root) has each file fetched for its label. Absent (no `make record` yet)
 * means no recorded choices, silently. */
static void on_index(int status, const char *body, size_t len, void *ctx) {
  const cJSON *name;
  if ((intptr_t)ctx != rec.gen || status != 200) return;
  cJSON *j = lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL);
  const cJSON *sources = ui_json_obj(j, "sources"), *shared = ui_json_obj(j, "source");
  cJSON_ArrayForEach(name, ui_json_arr(j, "recorded")) {
    for (int i = 0; cJSON_IsString(name) && i < lab_experiment_count() && i < 32; i++) {
      const lab_experiment *e = lab_experiment_at(i);
      if (strcmp(e->name, name->valuestring) != 0) continue;
      const cJSON *src = ui_json_obj(sources, e->name);
      if (rec.on_label && label_from_index(e, src ? src : shared)) continue;
      char url[128];
      snprintf(url, sizeof url, "/recorded/%s.json", e->name);
      ui_fetch(url, STATIC_TIMEOUT_MS, on_label, (void *)tag(i, rec.gen));
    }
  }
  cJSON_Delete(j);
}

static void fetch_index(void *ctx) {
  if ((intptr_t)ctx != rec.gen) return;
  ui_fetch("/recorded/index.json", STATIC_TIMEOUT_MS, on_index, ctx);
}

/* Asked once, when the learner reaches into an experiment widget
 * (ui_exp_offer_recorded, with /api/profiles): the choices it adds are in
 * a widget's picker, so a first visit never pays for them; ui_later keeps
 * the request out of the event that asked. */
void ui_recorded_offer(ui_recorded_label_fn label_fn) {
  rec.on_label = label_fn;
  if (rec.asked) return;
  rec.asked = true;
  ui_later(0, fetch_index, (void *)rec.gen);
}

/* The recorded file for a replay arrived: shown like any result, with a
 * note giving the parameters it was recorded with. */
static void on_replay(int status, const char *body, size_t len, void *ctx) {
  replay *r = ctx;
  lab_error err;
  char note[420];
  const cJSON *p;
  size_t at, head;
  memset(&err, 0, sizeof err);
  cJSON *env = r->gen == rec.gen ? recorded_env(r->name, status, body, len, &err) : NULL;
  if (r->gen != rec.gen) { /* the app shut down since */
    free(r);
    return;
  }
  if (!env) {
    r->done(NULL, NULL, &err, r->ctx);
    free(r);
    return;
  }
  /* a measurement kit run kept as a recording is the kit's, in PyTorch, never gpulab's own kernels */
  at = head = (size_t)snprintf(note, sizeof note, "%s",
                               ui_json_obj(env, "measured_with")
                                   ? "A replay of a run of the measurement kit (PyTorch), with the parameters it was run with:"
                                   : "A replay of a real GPU run, with the parameters it was recorded with:");
  cJSON_ArrayForEach(p, ui_json_obj(env, "params")) {
    char value[64];
    if (cJSON_IsNumber(p)) snprintf(value, sizeof value, "%.15g", p->valuedouble);
    else if (cJSON_IsBool(p)) snprintf(value, sizeof value, "%s", cJSON_IsTrue(p) ? "true" : "false");
    else snprintf(value, sizeof value, "%s", cJSON_IsString(p) ? p->valuestring : "?");
    if (at < sizeof note)
      at += (size_t)snprintf(note + at, sizeof note - at, "%s %s=%s", at > head ? "," : "", p->string ? p->string : "",
                             value);
  }
  if (at < sizeof note) snprintf(note + at, sizeof note - at, ". The controls above do not apply to it.");
  r->done(env, note, NULL, r->ctx);
  free(r);
}

void ui_recorded_replay(const char *name, ui_recorded_done_fn done, void *ctx) {
  char url[128];
  lab_error err;
  replay *r = calloc(1, sizeof *r);
  if (!r || !name || strlen(name) >= sizeof r->name) {
    free(r);
    lab_fail(&err, LAB_E_NOMEM, NULL, NULL);
    done(NULL, NULL, &err, ctx);
    return;
  }
  r->gen = rec.gen;
  snprintf(r->name, sizeof r->name, "%s", name);
  r->done = done;
  r->ctx = ctx;
  snprintf(url, sizeof url, "/recorded/%s.json", name);
  ui_fetch(url, STATIC_TIMEOUT_MS, on_replay, r);
}

void ui_recorded_shutdown(void) {
  rec.asked = false;
  rec.on_label = NULL;
  rec.gen++;
}
