/* Follows runs queued on the class GPU (see class_queue.h). One slot per
 * experiment (a widget runs one at a time); a generation number in every
 * callback's context drops answers for a run that ended or was forgotten. */
#include "class_queue.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "class_app.h"
#include "class_run.h"
#include "experiment.h"
#include "html.h"
#include "json.h"
#include "json_get.h"
#include "registry.h"
#include "timeouts.h"

#define MAX_RUNS 16

typedef struct run_slot {
  bool used;
  const lab_experiment *e;
  char id[72];
  ui_class_done_cb done;
  void *ctx;
  int polls, failures;
  long waited_ms; /* the sum of the delays: the client's own bound */
  char shown[400]; /* what the output shows now: re-drawn only when it changes, so a screen reader is not flooded */
  char note[200];
  cJSON *last; /* the last run object seen */
  intptr_t gen;
} run_slot;

static run_slot runs[MAX_RUNS];

static intptr_t tag(int i) { return runs[i].gen << 5 | i; }

static run_slot *from_tag(void *ctx) {
  intptr_t t = (intptr_t)ctx;
  int i = (int)(t & 31);
  if (i >= MAX_RUNS || !runs[i].used || runs[i].gen != t >> 5) return NULL;
  return &runs[i];
}

static void forget(run_slot *r) {
  cJSON_Delete(r->last);
  intptr_t gen = r->gen;
  memset(r, 0, sizeof *r);
  r->gen = gen + 1;
}

static void show(run_slot *r) {
  char id[96];
  ui_buf b;
  ui_buf_init(&b);
  ui_render_class_run(&b, r->last, r->e->name, r->note);
  if (!b.failed && strcmp(ui_buf_str(&b), r->shown) != 0) {
    snprintf(r->shown, sizeof r->shown, "%s", ui_buf_str(&b));
    ui_exp_id(id, sizeof id, r->e, "out");
    ui_dom_set_html(id, ui_buf_str(&b));
    /* the output says where in the queue; the status line beside Run only says which phase */
    bool queued = ui_json_str(r->last, "status") && strcmp(ui_json_str(r->last, "status"), "queued") == 0;
    ui_exp_id(id, sizeof id, r->e, "status");
    ui_dom_set_text(id, queued ? "waiting for the class GPU…" : "running on the class GPU…");
    ui_exp_id(id, sizeof id, r->e, "run");
    ui_dom_set_text(id, queued ? "Queued…" : "Running…");
  }
  ui_buf_free(&b);
}

/* Hands the outcome to the widget and frees the slot first, so the widget
 * may queue the experiment again from its callback. */
static void end(run_slot *r, cJSON *env, const lab_error *err) {
  ui_class_done_cb done = r->done;
  void *ctx = r->ctx;
  forget(r);
  done(env, err, ctx);
  ui_class_app_refresh(); /* the GPU time used has changed */
}

static void stop_waiting(run_slot *r, const char *why) {
  lab_error err;
  memset(&err, 0, sizeof err);
  lab_fail(&err, LAB_E_BUSY, NULL, "%s", why);
  end(r, NULL, &err);
}

static void poll(void *ctx);

static void schedule(run_slot *r) {
  int ms = ui_class_poll_delay_ms(r->polls, r->failures);
  r->waited_ms += ms;
  if (r->waited_ms > UI_CLASS_WAIT_MAX_MS) {
    stop_waiting(r, "gpulab stopped waiting for this run after 15 minutes. It stays in your session on the class "
                    "server; reload the page later, or press Run to queue it again.");
    return;
  }
  ui_later(ms, poll, (void *)tag((int)(r - runs)));
}

static void on_poll(int status, const char *body, size_t len, void *ctx) {
  run_slot *r = from_tag(ctx);
  cJSON *env = NULL;
  lab_error err;
  if (!r) return;
  memset(&err, 0, sizeof err);
  cJSON *j = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const cJSON *run = ui_class_run_obj(j);
  if (!j || !ui_json_str(run, "status")) {
    cJSON *e = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
    const char *code = ui_json_str(ui_json_obj(e, "error"), "code");
    cJSON_Delete(j);
    if (code && (strcmp(code, "no_session") == 0 || strcmp(code, "unknown_run") == 0)) {
      /* the session ended (left in another tab, or the server lost it): the run is not ours to follow */
      bool no_session = strcmp(code, "no_session") == 0;
      lab_error_from_json(e, &err);
      cJSON_Delete(e);
      if (no_session) {
        snprintf(err.message, sizeof err.message, "Your class session ended, so this run is no longer yours to "
                                                  "follow. Join the class again to run on its GPU.");
        ui_class_app_need_session();
      } else {
        snprintf(err.message, sizeof err.message, "The class server no longer knows this run (it may have been "
                                                  "restarted with a new database). Press Run to queue it again.");
      }
      end(r, NULL, &err);
      return;
    }
    cJSON_Delete(e);
    if (++r->failures >= UI_CLASS_POLL_FAILURES_MAX) {
      stop_waiting(r, "The class server stopped answering while your run waited. Check your connection, then "
                      "reload the page: finished runs are kept with your session.");
      return;
    }
    schedule(r);
    return;
  }
  r->failures = 0;
  r->polls++;
  cJSON_Delete(r->last);
  r->last = cJSON_Duplicate(run, 1);
  cJSON_Delete(j);
  int ended = ui_class_run_end(r->last, &env, &err);
  if (ended) {
    end(r, env, &err);
    return;
  }
  show(r);
  schedule(r);
}

static void poll(void *ctx) {
  run_slot *r = from_tag(ctx);
  char url[128];
  if (!r) return;
  snprintf(url, sizeof url, "/api/runs/%s", r->id);
  ui_fetch(url, UI_API_TIMEOUT_MS, on_poll, ctx);
}

int ui_class_queue_answer(int status, const cJSON *answer, const char *experiment, ui_class_done_cb done, void *ctx,
                          lab_error *err) {
  const lab_experiment *e = experiment ? lab_experiment_find(experiment) : NULL;
  char id[72];
  if (ui_class_refusal(status, answer, err)) {
    if (strcmp(ui_json_str(ui_json_obj(answer, "error"), "code"), "no_session") == 0) ui_class_app_need_session();
    return -1;
  }
  if (status != 202 || !e) return 0;
  if (!ui_class_run_id(answer, id, sizeof id)) {
    lab_fail(err, LAB_E_INTERNAL, NULL, "The class server queued the run but sent no run id to follow it by.");
    return -1;
  }
  int free_slot = -1;
  for (int i = 0; i < MAX_RUNS; i++) {
    if (runs[i].used && runs[i].e == e) forget(&runs[i]); /* a newer run of the same widget replaces it */
    if (!runs[i].used && free_slot < 0) free_slot = i;
  }
  if (free_slot < 0) {
    lab_fail(err, LAB_E_BUSY, NULL, "Too many runs are being followed in this page; wait for one to finish.");
    return -1;
  }
  run_slot *r = &runs[free_slot];
  r->used = true;
  r->e = e;
  snprintf(r->id, sizeof r->id, "%s", id);
  r->done = done;
  r->ctx = ctx;
  r->last = cJSON_Duplicate(ui_class_run_obj(answer), 1);
  show(r);
  schedule(r);
  return 1;
}

/* ---- cancel ------------------------------------------------------------------------ */

static void on_cancel(int status, const char *body, size_t len, void *ctx) {
  run_slot *r = from_tag(ctx);
  lab_error err;
  if (!r) return;
  memset(&err, 0, sizeof err);
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  if (status == 200 || status == 204) {
    cJSON_Delete(j);
    lab_fail(&err, LAB_E_BAD_REQUEST, NULL, "You cancelled the run before it started; press Run to queue it again.");
    end(r, NULL, &err);
    return;
  }
  if (j && lab_error_from_json(j, &err) == 0 && err.code == LAB_E_NOT_CANCELLABLE)
    snprintf(r->note, sizeof r->note, "It had already started, so it can no longer be cancelled; the result follows.");
  else if (status <= 0)
    snprintf(r->note, sizeof r->note, "The server did not answer, so the run may still be queued. Press Cancel again.");
  else
    snprintf(r->note, sizeof r->note, "The server did not cancel it: %.150s", err.message[0] ? err.message : "no reason given.");
  cJSON_Delete(j);
  show(r);
}

bool ui_class_queue_action(const char *action, const char *arg) {
  char url[128];
  if (strcmp(action, "class-cancel") != 0) return false;
  for (int i = 0; i < MAX_RUNS; i++) {
    if (!runs[i].used || !arg || strcmp(runs[i].e->name, arg) != 0) continue;
    snprintf(runs[i].note, sizeof runs[i].note, "Cancelling…");
    show(&runs[i]);
    snprintf(url, sizeof url, "/api/runs/%s", runs[i].id);
    ui_fetch_delete(url, UI_API_TIMEOUT_MS, on_cancel, (void *)tag(i));
  }
  return true;
}

void ui_class_queue_shutdown(void) {
  for (int i = 0; i < MAX_RUNS; i++) forget(&runs[i]);
}
