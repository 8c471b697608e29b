/* The client's behaviour: ask the server about the GPU and the lessons,
 * simulate in the browser when it cannot be reached, and follow the address
 * (#lesson/ID/SECTION). It reaches the page only through bridge.h, so unit
 * tests drive it with a fake bridge. */
#include "app.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "cjson_compat.h"
#include "envelope.h"
#include "html.h"
#include "profiles.h"
#include "registry.h"
#include "route.h"
#include "timeouts.h"
#include "class_app.h"
#include "class_queue.h"
#include "gpu_panel.h"
#include "experiment.h"
#include "experiment_run.h"
#include "json.h"
#include "json_get.h"
#include "lesson_html.h"
#include "page_table.h"
#include "quiz_app.h"

#define STORE_LESSON "gpulab.lesson"

static struct {
  bool health_ok;
  char version[32], mode[16];

  cJSON *device;  /* GET /api/device answer, when live */
  cJSON *sim_env; /* the simulated device envelope, when not */
  ui_device_state dev;
  bool device_done;
  char profile_short[48];
  char note[240];
  char sim_error[320]; /* the simulator itself failed */
  intptr_t device_gen;
  int device_retries;  /* automatic re-checks of a device check still running (device_retry) */
  int device_retry_s;  /* the last one's wait */
  bool device_retry_armed; /* one is scheduled */

  cJSON *index; /* {"lessons":[…]} */
  bool index_failed;
  cJSON *lesson; /* the bundle shown */
  char want_lesson[UI_ID_MAX], want_section[UI_ID_MAX];
  bool focus_lesson; /* the learner navigated: move focus to what they chose */
  intptr_t lesson_gen;
  int sections_shown; /* of the lesson's sections, how many are on the page; -1: all */
  bool lesson_loading; /* a lesson's bundle is asked and not answered yet */
  bool profiles_asked; /* GET /api/profiles is sent once, when a widget is on the page */
  const ui_page *page; /* the page shown in the lesson's place (page_table.h), NULL for a lesson */
} app;

static void set_busy(const char *id, bool busy) { ui_dom_set_attr(id, "aria-busy", busy ? "true" : "false"); }

static void show(const char *id, ui_buf *b) {
  ui_dom_set_html(id, b->failed ? "<p>Out of memory while drawing this part of the page. Reload the page.</p>"
                                : ui_buf_str(b));
  ui_buf_free(b);
}

/* ---- status line ---------------------------------------------------------- */

static bool device_still_checking(void);

static void render_status(void) {
  char text[200];
  const char *state;
  const cJSON *verdict = ui_json_obj(app.dev.views, "verdict");
  if (!app.device_done) {
    state = "wait";
    snprintf(text, sizeof text, "Connecting to the gpulab server…");
  } else if (app.dev.offline && app.dev.timed_out_s > 0) {
    state = "offline";
    snprintf(text, sizeof text, "The server did not answer in %d s; simulating in your browser instead",
             app.dev.timed_out_s);
  } else if (app.dev.offline) {
    state = "offline";
    snprintf(text, sizeof text, "offline — everything will be simulated");
  } else if (app.dev.simulated && app.dev.checking) {
    state = "sim";
    snprintf(text, sizeof text, "Connected — the server is still checking its GPU; experiments are simulated meanwhile");
  } else if (app.dev.simulated) {
    state = "sim";
    snprintf(text, sizeof text, "Connected — the GPU check failed, so experiments are simulated");
  } else {
    bool usable = ui_json_bool(verdict, "usable") == 1 && ui_json_bool(verdict, "simulate") != 1;
    state = usable ? "live" : "sim";
    snprintf(text, sizeof text, "Connected — %s",
             !usable                  ? "no usable GPU, so experiments are simulated"
             : ui_class_app_active() ? "GPU runs wait their turn in the class queue"
                                     : "experiments run on your GPU");
  }
  ui_dom_set_text("status", text);
  ui_dom_set_attr("status", "data-state", state);
  if (app.health_ok) {
    /* "mode" is what the server can do now (GET /api/health), not how it
     * was built: the panel's runtime view says whether it has CUDA. */
    snprintf(text, sizeof text, "gpulab %s · %s", app.version,
             strcmp(app.mode, "cuda") == 0 ? "GPU mode" : "CPU mode: no usable GPU, experiments are simulated");
    ui_dom_set_text("build-info", text);
  }
}

static void on_health(int status, const char *body, size_t len, void *ctx) {
  (void)ctx;
  cJSON *j = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const char *version = ui_json_str(j, "version"), *mode = ui_json_str(j, "mode");
  app.health_ok = version && mode;
  if (app.health_ok) {
    snprintf(app.version, sizeof app.version, "%s", version);
    snprintf(app.mode, sizeof app.mode, "%s", mode);
  }
  ui_class_app_health(app.health_ok ? j : NULL); /* a class server: the join form or the session bar */
  cJSON_Delete(j);
  render_status();
}

/* ---- the device panel and the experiment cards ------------------------------ */

/* The widgets of the sections from the from-th on that are on the page. */
static void fill_experiments(int from) {
  const cJSON *s, *name;
  int i = 0;
  cJSON_ArrayForEach(s, ui_json_arr(app.lesson, "sections")) {
    if (app.sections_shown >= 0 && i >= app.sections_shown) break;
    if (i++ < from) continue;
    cJSON_ArrayForEach(name, ui_json_arr(s, "experiments")) {
      if (cJSON_IsString(name)) ui_exp_fill(name->valuestring, &app.dev);
    }
  }
}

static void render_experiments(void) {
  ui_exp_set_device(&app.dev);
  fill_experiments(0);
  if (app.page && app.page->refresh) app.page->refresh(&app.dev);
}

static void render_device(void) {
  ui_buf b;
  ui_buf_init(&b);
  app.dev.checking = device_still_checking();
  ui_render_device_badge(&b, &app.dev);
  show("gpu-badge", &b);
  if (app.sim_error[0]) {
    ui_render_lesson_message(&b, "The simulator could not run", app.sim_error);
  } else {
    ui_render_device_panel(&b, &app.dev);
  }
  show("gpu-body", &b);
  set_busy("gpu-body", !app.device_done);
  char line[300];
  ui_render_device_line(&app.dev, line, sizeof line);
  ui_dom_set_text("gpu-line", line);
  render_experiments();
  render_status();
}

/* The simulation module's device envelope arrived (simulate_device). */
static void on_device_sim(int status, const char *body, size_t len, void *ctx) {
  lab_error err;
  if ((intptr_t)ctx != app.device_gen) return; /* a newer check is under way */
  memset(&err, 0, sizeof err);
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  app.device_done = true;
  if (status == 200 && j && lab_envelope_check(j, &err) == 0) {
    app.sim_env = j;
    app.dev.views = ui_json_obj(ui_json_obj(app.sim_env, "details"), "views");
    app.dev.findings = ui_json_arr(app.sim_env, "findings");
    if (!app.dev.views)
      snprintf(app.sim_error, sizeof app.sim_error, "the simulated device check returned no driver and runtime views");
  } else {
    if (status == 400 && j) lab_error_from_json(j, &err);
    cJSON_Delete(j);
    snprintf(app.sim_error, sizeof app.sim_error, "%s",
             err.message[0] ? err.message : "the browser's simulator did not load; reload the page");
  }
  render_device();
}

/* Without a usable answer from the server, the panel shows the device
 * experiment's simulated envelope: the same lab code the server runs, in
 * the simulation module (the panel stays busy until it answers). */
static void simulate_device(bool offline, const char *note) {
  const lab_profile *prof = lab_profile_default(); /* the server's default too (GET /api/profiles) */
  app.dev.offline = offline;
  app.dev.simulated = true;
  snprintf(app.note, sizeof app.note, "%s", note ? note : "");
  app.dev.note = note ? app.note : NULL;
  ui_profile_short_label(prof->label, app.profile_short, sizeof app.profile_short);
  app.dev.profile_label = app.profile_short;
  app.device_done = false;
  const lab_experiment *check = lab_experiment_device_check();
  ui_simulate(check ? check->name : "", "", prof->name, on_device_sim, (void *)app.device_gen);
}

/* A server whose own device check has not answered yet (503
 * device_check_timeout: a slow driver, or a machine so busy that its probe
 * takes seconds, as when a class arrives at once) says when to ask again
 * (Retry-After). The page does, by itself and quietly (the panel keeps its
 * simulated device meanwhile), at most UI_DEVICE_RETRIES times, each wait
 * at least twice the last, 1 to UI_DEVICE_RETRY_MAX_S seconds
 * (timeouts.h); the first answer with a device report replaces the panel,
 * and the experiments run where it says. A manual "Check again" (a newer
 * device_gen) ends the series. */

#define DEVICE_RETRY_NOTE " This page asks it again by itself."

/* An answer of GET /api/device that is a device report. */
static bool device_report(int status, const cJSON *j) {
  return status == 200 && ui_json_obj(j, "verdict") && ui_json_obj(j, "driver") && ui_json_obj(j, "runtime");
}

/* Forgets the last device view, live or simulated, before a new one. */
static void forget_device(void) {
  cJSON_Delete(app.device);
  cJSON_Delete(app.sim_env);
  app.device = app.sim_env = NULL;
  memset(&app.dev, 0, sizeof app.dev);
  app.sim_error[0] = '\0';
}

static void on_device(int status, const char *body, size_t len, void *ctx);
static void device_retry(void *ctx);

/* The server's check is still running and the page will ask again: the
 * panel's note promises it (and loses the promise when the series ends).
 * Read through the view's note, which a new check or a live answer clears
 * (forget_device); app.note keeps the last text after that. */
static bool device_still_checking(void) { return app.dev.note && strstr(app.dev.note, DEVICE_RETRY_NOTE); }

static bool device_check_pending(int status, const cJSON *j) {
  const char *code = ui_json_str(ui_json_obj(j, "error"), "code");
  return status == 503 && code && strcmp(code, lab_err_code(LAB_E_DEVICE_CHECK_TIMEOUT)) == 0;
}

/* Schedules the next re-check; false when the series is spent. */
static bool schedule_device_retry(void) {
  if (app.device_retries >= UI_DEVICE_RETRIES) return false;
  int s = ui_fetch_retry_after_s();
  if (s < 1) s = 2;
  if (s < 2 * app.device_retry_s) s = 2 * app.device_retry_s;
  if (s > UI_DEVICE_RETRY_MAX_S) s = UI_DEVICE_RETRY_MAX_S;
  app.device_retry_s = s;
  app.device_retries++;
  app.device_retry_armed = true;
  ui_later(s * 1000, device_retry, (void *)app.device_gen);
  return true;
}

static void on_device_retry(int status, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != app.device_gen) return; /* a manual re-check is under way */
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  bool report = device_report(status, j);
  bool pending = !report && device_check_pending(status, j);
  cJSON_Delete(j);
  if (!report) { /* still checking: once more, later; anything else, or the series spent: the panel
                   * stays as it is, its note no longer promising another check */
    if (pending && schedule_device_retry()) return;
    char *promise = strstr(app.note, DEVICE_RETRY_NOTE);
    if (promise) *promise = '\0';
    render_device();
    return;
  }
  forget_device();
  /* a newer check: the simulated device still being computed for the
   * panel (simulate_device) arrives stale and cannot overwrite this one */
  app.device_gen++;
  on_device(status, body, len, (void *)app.device_gen);
}

static void device_retry(void *ctx) {
  if (!app.device_retry_armed || (intptr_t)ctx != app.device_gen) return;
  app.device_retry_armed = false;
  ui_fetch("/api/device", UI_API_TIMEOUT_MS, on_device_retry, ctx);
}

static void on_device(int status, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != app.device_gen) return; /* a newer check is under way */
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  app.device_done = true;
  if (device_report(status, j)) {
    app.device = j;
    app.dev.views = j;
  } else if (status == UI_FETCH_TIMED_OUT) { /* a hung server: say so, and simulate as when offline */
    simulate_device(true, NULL);
    app.dev.timed_out_s = UI_API_TIMEOUT_MS / 1000;
  } else if (status <= 0 || !j) {
    cJSON_Delete(j); /* no answer, or not JSON: no gpulab server here */
    simulate_device(true, NULL);
  } else {
    char note[240];
    const char *msg = ui_json_str(ui_json_obj(j, "error"), "message");
    bool again = device_check_pending(status, j) && schedule_device_retry();
    size_t n = msg ? strlen(msg) : 0;
    if (msg && again) /* the server's sentence ended, then the promise */
      snprintf(note, sizeof note, "It answered: %.170s%s%s", msg, n > 0 && n <= 170 && msg[n - 1] == '.' ? "" : ".",
               DEVICE_RETRY_NOTE);
    else if (msg) snprintf(note, sizeof note, "It answered: %s", msg);
    else snprintf(note, sizeof note, "It answered HTTP %d without a device report.", status);
    cJSON_Delete(j);
    simulate_device(false, note);
  }
  render_device();
}

/* A profile calibrated on the server's GPU (gpulab serve --profile-file)
 * joins the built-in ones in every "simulate as" picker. The built-in ones
 * are compiled into the client, so this answer (80 KB as text, 9 KB
 * gzipped) is asked only when a widget needs it: the learner reaches into
 * one (the bridge's action "widget-used"), or opens the experiments page. */
static void on_profiles(int status, const char *body, size_t len, void *ctx) {
  (void)ctx;
  cJSON *j = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const cJSON *p;
  cJSON_ArrayForEach(p, ui_json_arr(j, "profiles")) {
    lab_profile prof;
    lab_error err;
    const char *name = ui_json_str(p, "name");
    if (name && strcmp(name, "calibrated") == 0 && lab_profile_from_json(p, &prof, &err) == 0) {
      lab_profile_set_calibrated(&prof);
      char *text = cJSON_PrintUnformatted(p); /* the simulation module gets it with each run on it */
      ui_simulate_profile(name, text);
      cJSON_free(text);
      render_experiments();
    }
  }
  cJSON_Delete(j);
}

/* first: the page's own waiting state ("checking…") still stands, so
 * nothing is drawn until the answer: drawn here, the panel cost a frame of
 * style and layout (Chromium drew it while the first answers were read)
 * between main() and the first screen. A re-check draws the waiting state. */
static void check_device(bool first) {
  forget_device();
  app.device_done = false;
  app.device_retries = app.device_retry_s = 0; /* a new check: a new series of re-checks */
  app.device_retry_armed = false;
  if (!first) render_device();
  ui_fetch("/api/device", UI_API_TIMEOUT_MS, on_device, (void *)++app.device_gen);
  ui_fetch("/api/health", UI_API_TIMEOUT_MS, on_health, NULL);
  if (app.profiles_asked) ui_fetch("/api/profiles", UI_API_TIMEOUT_MS, on_profiles, NULL); /* a re-check */
}

/* Once per page; a re-check asks again (check_device). */
static void want_profiles(void) {
  ui_exp_offer_recorded(); /* the recorded choices with them (asked once) */
  if (app.profiles_asked) return;
  app.profiles_asked = true;
  ui_fetch("/api/profiles", UI_API_TIMEOUT_MS, on_profiles, NULL);
}

/* The page shown in the lesson's place is replaced by next (NULL: a lesson). */
static void leave_page(const ui_page *next) {
  if (app.page && app.page != next && app.page->leave) app.page->leave();
  app.page = next;
}

/* ---- lessons --------------------------------------------------------------- */

static void render_nav(void) {
  ui_buf b;
  ui_buf_init(&b);
  if (app.index_failed) {
    ui_buf_raw(&b, "<p class=\"muted\">The lesson list could not be loaded. "
                   "<button type=\"button\" class=\"button button-quiet\" data-action=\"reload-lessons\">Try again</button></p>");
  } else {
    ui_render_lesson_nav(&b, app.index, app.lesson ? ui_json_str(app.lesson, "id") : NULL, app.lesson);
    for (int i = 0; app.index && i < ui_page_count(); i++) ui_render_nav_pages(&b, &ui_page_at(i)->nav, 1);
  }
  if (app.lesson && !app.index_failed) ui_quiz_app_nav(&b, app.lesson);
  show("nav-body", &b);
}

static void lesson_message(const char *title, const char *text) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_lesson_message(&b, title, text);
  show("lesson", &b);
  set_busy("lesson", false);
  ui_dom_set_attr("lesson", "data-first-screen", NULL);
}

static void show_section(void) {
  char id[UI_ID_MAX + 8];
  if (app.want_section[0]) {
    snprintf(id, sizeof id, "sec-%s", app.want_section);
    ui_dom_focus(id);
    ui_quiz_app_visit(app.lesson, app.want_section);
  } else if (app.focus_lesson) {
    ui_dom_focus("lesson-title");
  }
  app.want_section[0] = '\0';
}

/* The rest of the lesson, below its first screen: its other sections with
 * their widgets, the quiz and the report, added at the end of the lesson
 * after the first screen has been drawn, one section a task (ui_later: two
 * frames, then a timer, between each): drawn in one task, lesson 1's rest
 * was a task of 85 ms and its style and layout one of 56 ms in a Chrome
 * trace on the busy 2-core machine, which a phone's slower CPU makes
 * several times longer (Lighthouse's total blocking time). The lesson
 * stays busy until the last one is in. */
static void draw_rest(int count) {
  ui_buf b;
  int from = app.sections_shown, total = cJSON_GetArraySize(ui_json_arr(app.lesson, "sections"));
  bool last = count < 0 || from + count >= total;
  ui_buf_init(&b);
  ui_render_lesson_sections(&b, app.lesson, from, last ? -1 : count);
  if (last) ui_quiz_app_tail(&b, app.lesson);
  app.sections_shown = last ? -1 : from + count;
  if (b.failed) ui_dom_set_html("lesson", "<p>Out of memory while drawing this part of the page. Reload the page.</p>");
  else ui_dom_append_html("lesson-rest", ui_buf_str(&b));
  ui_buf_free(&b);
  fill_experiments(from);
  if (last) set_busy("lesson", false);
}

static void render_rest(void *ctx) {
  if ((intptr_t)ctx != app.lesson_gen || !app.lesson || app.sections_shown < 0) return; /* another lesson or page since */
  draw_rest(1);
  if (app.sections_shown >= 0) ui_later(0, render_rest, ctx);
}

/* A lesson is drawn in two steps. Its first screen (title, summary, the
 * first section) goes in first, with that section's widgets filled in the
 * same task: a task of their own came after Chromium had styled, laid out
 * and painted the text without them (60-100 ms in a Chrome trace on a busy
 * 2-core machine), and then again with them. data-first-screen on the
 * lesson marks that point: the page's ready point (web/app.js). The rest
 * (the other sections, the quiz, the report: nine tenths of lesson 1's
 * markup, 20-40 ms of parsing on that machine) follows in render_rest. A
 * learner routed to a section gets the whole lesson at once, so that
 * section is there to move to. */
static void render_lesson(void) {
  ui_buf b;
  char title[200];
  bool whole = app.want_section[0] != '\0';
  ui_buf_init(&b);
  ui_render_lesson_head(&b, app.lesson);
  ui_render_lesson_sections(&b, app.lesson, 0, whole ? -1 : 1);
  if (whole) ui_quiz_app_tail(&b, app.lesson);
  else ui_buf_raw(&b, "<div id=\"lesson-rest\" class=\"lesson-rest\"></div>");
  app.sections_shown = whole ? -1 : 1;
  show("lesson", &b);
  leave_page(NULL);
  render_nav();
  snprintf(title, sizeof title, "%s — gpulab", ui_json_str(app.lesson, "title"));
  ui_dom_set_title(title);
  ui_storage_set(STORE_LESSON, ui_json_str(app.lesson, "id"));
  render_experiments();
  if (whole) {
    set_busy("lesson", false);
  } else {
    ui_dom_set_attr("lesson", "data-first-screen", "drawn");
    ui_later(0, render_rest, (void *)app.lesson_gen);
  }
  show_section();
}

/* The quiz keeps a pointer to the lesson shown (quiz_app.h): it lets go
 * before the lesson is freed. */
static void set_lesson(cJSON *lesson) {
  ui_quiz_app_release(app.lesson);
  cJSON_Delete(app.lesson);
  app.lesson = lesson;
}

/* ctx carries the request's generation: answers to superseded requests are dropped. */
static void on_lesson(int status, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != app.lesson_gen) return;
  app.lesson_loading = false;
  cJSON *j = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  if (ui_lesson_bundle_valid(j) && strcmp(ui_json_str(j, "id"), app.want_lesson) == 0) {
    set_lesson(j);
    render_lesson();
    return;
  }
  cJSON_Delete(j);
  render_nav(); /* the index's list, which on_index left to the lesson */
  lesson_message("This lesson could not be loaded",
                 "Neither the server nor this browser's offline copy has it. Check that 'gpulab serve' is running, "
                 "then reload the page.");
}

/* The bundle is the web root's static file, the same one GET
 * /api/lessons/ID reads: precompressed (12.7 KB instead of 45 KB for
 * lesson 1), revalidated by ETag, and kept by the service worker for
 * offline use. */
static void load_lesson(void) {
  char url[128];
  snprintf(url, sizeof url, "/lessons/%s.json", app.want_lesson);
  set_busy("lesson", true);
  ui_dom_set_attr("lesson", "data-first-screen", NULL);
  app.lesson_gen++;
  app.lesson_loading = true;
  ui_fetch(url, UI_API_TIMEOUT_MS, on_lesson, (void *)app.lesson_gen);
}

/* Another page (page_table.h) replaces the lesson: a lesson still loading
 * must not cover it, and the nav no longer marks one. */
static void drop_lesson(void) {
  app.lesson_gen++;
  app.lesson_loading = false;
  set_lesson(NULL);
  render_nav();
}

static void go(const char *hash, bool by_learner) {
  ui_route r;
  char stored[UI_ID_MAX];
  const char *id;
  const ui_page *page = ui_page_for(hash);
  if (page) { /* "#lab[/NAME]", "#explain", "#doctor": a page replaces the lesson */
    drop_lesson();
    leave_page(page);
    page->show(hash, &app.dev, by_learner);
    if (page->profiles) want_profiles();
    return;
  }
  if (!app.index) return; /* the index will route */
  if (ui_route_parse(hash, &r) != 0) {
    /* An in-page anchor ("#main") or an address of no page: the browser
     * handles it, unless nothing is shown yet (a first visit to such an
     * address), when the lesson the empty address gives is drawn. */
    if (app.lesson || app.lesson_loading || app.page) return;
    memset(&r, 0, sizeof r);
  }
  app.focus_lesson = by_learner;
  id = r.lesson[0] ? r.lesson : NULL;
  if (!id && ui_storage_get(STORE_LESSON, stored, sizeof stored) > 0 && ui_lesson_listed(app.index, stored)) id = stored;
  if (!id) id = ui_lesson_first_id(app.index);
  if (!id) {
    lesson_message("No lessons yet", "This server has no lessons installed. Build them with 'make lessons'.");
    return;
  }
  if (!ui_lesson_listed(app.index, id)) {
    char text[200];
    snprintf(text, sizeof text, "There is no lesson called \"%s\". Pick one from the list of lessons.", id);
    lesson_message("Lesson not found", text);
    return;
  }
  snprintf(app.want_section, sizeof app.want_section, "%s", r.section);
  if (app.lesson && strcmp(ui_json_str(app.lesson, "id"), id) == 0) {
    if (app.want_section[0] && app.sections_shown >= 0) draw_rest(-1); /* below the first screen: maybe not drawn yet */
    show_section();
    return;
  }
  snprintf(app.want_lesson, sizeof app.want_lesson, "%s", id);
  load_lesson();
}

static void load_index(void);

static void on_index(int status, const char *body, size_t len, void *ctx) {
  (void)ctx;
  cJSON *j = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  static char hash[16384]; /* an address may carry a pasted message ("#explain?text=…", 4 KiB encoded) */
  if (ui_lesson_index_valid(j)) {
    cJSON_Delete(app.index);
    app.index = j;
    app.index_failed = false;
    ui_location_hash(hash, sizeof hash);
    go(hash, false);
    /* A lesson on its way draws the navigation with its sections when it
     * comes (render_lesson, or on_lesson's message): drawn here too, it was
     * drawn twice before the first screen. */
    if (!app.lesson_loading) render_nav();
    return;
  }
  cJSON_Delete(j);
  app.index_failed = true;
  render_nav();
  lesson_message("The lessons could not be loaded",
                 "Neither the server nor the static lesson files answered. Check that 'gpulab serve' is running, "
                 "then press \"Try again\" in the lesson list.");
}

/* The index is the web root's static file too (GET /api/lessons reads it). */
static void load_index(void) { ui_fetch("/lessons/index.json", UI_API_TIMEOUT_MS, on_index, NULL); }

/* ---- events ---------------------------------------------------------------- */

static void on_hash(const char *hash, void *ctx) {
  (void)ctx;
  go(hash, true);
}

static void on_action(const char *action, const char *arg, void *ctx) {
  (void)ctx;
  if (ui_quiz_app_action(action, arg, &app.dev, app.health_ok ? app.version : NULL)) return;
  if (ui_exp_action(action, arg)) return;
  for (int i = 0; i < ui_page_count(); i++)
    if (ui_page_at(i)->action && ui_page_at(i)->action(action, arg)) return;
  if (ui_class_app_action(action, arg) || ui_class_queue_action(action, arg)) return;
  if (strcmp(action, "widget-used") == 0) want_profiles();
  else if (strcmp(action, "recheck") == 0) check_device(false);
  else if (strcmp(action, "reload-lessons") == 0) {
    app.index_failed = false;
    render_nav();
    load_index();
  }
}

void ui_app_start(void) {
  ui_app_shutdown();
  ui_on_hash_change(on_hash, NULL);
  ui_on_action(on_action, NULL);
  for (int i = 0; i < ui_page_count(); i++)
    if (ui_page_at(i)->start) ui_page_at(i)->start();
  /* The navigation is drawn once the index is in (with the lesson, when
   * one is loading): until then the page's own "Loading lessons…" stands. */
  check_device(true);
  load_index();
}

void ui_app_shutdown(void) {
  ui_quiz_app_shutdown();
  ui_class_queue_shutdown();
  ui_class_app_shutdown();
  ui_exp_shutdown();
  for (int i = 0; i < ui_page_count(); i++) ui_page_at(i)->shutdown();
  cJSON_Delete(app.device);
  cJSON_Delete(app.sim_env);
  cJSON_Delete(app.index);
  cJSON_Delete(app.lesson);
  intptr_t dgen = app.device_gen, lgen = app.lesson_gen;
  memset(&app, 0, sizeof app);
  app.device_gen = dgen; /* answers still in flight stay stale */
  app.lesson_gen = lgen;
}
