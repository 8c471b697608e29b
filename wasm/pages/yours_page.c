/* The "Your own GPU" page (#yours; yours_page.h): the form, the import's
 * state, the comparison drawn by own_run.c, the profile fitted from the
 * run offered everywhere, the run kept for the lab report, and the class
 * hand-in. Reading and comparing the file happen in the simulation
 * module's worker (bridge.h, ui_on_kit_file); this file only draws. */
#include "yours_page.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "class_app.h"
#include "html.h"
#include "json.h"
#include "json_get.h"
#include "own_run.h"
#include "profiles.h"
#include "report.h"
#include "stored.h"
#include "timeouts.h"

#define PROFILE_JSON_MAX 16384 /* a profile's JSON is about 2 KB */
#define OWN_RUN_MAX (1 << 20)  /* a comparison without predictions: tens of KB */

static struct {
  cJSON *answer;   /* the last comparison ({"kit","compare"}), for the hand-in and a return to the page */
  char name[256];  /* its file's name */
  bool reading;
  intptr_t handin; /* hand-ins sent: only the latest one's answer is shown */
} st;

static void show_html(const char *id, ui_buf *b) {
  ui_dom_set_html(id, b->failed ? "<p>Out of memory while drawing this part of the page.</p>" : ui_buf_str(b));
  ui_buf_free(b);
}

/* The fitted profile joins the page's profiles and the simulation module's. */
static void use_profile(const char *json, bool keep) {
  cJSON *p = json ? lab_json_parse(json, strlen(json), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  lab_profile prof;
  lab_error err;
  if (p && lab_profile_from_json(p, &prof, &err) == 0) {
    lab_profile_set_calibrated(&prof);
    ui_simulate_profile(prof.name, json);
    if (keep) ui_storage_set(UI_STORE_YOURS_PROFILE, json);
  }
  cJSON_Delete(p);
}

void ui_yours_start(void) {
  char *json = ui_stored_read(UI_STORE_YOURS_PROFILE, PROFILE_JSON_MAX);
  if (json) use_profile(json, false);
  free(json);
}

/* The comparison without its predictions: what the lab report quotes. */
static void keep_for_report(const cJSON *cmp) {
  cJSON *copy = cJSON_Duplicate(cmp, 1), *e;
  cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(copy, "profile"), "fitted");
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(copy, "experiments"))
    cJSON_DeleteItemFromObjectCaseSensitive(e, "prediction");
  char *text = copy ? cJSON_PrintUnformatted(copy) : NULL;
  if (text) ui_storage_set(UI_STORE_OWN_RUN, text);
  cJSON_free(text);
  cJSON_Delete(copy);
}

static void handin_form(void) {
  ui_buf b;
  ui_buf_init(&b);
  if (st.answer && ui_class_app_active())
    ui_buf_raw(&b, "<p>Your class can see the runs its learners hand in (your newest three are kept): <button "
                   "type=\"button\" class=\"button\" data-action=\"yours-handin\" id=\"yours-handin-button\">Hand this "
                   "run in</button> <span id=\"yours-handin-status\" aria-live=\"polite\"></span></p>");
  show_html("yours-handin", &b);
}

static void draw_answer(void) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_own_run(&b, st.answer);
  show_html("yours-out", &b);
  handin_form();
}

static void on_kit(int event, double a, double size, const char *text, size_t len, void *ctx) {
  (void)ctx;
  char line[400], t[32];
  if (event == UI_KIT_START) {
    st.reading = true;
    snprintf(st.name, sizeof st.name, "%s", text);
    snprintf(line, sizeof line, "Reading %s (%s) in your browser…", st.name, ui_fmt_bytes(size, t));
    ui_dom_set_text("yours-status", line);
    ui_dom_set_attr("yours-status", "data-state", "reading");
    ui_dom_set_attr("yours-out", "aria-busy", "true");
    return;
  }
  if (!st.reading) return; /* the page was left meanwhile */
  st.reading = false;
  ui_dom_set_attr("yours-out", "aria-busy", "false");
  int status = (int)a;
  cJSON *j = status ? lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const cJSON *cmp = ui_json_obj(j, "compare");
  ui_buf b;
  ui_buf_init(&b);
  if (status == 200 && cmp && ui_json_obj(j, "kit")) {
    cJSON_Delete(st.answer);
    st.answer = j;
    snprintf(line, sizeof line, "Read %s: compared in your browser, nothing was uploaded.", st.name);
    ui_dom_set_text("yours-status", line);
    ui_dom_set_attr("yours-status", "data-state", "done");
    const cJSON *fitted = ui_json_obj(ui_json_obj(cmp, "profile"), "fitted");
    char *pj = fitted ? cJSON_PrintUnformatted(fitted) : NULL;
    if (pj) use_profile(pj, true);
    cJSON_free(pj);
    keep_for_report(cmp);
    draw_answer();
    ui_dom_focus("yours-summary");
    return;
  }
  const cJSON *err = ui_json_obj(j, "error");
  ui_dom_set_attr("yours-status", "data-state", "failed");
  snprintf(line, sizeof line, "%s was not read: see why below.", st.name);
  ui_dom_set_text("yours-status", line);
  if (err) {
    ui_buf_raw(&b, "<p class=\"exp-failure\" role=\"alert\" id=\"yours-error\"><strong>");
    ui_buf_text(&b, ui_json_str(err, "code"));
    ui_buf_raw(&b, "</strong>: ");
    ui_buf_text(&b, ui_json_str(err, "message"));
    ui_buf_raw(&b, "</p>");
  } else {
    ui_buf_raw(&b, "<p class=\"exp-failure\" role=\"alert\" id=\"yours-error\">The comparison did not start in this "
                   "browser (offline before its first visit to this page, or no Web Worker): reload the page online "
                   "once, or run <code>gpulab compare gpulab-run.json</code>.</p>");
  }
  cJSON_Delete(j);
  show_html("yours-out", &b);
  ui_dom_set_html("yours-handin", "");
}

/* A stored run from an earlier visit: said, as the lab report quotes it. */
static void earlier_run(ui_buf *b) {
  char *text = ui_stored_read(UI_STORE_OWN_RUN, OWN_RUN_MAX), label[300];
  cJSON *j = text ? lab_json_parse(text, strlen(text), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  free(text);
  if (ui_json_obj(j, "run")) {
    ui_buf_raw(b, "<p class=\"muted\" id=\"yours-earlier\">Your last import (");
    ui_buf_text(b, ui_own_run_label(ui_json_obj(j, "run"), label, sizeof label));
    ui_buf_raw(b, ") is in your lab report; give its file again to see it drawn.</p>");
  }
  cJSON_Delete(j);
}

void ui_yours_show(const char *hash, const ui_device_state *dev, bool focus) {
  (void)hash; /* "#yours" alone */
  (void)dev;
  ui_buf b;
  ui_buf_init(&b);
  ui_buf_raw(&b,
             "<header class=\"lesson-head\"><p class=\"kicker\">Your own GPU</p><h1 id=\"lesson-title\" tabindex=\"-1\">"
             "Your run beside the prediction</h1><p class=\"lesson-summary\">Measure the lessons' experiments where "
             "your GPU is (Colab, Kaggle, a Mac, an AMD card, your own PC) with the measurement kit, then give its "
             "file here: each experiment is drawn beside what the simulator predicts for that GPU, and any figure "
             "the GPU cannot physically produce is flagged. <strong>It is read in your browser: nothing is "
             "uploaded</strong>, and it works offline.</p></header>"
             "<p>Get the kit: <a href=\"measure.py\" download>measure.py</a> (run <code>python3 measure.py --out "
             "gpulab-run.json</code>) or <a href=\"measure.ipynb\" download>measure.ipynb</a> for a Colab or Kaggle "
             "notebook (<em>Run all</em>, then download <code>gpulab-run.json</code>).</p>"
             "<div class=\"yours-drop\" id=\"yours-drop\"><p>Drop <code>gpulab-run.json</code> here, or</p>"
             "<label class=\"button\" for=\"yours-file\">Choose your run's file</label><input type=\"file\" "
             "id=\"yours-file\" class=\"yours-file\" accept=\".json,application/json\" aria-describedby=\"yours-privacy\">"
             "<p id=\"yours-privacy\" class=\"muted\">Read here, in your browser: the file never leaves this computer "
             "unless you hand it in to a class. The kit writes at most 1 MiB; a larger file is refused unread.</p></div>"
             "<p id=\"yours-status\" class=\"yours-status\" aria-live=\"polite\" data-state=\"idle\"></p>");
  if (!st.answer) earlier_run(&b);
  ui_buf_raw(&b, "<section id=\"yours-out\" class=\"own-run\" aria-live=\"polite\"></section>"
                 "<div id=\"yours-handin\" class=\"yours-handin\"></div>");
  show_html("lesson", &b);
  ui_dom_set_attr("lesson", "aria-busy", "false");
  ui_dom_set_title("Your own GPU — gpulab");
  st.reading = false; /* a read under way answers into the old page: dropped */
  ui_on_kit_file(on_kit, NULL);
  if (st.answer) draw_answer();
  if (focus) ui_dom_focus("lesson-title");
}

static void on_handin(int status, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != st.handin) return;
  cJSON *j = status > 0 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const cJSON *err = ui_json_obj(j, "error"), *h = ui_json_obj(j, "handin");
  char line[480];
  double kept = 0;
  if (status == 201 && h) {
    ui_json_num(h, "kept", &kept);
    snprintf(line, sizeof line, "Handed in: your class now has %.0f of your runs (the newest three are kept).", kept);
  } else if (err) {
    if (!strcmp(ui_json_str(err, "code") ? ui_json_str(err, "code") : "", "no_session")) ui_class_app_need_session();
    snprintf(line, sizeof line, "Not handed in: %.400s", ui_json_str(err, "message") ? ui_json_str(err, "message") : "");
  } else {
    snprintf(line, sizeof line, "%s", status == UI_FETCH_TIMED_OUT ? "Not handed in: the server did not answer in time."
                                                                   : "Not handed in: the class server could not be reached.");
  }
  ui_dom_set_text("yours-handin-status", line);
  ui_dom_set_attr("yours-handin-button", "disabled", NULL);
  cJSON_Delete(j);
}

bool ui_yours_action(const char *action, const char *arg) {
  (void)arg;
  if (strcmp(action, "yours-handin") != 0) return false;
  char *body = st.answer ? cJSON_PrintUnformatted(ui_json_obj(st.answer, "kit")) : NULL;
  if (!body) return true;
  ui_dom_set_attr("yours-handin-button", "disabled", "");
  ui_dom_set_text("yours-handin-status", "Handing it in…");
  ui_fetch_post("/api/handins", body, UI_HANDIN_TIMEOUT_MS, on_handin, (void *)++st.handin);
  cJSON_free(body);
  return true;
}

void ui_yours_shutdown(void) {
  cJSON_Delete(st.answer);
  intptr_t handin = st.handin;
  memset(&st, 0, sizeof st);
  st.handin = handin + 1; /* an answer still in flight is stale */
}
