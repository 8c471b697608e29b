/* The widgets' behaviour (see experiment_run.h). One slot per experiment
 * holds what the learner typed and the last result; a generation number in
 * every callback's context drops answers to runs that were superseded.
 * Runs recorded on a real GPU are offered in the picker and replayed
 * through recorded.h. */
#include "experiment_run.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge.h"
#include "class_app.h"
#include "class_queue.h"
#include "crossover.h"
#include "envelope.h"
#include "experiment.h"
#include "json.h"
#include "json_get.h"
#include "profiles.h"
#include "recorded.h"
#include "report.h"
#include "result.h"
#include "route.h"
#include "trace_export.h"
#include "timeouts.h"

#define MAX_SLOTS 16

typedef struct slot {
  ui_exp_widget w;
  bool ready;
  cJSON *result, *params;
  lab_params checked; /* params as checked values, set with them */
  char note[420], failure[400];
  char rec_label[160]; /* "recorded on DEVICE, DATE", "" until its file was read */
  intptr_t gen;
} slot;

static struct {
  slot s[MAX_SLOTS];
  const ui_device_state *dev;
} st;

static slot *find(const char *name, int *index) {
  for (int i = 0; i < lab_experiment_count() && i < MAX_SLOTS; i++) {
    const lab_experiment *e = lab_experiment_at(i);
    if (!name || strcmp(e->name, name) != 0) continue;
    if (!st.s[i].ready) {
      ui_exp_widget_init(&st.s[i].w, e);
      st.s[i].ready = true;
    }
    if (index) *index = i;
    return &st.s[i];
  }
  return NULL;
}

static void set_html(const char *id, ui_buf *b) {
  ui_dom_set_html(id, b->failed ? "<p>Out of memory while drawing this part of the page. Reload the page.</p>"
                                : ui_buf_str(b));
  ui_buf_free(b);
}

static void show_output(slot *s);

static bool update_in_place(slot *s, const ui_device_state *dev) {
  char id[96], text[96];
  ui_exp_id(id, sizeof id, s->w.e, "target");
  if (ui_dom_value(id, text, sizeof text) < 0) return false; /* a fresh placeholder */
  ui_exp_id(id, sizeof id, s->w.e, "target-auto");
  ui_dom_set_text(id, ui_exp_auto_label(s->w.e, dev, text, sizeof text));
  ui_exp_id(id, sizeof id, s->w.e, "target-help");
  ui_dom_set_text(id, ui_exp_target_help(s->w.e, dev));
  if (!s->w.result && !s->w.running && !s->w.failure) show_output(s); /* the device card's verdict */
  return true;
}

/* ---- recorded runs ------------------------------------------------------------ */

static intptr_t tag(int index, intptr_t gen) { return gen << 5 | index; }

/* name has a recorded run (recorded.h): its label joins the picker, in place
 * when the widget is already drawn, keeping what is picked. */
static void on_recorded_label(const char *name, const char *label) {
  char id[96], target[32];
  slot *s = find(name, NULL);
  if (!s) return;
  snprintf(s->rec_label, sizeof s->rec_label, "%s", label);
  s->w.recorded_label = s->rec_label;
  ui_exp_id(id, sizeof id, s->w.e, "target");
  if (ui_dom_value(id, target, sizeof target) < 0) return;
  if (strcmp(target, "auto") == 0 || lab_profile_find(target)) snprintf(s->w.target, sizeof s->w.target, "%s", target);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_experiment_picker(&b, &s->w, st.dev);
  ui_exp_id(id, sizeof id, s->w.e, "picker");
  set_html(id, &b);
}

void ui_exp_set_device(const ui_device_state *dev) { st.dev = dev; }

void ui_exp_offer_recorded(void) { ui_recorded_offer(on_recorded_label); }

void ui_exp_fill(const char *name, const ui_device_state *dev) {
  char selector[128];
  ui_buf b;
  slot *s = find(name, NULL);
  st.dev = dev;
  if (!name || strlen(name) > 64) return;
  /* A widget already on the page (the device check answered later) is
   * updated in place, so what the learner is typing, and focus, stay. */
  if (s && update_in_place(s, dev)) return;
  snprintf(selector, sizeof selector, ".experiment[data-experiment=\"%s\"]", name);
  ui_buf_init(&b);
  if (s) ui_render_experiment_widget(&b, &s->w, dev);
  else if (ui_id_valid(name)) ui_render_experiment_unknown(&b, name);
  else return; /* not a name that could be put in a selector safely */
  ui_dom_fill(selector, b.failed ? "" : ui_buf_str(&b));
  ui_buf_free(&b);
}

/* ---- running ---------------------------------------------------------------- */

static void show_output(slot *s) {
  char id[96];
  ui_buf b;
  ui_buf_init(&b);
  ui_render_experiment_output(&b, &s->w, st.dev);
  ui_exp_id(id, sizeof id, s->w.e, "out");
  set_html(id, &b);
  ui_dom_set_attr(id, "aria-busy", s->w.running ? "true" : "false");
}

static void set_running(slot *s, bool running) {
  char id[96];
  s->w.running = running;
  ui_exp_id(id, sizeof id, s->w.e, "run");
  ui_dom_set_attr(id, "aria-disabled", running ? "true" : NULL);
  ui_dom_set_text(id, running ? "Running…" : "Run");
  ui_exp_id(id, sizeof id, s->w.e, "out");
  ui_dom_set_attr(id, "aria-busy", running ? "true" : "false");
  ui_exp_id(id, sizeof id, s->w.e, "status");
  ui_dom_set_text(id, running ? "running…" : "");
}

/* Shows the fields with their messages and moves focus to the first bad one. */
static void show_field_errors(slot *s) {
  char id[128];
  ui_buf b;
  int bad = 0, first = -1;
  ui_buf_init(&b);
  ui_render_experiment_fields(&b, &s->w, st.dev);
  ui_exp_id(id, sizeof id, s->w.e, "fields");
  set_html(id, &b);
  ui_exp_id(id, sizeof id, s->w.e, "params");
  ui_dom_set_attr(id, "open", "");
  for (int i = 0; i < s->w.e->n_params && i < LAB_MAX_PARAMS; i++) {
    if (!s->w.error[i][0]) continue;
    if (first < 0) first = i;
    bad++;
  }
  ui_exp_id(id, sizeof id, s->w.e, "status");
  if (bad) {
    char text[320];
    snprintf(text, sizeof text, "Not run: %d parameter%s to fix. %s", bad, bad == 1 ? "" : "s", s->w.error[first]);
    ui_dom_set_text(id, text);
    ui_exp_field_id(id, sizeof id, s->w.e, &s->w.e->params[first]);
    ui_dom_focus(id);
  }
}

/* The last result of each experiment is kept for the lab report
 * (UI_STORE_LAST NAME, report.h: read by quiz_app.c for the report). */
static void remember(const char *name, const cJSON *env, bool in_browser) {
  char key[64];
  /* The report says where a simulation ran: stored beside the envelope. */
  cJSON *copy = cJSON_Duplicate(env, 1);
  if (copy) cJSON_AddStringToObject(copy, "ran_in", in_browser ? "browser" : "server");
  char *text = copy ? cJSON_PrintUnformatted(copy) : NULL;
  cJSON_Delete(copy);
  if (!text) return;
  snprintf(key, sizeof key, "%s%s", UI_STORE_LAST, name);
  ui_storage_set(key, text);
  cJSON_free(text);
}

/* While a line the result will draw is still to come (crossover's server
 * CPU line), the headline is marked provisional and the status does not
 * say "Done": a result never changes its mind after "Done". */
static void mark_provisional(cJSON *env, bool on) {
  cJSON *h = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "headline");
  if (!cJSON_IsObject(h)) return;
  cJSON_DeleteItemFromObjectCaseSensitive(h, "provisional");
  if (on) cJSON_AddTrueToObject(h, "provisional");
}

static void say_done(slot *s, const char *more) {
  char id[96], text[400], src[200];
  ui_exp_id(id, sizeof id, s->w.e, "status");
  snprintf(text, sizeof text, "Done: %s.%s The result is below.",
           ui_result_source(s->result, s->w.in_browser, src, sizeof src), more);
  ui_dom_set_text(id, text);
}

static void finish_waiting(slot *s, cJSON *env, bool in_browser, bool waiting) {
  char id[96];
  cJSON_Delete(s->result);
  cJSON_Delete(s->params);
  s->params = NULL;
  s->result = env;
  s->w.result = env;
  s->w.in_browser = in_browser;
  s->w.note = s->note[0] ? s->note : NULL;
  s->w.failure = NULL;
  s->w.not_applicable = false;
  mark_provisional(env, waiting);
  set_running(s, false);
  show_output(s);
  if (!waiting) {
    remember(s->w.e->name, env, in_browser);
    say_done(s, "");
    return;
  }
  ui_exp_id(id, sizeof id, s->w.e, "status");
  ui_dom_set_text(id, "Your browser's part is below; waiting for the server's CPU line before the verdict is final…");
}

static void finish(slot *s, cJSON *env, bool in_browser) { finish_waiting(s, env, in_browser, false); }

/* A refused run takes the previous result's charts away: left in place,
 * unmarked, they read as the answer to the parameters now in the fields. */
static void drop_result(slot *s) {
  cJSON_Delete(s->result);
  s->result = NULL;
  s->w.result = NULL;
  s->w.failure = NULL;
  show_output(s);
}

/* A run that gave no envelope: a field's error goes beside the field. */
static void fail(slot *s, const lab_error *err) {
  char id[96];
  cJSON_Delete(s->params);
  s->params = NULL;
  set_running(s, false);
  drop_result(s);
  if (err->param[0]) {
    ui_exp_set_error(&s->w, err);
    for (int i = 0; i < s->w.e->n_params; i++) {
      if (strcmp(s->w.e->params[i].name, err->param) == 0) {
        show_field_errors(s);
        return;
      }
    }
  }
  snprintf(s->failure, sizeof s->failure, "%s", err->message[0] ? err->message : lab_err_advice(err->code));
  s->w.failure = s->failure;
  /* Not a fault to retry: the picked GPU has no such thing (the last
   * result, another GPU's, went with drop_result above). */
  s->w.not_applicable = err->code == LAB_E_NOT_APPLICABLE;
  show_output(s);
  ui_exp_id(id, sizeof id, s->w.e, "status");
  ui_dom_set_text(id, s->w.not_applicable ? "This experiment does not apply to the GPU picked; why is below."
                                          : "The experiment did not run; the reason is below.");
}

static slot *from_tag(void *ctx) {
  intptr_t t = (intptr_t)ctx;
  int index = (int)(t & 31);
  if (index >= MAX_SLOTS || !st.s[index].ready || st.s[index].gen != t >> 5) return NULL;
  return &st.s[index];
}

/* The server's CPU figure beside the browser's (the table's cpu column:
 * crossover): the browser
 * times one WebAssembly thread; the server times a tuned BLAS on all its
 * cores, as numpy and PyTorch would. Its "cpu" line joins the result as
 * "cpu_server", labelled and marked as measured on the server, and the
 * verdict is written again against the fastest CPU line
 * (lab_crossover_judge), so headline and findings stay one comparison. */
static void on_server_cpu(int status, const char *body, size_t len, void *ctx) {
  slot *s = from_tag(ctx);
  if (!s || !s->result) return;
  cJSON *j = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const cJSON *line;
  char label[200];
  bool joined = false;
  cJSON_ArrayForEach(line, ui_json_arr(j, "series")) {
    const char *id = ui_json_str(line, "id");
    if (!id || strcmp(id, "cpu") != 0 || !ui_json_arr(s->result, "series")) continue;
    cJSON *copy = cJSON_Duplicate(line, 1);
    snprintf(label, sizeof label, "Server %s", ui_json_str(line, "label") ? ui_json_str(line, "label") : "CPU sgemm");
    cJSON_ReplaceItemInObject(copy, "id", cJSON_CreateString("cpu_server"));
    cJSON_ReplaceItemInObject(copy, "label", cJSON_CreateString(label));
    cJSON_AddStringToObject(copy, "ran_on", "server");
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(s->result, "series"), copy);
    lab_crossover_judge(s->result); /* a fresh headline: no longer provisional */
    joined = true;
    break;
  }
  cJSON_Delete(j);
  mark_provisional(s->result, false);
  show_output(s);
  remember(s->w.e->name, s->result, s->w.in_browser);
  say_done(s, joined ? " The server's CPU line is in." : " The server's CPU line did not come, so the verdict is against your browser's CPU.");
}

static bool asks_server_cpu(const slot *s) {
  return lab_experiment_server_cpu(s->w.e) && st.dev && st.dev->views && !st.dev->offline;
}

static void ask_server_cpu(slot *s, void *ctx, const char *profile) {
  char url[128];
  if (!asks_server_cpu(s)) return;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddItemToObject(req, "params", cJSON_Duplicate(ui_json_obj(s->result, "params"), 1));
  cJSON_AddStringToObject(req, "backend", "simulated");
  cJSON_AddStringToObject(req, "profile", profile);
  char *body = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  snprintf(url, sizeof url, "/api/experiments/%s", s->w.e->name);
  if (body) ui_fetch_post(url, body, UI_RUN_TIMEOUT_MS, on_server_cpu, ctx);
  else on_server_cpu(0, NULL, 0, ctx); /* out of memory: the browser's verdict is final */
  cJSON_free(body);
}

static const char *sim_profile(const slot *s) {
  return strcmp(s->w.target, "auto") == 0 ? lab_profile_default()->name : s->w.target;
}

/* The simulation module answered (bridge.h, ui_simulate). */
static void on_simulated(int status, const char *body, size_t len, void *ctx) {
  slot *s = from_tag(ctx);
  lab_error err;
  if (!s) return;
  memset(&err, 0, sizeof err);
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  if (status == 200 && j && lab_envelope_check(j, &err) == 0) {
    finish_waiting(s, j, true, asks_server_cpu(s));
    ui_class_app_report_simulated(s->w.e->name); /* a class counts it for its instructor */
    ask_server_cpu(s, ctx, sim_profile(s));
    return;
  }
  if (!(status == 400 && j && lab_error_from_json(j, &err) == 0))
    lab_fail(&err, LAB_E_INTERNAL, NULL,
             "The browser's simulator could not start (its files did not load). Reload the page and run it again.");
  cJSON_Delete(j);
  fail(s, &err);
}

/* Runs in the simulation module, a Web Worker: the page stays responsive. */
static void simulate_now(void *ctx) {
  slot *s = from_tag(ctx);
  if (!s) return;
  cJSON *params = lab_params_to_json(&s->checked);
  char *text = params ? cJSON_PrintUnformatted(params) : NULL;
  cJSON_Delete(params);
  ui_simulate(s->w.e->name, text ? text : "", sim_profile(s), on_simulated, ctx);
  cJSON_free(text);
}

/* A run queued on a class server ended (class_queue.c). */
static void on_class_done(cJSON *env, const lab_error *err, void *ctx) {
  slot *s = from_tag(ctx);
  if (!s) cJSON_Delete(env);
  else if (env) finish(s, env, false);
  else fail(s, err);
}

static void on_answer(int status, const char *body, size_t len, void *ctx) {
  slot *s = from_tag(ctx);
  lab_error err;
  if (!s) return;
  memset(&err, 0, sizeof err);
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  int queued = ui_class_queue_answer(status, j, s->w.e->name, on_class_done, ctx, &err); /* 202, or a class limit */
  if (queued != 0) {
    cJSON_Delete(j);
    if (queued < 0) fail(s, &err);
    return;
  }
  if (status == 200 && j && lab_envelope_check(j, &err) == 0) {
    finish(s, j, false);
    return;
  }
  if (status == 400 && j && lab_error_from_json(j, &err) == 0) {
    cJSON_Delete(j); /* the server refused the parameters: simulating them would not help */
    fail(s, &err);
    return;
  }
  /* No GPU after all (503 no_gpu), busy, a crash or no answer: the same lab
   * code runs in the browser, and the result says so. */
  if (j && lab_error_from_json(j, &err) == 0)
    snprintf(s->note, sizeof s->note, "The server could not run it on its GPU (%s), so it was simulated in your browser.",
             err.message);
  else if (status == UI_FETCH_TIMED_OUT)
    snprintf(s->note, sizeof s->note, "The server did not answer in %d s, so it was simulated in your browser instead.",
             UI_RUN_TIMEOUT_MS / 1000);
  else if (status <= 0)
    snprintf(s->note, sizeof s->note, "The server did not answer, so it was simulated in your browser.");
  else
    snprintf(s->note, sizeof s->note, "The server answered HTTP %d without a result, so it was simulated in your browser.",
             status);
  cJSON_Delete(j);
  ui_later(0, simulate_now, ctx);
}

/* A replay ended (recorded.h): shown like any result, with its note. */
static void on_replay(cJSON *env, const char *note, const lab_error *err, void *ctx) {
  slot *s = from_tag(ctx);
  if (!s) {
    cJSON_Delete(env);
    return;
  }
  if (!env) {
    fail(s, err);
    return;
  }
  snprintf(s->note, sizeof s->note, "%s", note ? note : "");
  finish(s, env, false);
}

static void replay(slot *s, int index) {
  s->note[0] = '\0';
  s->gen++;
  set_running(s, true);
  ui_recorded_replay(s->w.e->name, on_replay, (void *)tag(index, s->gen));
}

static void read_controls(slot *s) {
  char id[128], buf[UI_EXP_TEXT_MAX];
  for (int i = 0; i < s->w.e->n_params && i < LAB_MAX_PARAMS; i++) {
    ui_exp_field_id(id, sizeof id, s->w.e, &s->w.e->params[i]);
    /* a missing control (or an absurdly long value) keeps the stored text */
    if (ui_dom_value(id, buf, sizeof buf) >= 0) snprintf(s->w.text[i], UI_EXP_TEXT_MAX, "%s", buf);
  }
  ui_exp_id(id, sizeof id, s->w.e, "target");
  if (ui_dom_value(id, buf, sizeof buf) > 0 &&
      (strcmp(buf, "auto") == 0 || lab_profile_find(buf) || (strcmp(buf, "recorded") == 0 && s->w.recorded_label)))
    snprintf(s->w.target, sizeof s->w.target, "%.31s", buf);
}

static void run(slot *s, int index) {
  cJSON *params = NULL;
  lab_params checked;
  if (s->w.running) return; /* the button is aria-disabled while it runs */
  read_controls(s);
  if (strcmp(s->w.target, "recorded") == 0) {
    replay(s, index); /* nothing runs: the controls do not apply */
    return;
  }
  if (ui_exp_validate(&s->w, &params, &checked) > 0) {
    drop_result(s);
    show_field_errors(s);
    return;
  }
  show_field_errors(s); /* clears messages from an earlier attempt */
  cJSON_Delete(s->params);
  s->params = params;
  s->checked = checked;
  s->note[0] = '\0';
  s->gen++;
  set_running(s, true);
  void *ctx = (void *)tag(index, s->gen);
  /* Without a usable GPU on the server, auto is the default profile's
   * labelled example, the device check included: it shows a GPU's name,
   * memory and compute capability, and the server's own check (no GPU)
   * is shown beside it as the server's (ui_render_experiment_output). A
   * simulated-only experiment (multi_gpu) is simulated here even beside a
   * usable GPU. */
  bool server = strcmp(s->w.target, "auto") == 0 && ui_exp_gpu_usable(st.dev) &&
                (lab_experiment_has_kernel(s->w.e) || lab_experiment_is_device_check(s->w.e));
  if (!server) {
    ui_later(0, simulate_now, ctx);
    return;
  }
  char url[128], *body;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddItemToObject(req, "params", cJSON_Duplicate(params, 1));
  cJSON_AddStringToObject(req, "backend", lab_experiment_is_device_check(s->w.e) ? "auto" : "cuda");
  body = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  snprintf(url, sizeof url, "/api/experiments/%s", s->w.e->name);
  if (!body) {
    ui_later(0, simulate_now, ctx);
    return;
  }
  ui_fetch_post(url, body, UI_RUN_TIMEOUT_MS, on_answer, ctx);
  cJSON_free(body);
}

/* "Download trace": the shown result as a Chrome trace file, built here from
 * its envelope (lab/trace/trace_export.c); the page knows no server version. */
static void download_trace(const slot *s) {
  lab_error err = {0};
  char date[32], name[96];
  time_t t = time(NULL);
  const struct tm *tm = t == (time_t)-1 ? NULL : gmtime(&t); /* one thread: the static result is safe */
  if (!tm || strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", tm) == 0) date[0] = 0;
  cJSON *trace = s->result ? lab_trace_from_envelope(s->result, NULL, date[0] ? date : NULL, &err) : NULL;
  char *text = trace ? cJSON_PrintUnformatted(trace) : NULL;
  snprintf(name, sizeof name, "gpulab-%s.trace.json", s->w.e->name);
  if (text) ui_download(name, "application/json", text);
  cJSON_free(text);
  cJSON_Delete(trace);
}

bool ui_exp_action(const char *action, const char *arg) {
  int index = 0;
  if (strcmp(action, "exp-trace") == 0) {
    slot *s = find(arg, &index);
    if (s) download_trace(s);
    return true;
  }
  if (strcmp(action, "exp-run") != 0) return false;
  slot *s = find(arg, &index);
  if (s) run(s, index);
  return true;
}

void ui_exp_shutdown(void) {
  for (int i = 0; i < MAX_SLOTS; i++) {
    cJSON_Delete(st.s[i].result);
    cJSON_Delete(st.s[i].params);
    intptr_t gen = st.s[i].gen;
    memset(&st.s[i], 0, sizeof st.s[i]);
    st.s[i].gen = gen + 1; /* callbacks still in flight stay stale */
  }
  st.dev = NULL;
  ui_recorded_shutdown();
}
