/* The browser client's behaviour (wasm/pages/app.c) driven natively through a
 * fake bridge: requests are answered by hand, so each test decides what the
 * server says (or that it is unreachable) and reads back what the page shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bridge.h"
#include "kit_run.h"
#include "sim_run.h"
#include "suites.h"
#include "timeouts.h"
#include "ui_test.h"
#include "class_session.h"
#include "gpu_panel.h"
#include "profiles.h"

/* ---- the fake bridge: records what the client did to the page ---------------- */

#define SLOTS 64

static struct {
  char *key[SLOTS], *val[SLOTS];
} dom; /* "html:ID", "text:ID", "attr:ID:NAME", "fill:SELECTOR" → value */

static struct {
  char url[128];
  ui_fetch_cb cb;
  void *ctx;
  int live;
} req[SLOTS];

static char hash[128], stored[128], focus_id[128], title[256];
static ui_hash_cb on_hash;
static ui_action_cb on_action;

static void put(const char *kind, const char *id, const char *value) {
  char key[256];
  snprintf(key, sizeof key, "%s:%s", kind, id);
  for (int i = 0; i < SLOTS; i++) {
    if (dom.key[i] && strcmp(dom.key[i], key) == 0) {
      free(dom.val[i]);
      dom.val[i] = value ? strdup(value) : NULL;
      return;
    }
  }
  for (int i = 0; i < SLOTS; i++) {
    if (!dom.key[i]) {
      dom.key[i] = strdup(key);
      dom.val[i] = value ? strdup(value) : NULL;
      return;
    }
  }
  ck_abort_msg("fake DOM full");
}

static const char *get(const char *kind, const char *id) {
  char key[256];
  snprintf(key, sizeof key, "%s:%s", kind, id);
  for (int i = 0; i < SLOTS; i++)
    if (dom.key[i] && strcmp(dom.key[i], key) == 0) return dom.val[i] ? dom.val[i] : "";
  return "";
}

void ui_fetch(const char *url, int timeout_ms, ui_fetch_cb cb, void *ctx) {
  ck_assert_int_gt(timeout_ms, 0);
  for (int i = 0; i < SLOTS; i++) {
    if (req[i].live) continue;
    snprintf(req[i].url, sizeof req[i].url, "%s", url);
    req[i].cb = cb;
    req[i].ctx = ctx;
    req[i].live = 1;
    return;
  }
  ck_abort_msg("too many requests");
}

static int retry_after = -1; /* what ui_fetch_retry_after_s says during an answer */
int ui_fetch_retry_after_s(void) { return retry_after; }

void ui_fetch_post(const char *url, const char *json_body, int timeout_ms, ui_fetch_cb cb, void *ctx) {
  ck_assert_ptr_nonnull(json_body);
  ui_fetch(url, timeout_ms, cb, ctx);
}

/* The page's trace reader: the fake reads nothing (check_ui_doctor.c
 * draws the doctor's answers). */
void ui_on_doctor(ui_doctor_cb cb, void *ctx) {
  (void)cb;
  (void)ctx;
}
void ui_doctor_cancel(void) {}

/* The simulation module, run natively and answered at once (the browser's
 * comes later, from a Web Worker; callers handle both). */
static struct {
  char name[32];
  char *json;
} sim_calibrated[2];
void ui_simulate_profile(const char *name, const char *profile_json) {
  int i = 0;
  while (i < 2 && sim_calibrated[i].json && strcmp(sim_calibrated[i].name, name) != 0) i++;
  if (i == 2) i = 1;
  free(sim_calibrated[i].json);
  sim_calibrated[i].json = NULL;
  if (!profile_json) return;
  size_t n = strlen(profile_json) + 1;
  sim_calibrated[i].json = malloc(n);
  if (sim_calibrated[i].json) memcpy(sim_calibrated[i].json, profile_json, n);
  snprintf(sim_calibrated[i].name, sizeof sim_calibrated[i].name, "%s", name);
}

void ui_simulate(const char *experiment, const char *params_json, const char *profile, ui_fetch_cb cb, void *ctx) {
  char *text = NULL;
  const char *json = NULL;
  for (int i = 0; profile && i < 2; i++)
    if (sim_calibrated[i].json && strcmp(sim_calibrated[i].name, profile) == 0) json = sim_calibrated[i].json;
  int status = ui_sim_run(experiment, params_json, profile, json, &text);
  cb(status, text ? text : "", text ? strlen(text) : 0, ctx);
  free(text);
}

/* The page's kit import: the page listens; test_ui_kit_file plays a file
 * chosen on it, compared natively by the simulation module's own C. */
static ui_kit_cb kit_cb;
static void *kit_ctx;
const char *test_kit_claims;
void ui_on_kit_file(ui_kit_cb cb, void *ctx) {
  kit_cb = cb;
  kit_ctx = ctx;
}
void test_ui_kit_file(const char *name, const char *bytes, size_t size) {
  char *text = NULL;
  ck_assert_ptr_nonnull(kit_cb);
  kit_cb(UI_KIT_START, 0, (double)size, name, strlen(name), kit_ctx);
  int status = ui_kit_run(bytes, size, test_kit_claims, &text);
  kit_cb(UI_KIT_DONE, status, 0, text ? text : "", text ? strlen(text) : 0, kit_ctx);
  free(text);
}

void ui_fetch_delete(const char *url, int timeout_ms, ui_fetch_cb cb, void *ctx) { ui_fetch(url, timeout_ms, cb, ctx); }
int ui_form_checked(const char *form_id, char *buf, size_t n) {
  (void)form_id;
  return snprintf(buf, n, "{}");
}
void ui_download(const char *filename, const char *mime, const char *text) {
  put("download", filename, text);
  (void)mime;
}
void ui_dom_set_html(const char *id, const char *html) { put("html", id, html); }
static const char *get(const char *kind, const char *id);
void ui_dom_append_html(const char *id, const char *html) {
  const char *old = get("html", id);
  size_t n = strlen(old) + strlen(html) + 1;
  char *both = malloc(n);
  ck_assert_ptr_nonnull(both);
  snprintf(both, n, "%s%s", old, html);
  put("html", id, both);
  free(both);
}
void ui_dom_set_text(const char *id, const char *text) { put("text", id, text); }
void ui_dom_set_attr(const char *id, const char *name, const char *value) {
  char key[128];
  snprintf(key, sizeof key, "%s:%s", id, name);
  put("attr", key, value);
}
void ui_dom_fill(const char *selector, const char *html) { put("fill", selector, html); }
void ui_dom_focus(const char *id) { snprintf(focus_id, sizeof focus_id, "%s", id); }
void ui_dom_set_title(const char *t) { snprintf(title, sizeof title, "%s", t); }
void ui_location_hash(char *buf, size_t n) { snprintf(buf, n, "%s", hash); }
void ui_on_hash_change(ui_hash_cb cb, void *ctx) {
  (void)ctx;
  on_hash = cb;
}
void ui_on_action(ui_action_cb cb, void *ctx) {
  (void)ctx;
  on_action = cb;
}
/* Only the last lesson is kept; other keys (progress, quiz seed, last
 * experiment runs) read as absent and are not stored. */
int ui_storage_get(const char *key, char *buf, size_t n) {
  if (strcmp(key, "gpulab.lesson") != 0) return -1;
  if (!stored[0]) return -1;
  snprintf(buf, n, "%s", stored);
  return (int)strlen(stored);
}
void ui_storage_set(const char *key, const char *value) {
  if (strcmp(key, "gpulab.lesson") != 0) return;
  snprintf(stored, sizeof stored, "%s", value);
}

/* ---- helpers ------------------------------------------------------------------ */

static int pending(const char *url) {
  for (int i = 0; i < SLOTS; i++)
    if (req[i].live && strcmp(req[i].url, url) == 0) return i;
  return -1;
}

/* Answers the request for url (which must be pending). */
static void answer(const char *url, int status, const char *body) {
  int i = pending(url);
  ck_assert_msg(i >= 0, "no request for %s is pending", url);
  req[i].live = 0;
  req[i].cb(status, body, strlen(body), req[i].ctx);
}

/* An answer with a Retry-After header of retry_s seconds. */
static void answer_retry(const char *url, int status, int retry_s, const char *body) {
  retry_after = retry_s;
  answer(url, status, body);
  retry_after = -1;
}

static void setup(void) {
  memset(req, 0, sizeof req);
  test_later_ms = -1; /* one process for every test under the sanitizers (CK_FORK=no) */
  hash[0] = stored[0] = focus_id[0] = title[0] = '\0';
  ui_app_start();
}

static void teardown(void) {
  ui_app_shutdown();
  for (int i = 0; i < SLOTS; i++) {
    free(dom.key[i]);
    free(dom.val[i]);
    dom.key[i] = dom.val[i] = NULL;
  }
}

#define ck_has(html, text) ck_assert_msg(strstr(html, text) != NULL, "missing \"%s\" in: %s", text, html)
#define ck_lacks(html, text) ck_assert_msg(strstr(html, text) == NULL, "unexpected \"%s\" in: %s", text, html)

static const char DEVICE[] =
    "{\"mode\":\"cpu\",\"driver\":{\"source\":\"none\",\"present\":false,\"devices\":[]},\"runtime\":{\"status\":"
    "\"not_built\",\"built_with_cuda\":false,\"devices\":[]},\"verdict\":{\"code\":\"not_built\",\"usable\":false,"
    "\"simulate\":true,\"summary\":\"no usable GPU: this gpulab was built without CUDA\"}}";
static const char INDEX[] = "{\"lessons\":[{\"id\":\"one\",\"title\":\"One\"},{\"id\":\"two\",\"title\":\"Two\"}]}";
static const char ONE[] =
    "{\"id\":\"one\",\"title\":\"Lesson one\",\"sections\":[{\"id\":\"intro\",\"title\":\"Intro\",\"html\":"
    "\"<div class=\\\"experiment\\\" data-experiment=\\\"device\\\"></div>\",\"experiments\":[\"device\"]}]}";
static const char TWO[] = "{\"id\":\"two\",\"title\":\"Lesson two\",\"sections\":[]}";
#define DEVICE_SLOT ".experiment[data-experiment=\"device\"]"

/* ---- tests -------------------------------------------------------------------- */

START_TEST(app_asks_for_device_health_and_lessons_at_start) {
  ck_assert_int_ge(pending("/api/device"), 0);
  ck_assert_int_ge(pending("/api/health"), 0);
  ck_assert_int_ge(pending("/lessons/index.json"), 0);
  ck_assert_int_eq(pending("/api/profiles"), -1); /* not for the first screen */
  /* Nothing drawn until the answer: the page's own waiting state stands
   * (web/index.html; app_page_waits_as_the_client_draws_it). */
  ck_assert_str_eq(get("html", "gpu-body"), "");
  ck_assert_str_eq(get("html", "gpu-badge"), "");
  ck_assert_str_eq(get("text", "status"), "");
}
END_TEST

/* The GPU panel's waiting state is written in web/index.html, so the page
 * shows it before the client runs (the check is asked from the page's
 * head); it must be what the client draws for it (on a re-check). Run from
 * the repository root, as make test does. */
START_TEST(app_page_waits_as_the_client_draws_it) {
  FILE *f = fopen("web/index.html", "rb");
  ck_assert_msg(f, "cannot open web/index.html (run from the repository root)");
  static char page[16384];
  size_t n = fread(page, 1, sizeof page - 1, f);
  fclose(f);
  page[n] = '\0';
  ui_device_state waiting = {0};
  ui_buf b;
  char line[300];
  ui_buf_init(&b);
  ui_render_device_badge(&b, &waiting);
  ck_has(page, ui_buf_str(&b));
  ui_buf_free(&b);
  ui_buf_init(&b);
  ui_render_device_panel(&b, &waiting);
  ck_has(page, ui_buf_str(&b));
  ui_buf_free(&b);
  ui_render_device_line(&waiting, line, sizeof line);
  ck_has(page, line);
  ck_has(page, "data-state=\"wait\">Connecting to the gpulab server…</p>");
}
END_TEST

START_TEST(app_shows_the_live_verdict_from_the_server) {
  answer("/api/health", 200, "{\"status\":\"ok\",\"version\":\"0.1.0\",\"mode\":\"cpu\"}");
  answer("/api/device", 200, DEVICE);
  ck_has(get("html", "gpu-body"), "no usable GPU: this gpulab was built without CUDA");
  ck_has(get("html", "gpu-body"), "The lab will simulate every experiment.");
  ck_has(get("html", "gpu-badge"), "live");
  ck_assert_str_eq(get("attr", "gpu-body:aria-busy"), "false");
  ck_assert_str_eq(get("text", "status"), "Connected — no usable GPU, so experiments are simulated");
  ck_assert_str_eq(get("attr", "status:data-state"), "sim");
  /* the footer says what the server can do now, never "CPU-only build"
   * beside a panel that says "Built with CUDA: yes" */
  ck_assert_str_eq(get("text", "build-info"), "gpulab 0.1.0 · CPU mode: no usable GPU, experiments are simulated");
  ck_assert_str_eq(get("text", "gpu-line"), "no GPU here (this gpulab was built without CUDA) — everything is simulated");
}
END_TEST

/* Offline, the panel simulates the default profile (lab_profile_default:
 * the T4 of Colab and Kaggle), the same one GET /api/profiles names and the
 * server simulates without a profile. */
START_TEST(app_goes_offline_and_simulates_the_default_t4_when_unreachable) {
  answer("/api/device", 0, "");
  answer("/api/health", 0, "");
  ck_assert_str_eq(get("text", "status"), "offline — everything will be simulated");
  ck_assert_str_eq(get("attr", "status:data-state"), "offline");
  ck_has(get("html", "gpu-body"), "offline — everything will be simulated");
  ck_assert_str_eq(lab_profile_default()->name, "t4");
  ck_has(get("html", "gpu-body"), "shows what a machine with the T4 would report");
  ck_has(get("html", "gpu-body"), lab_profile_default()->device_name);
  ck_has(get("html", "gpu-badge"), "simulated (profile: T4)");
}
END_TEST

START_TEST(app_treats_an_answer_that_is_not_json_as_offline) {
  answer("/api/device", 200, "<!doctype html><p>some other server</p>");
  ck_assert_str_eq(get("text", "status"), "offline — everything will be simulated");
  ck_has(get("html", "gpu-badge"), "simulated");
}
END_TEST

/* A hostile or broken server cannot crash the page with deep nesting: the
 * client parses with the same 64-level bound as the server (a wasm stack is
 * 64 KiB), and treats such an answer as no answer. */
START_TEST(app_treats_a_deeply_nested_answer_as_offline) {
  static char deep[20002];
  memset(deep, '[', 10000);
  memset(deep + 10000, ']', 10000);
  deep[20000] = 0;
  answer("/api/device", 200, deep);
  ck_assert_str_eq(get("text", "status"), "offline — everything will be simulated");
  ck_has(get("html", "gpu-badge"), "simulated");
}
END_TEST

START_TEST(app_explains_a_server_error_then_simulates) {
  answer("/api/device", 503, "{\"error\":{\"code\":\"busy\",\"message\":\"the worker is busy\"}}");
  ck_has(get("html", "gpu-body"), "The server could not check its GPU.");
  ck_has(get("html", "gpu-body"), "It answered: the worker is busy");
  ck_lacks(get("html", "gpu-body"), "asks it again"); /* only a check still running is asked again */
  ck_assert_int_eq(pending("/api/device"), -1);
  ck_lacks(get("html", "gpu-body"), "offline");
  ck_assert_str_eq(get("attr", "status:data-state"), "sim");
  answer("/api/health", 200, "{\"status\":\"ok\"}"); /* no version: the footer keeps its text */
  ck_assert_str_eq(get("text", "build-info"), "");
}
END_TEST

START_TEST(app_opens_the_first_lesson_and_fills_its_device_card) {
  answer("/lessons/index.json", 200, INDEX);
  ck_assert_int_eq(pending("/lessons/one.json") >= 0, 1); /* the nav waits for the lesson: drawn once */
  answer("/lessons/one.json", 200, ONE);
  ck_has(get("html", "nav-body"), "href=\"#lesson/one\"");
  ck_has(get("html", "lesson"), "Lesson one");
  ck_assert_str_eq(get("attr", "lesson:aria-busy"), "false");
  ck_assert_int_eq(pending("/api/profiles"), -1); /* not until a widget is used */
  ck_has(get("html", "nav-body"), "href=\"#lesson/one/intro\"");
  ck_assert_str_eq(title, "Lesson one — gpulab");
  ck_assert_str_eq(stored, "one");
  ck_assert_str_eq(focus_id, ""); /* the first load does not move focus */
  ck_has(get("fill", DEVICE_SLOT), "Checking this machine");
  answer("/api/device", 200, DEVICE); /* the card follows the panel */
  ck_has(get("fill", DEVICE_SLOT), "built without CUDA");
}
END_TEST

/* A lesson is drawn in two steps: its first screen (title, first section,
 * that section's widgets), marked data-first-screen (the page's ready
 * point), then the rest at its end (the fake ui_later runs at once), and
 * only then is the lesson no longer busy. A learner routed to a section
 * gets the whole lesson in one step. */
static const char ONE_LONG[] =
    "{\"id\":\"one\",\"title\":\"Lesson one\",\"sections\":[{\"id\":\"intro\",\"title\":\"Intro\",\"html\":"
    "\"<div class=\\\"experiment\\\" data-experiment=\\\"device\\\"></div>\",\"experiments\":[\"device\"]},"
    "{\"id\":\"more\",\"title\":\"More\",\"html\":\"<div class=\\\"experiment\\\" data-experiment=\\\"timing\\\"></div>\","
    "\"experiments\":[\"timing\"]}]}";

START_TEST(app_draws_the_first_screen_then_the_rest_of_the_lesson) {
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, ONE_LONG);
  const char *html = get("html", "lesson");
  ck_assert_str_eq(get("attr", "lesson:data-first-screen"), "drawn");
  /* The first screen, then the box the rest goes into (laid out when scrolled to). */
  ck_has(html, "id=\"sec-intro\"");
  ck_assert_msg(strstr(html, "id=\"sec-intro\"") < strstr(html, "id=\"lesson-rest\""), "no box after the first screen: %s", html);
  ck_assert_ptr_null(strstr(html, "id=\"sec-more\""));
  const char *rest = get("html", "lesson-rest");
  ck_has(rest, "id=\"sec-more\"");
  ck_has(rest, "id=\"sec-quiz\"");
  ck_has(get("fill", DEVICE_SLOT), "Checking this machine");
  ck_has(get("fill", ".experiment[data-experiment=\"timing\"]"), "exp-timing");
  ck_assert_str_eq(get("attr", "lesson:aria-busy"), "false");
}
END_TEST

START_TEST(app_draws_a_routed_lesson_whole) {
  snprintf(hash, sizeof hash, "#lesson/one/more");
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, ONE_LONG);
  ck_assert_str_eq(get("attr", "lesson:data-first-screen"), ""); /* never marked: drawn whole */
  ck_has(get("html", "lesson"), "id=\"sec-more\"");
  ck_assert_str_eq(focus_id, "sec-more");
  ck_assert_str_eq(get("attr", "lesson:aria-busy"), "false");
}
END_TEST

/* The lessons come from the web root's precompressed static files, never
 * the API's uncompressed copy of the same bytes. */
START_TEST(app_reads_lessons_from_the_static_files_not_the_api) {
  ck_assert_int_eq(pending("/api/lessons"), -1);
  answer("/lessons/index.json", 200, INDEX);
  ck_assert_int_eq(pending("/api/lessons/one"), -1);
  answer("/lessons/one.json", 200, ONE);
  ck_has(get("html", "lesson"), "Lesson one");
}
END_TEST

/* The profiles answer is asked once, when the learner first reaches into
 * an experiment widget, and not again after that. */
START_TEST(app_asks_for_profiles_once_a_widget_is_used) {
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, ONE);
  ck_assert_int_eq(pending("/api/profiles"), -1);
  on_action("widget-used", "", NULL);
  answer("/api/profiles", 200, "{\"profiles\":[],\"default\":\"t4\"}");
  on_action("widget-used", "", NULL);
  ck_assert_int_eq(pending("/api/profiles"), -1);
}
END_TEST

START_TEST(app_says_when_no_lessons_can_be_loaded_and_retries) {
  answer("/lessons/index.json", 404, "<p>Not found</p>");
  ck_has(get("html", "lesson"), "The lessons could not be loaded");
  ck_has(get("html", "nav-body"), "data-action=\"reload-lessons\"");
  on_action("reload-lessons", "", NULL);
  ck_assert_int_ge(pending("/lessons/index.json"), 0);
}
END_TEST

START_TEST(app_reopens_the_stored_lesson_and_follows_the_address) {
  snprintf(stored, sizeof stored, "two");
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/two.json", 200, TWO);
  ck_has(get("html", "lesson"), "Lesson two");
  /* The learner picks a section of lesson one: it loads, then gets focus. */
  on_hash("#lesson/one/intro", NULL);
  answer("/lessons/one.json", 200, ONE);
  ck_assert_str_eq(focus_id, "sec-intro");
  on_hash("#lesson/one", NULL); /* already shown: focus moves to its title, no request */
  ck_assert_str_eq(focus_id, "lesson-title");
  ck_assert_int_eq(pending("/lessons/one.json"), -1);
  on_hash("#main", NULL); /* an in-page anchor is the browser's business */
  ck_assert_str_eq(focus_id, "lesson-title");
}
END_TEST

START_TEST(app_drops_the_answer_to_a_superseded_lesson_request) {
  answer("/lessons/index.json", 200, INDEX);
  on_hash("#lesson/two", NULL);
  answer("/lessons/one.json", 200, ONE); /* asked first, answered last */
  ck_lacks(get("html", "lesson"), "Lesson one");
  answer("/lessons/two.json", 200, TWO);
  ck_has(get("html", "lesson"), "Lesson two");
}
END_TEST

/* The quiz keeps the app's lesson, not a copy: another page replaces the
 * lesson (freed), a "section-seen" then finds no lesson to mark, and the
 * same lesson loaded again is the one the progress counts against. */
START_TEST(app_quiz_follows_the_lesson_through_another_page) {
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, ONE);
  ck_has(get("html", "nav-body"), "0 of 1 sections read");
  on_hash("#explain", NULL);
  ck_lacks(get("html", "nav-body"), "sections read");
  on_action("section-seen", "sec-intro", NULL); /* no lesson on the page: nothing to mark */
  on_hash("#lesson/one", NULL);
  answer("/lessons/one.json", 200, ONE);
  ck_has(get("html", "nav-body"), "0 of 1 sections read");
  on_action("section-seen", "sec-intro", NULL);
  ck_has(get("html", "nav-progress"), "1 of 1 sections read");
}
END_TEST

START_TEST(app_reports_an_unknown_lesson_in_the_address) {
  snprintf(hash, sizeof hash, "#lesson/nope");
  answer("/lessons/index.json", 200, INDEX);
  ck_has(get("html", "lesson"), "Lesson not found");
  ck_has(get("html", "lesson"), "no lesson called &quot;nope&quot;");
  ck_assert_int_eq(pending("/lessons/nope.json"), -1);
}
END_TEST

/* A first visit to an address of no page ("#main", a mistyped one) draws
 * the lesson the empty address gives: it used to leave "Loading the
 * lesson…" for good. Once a lesson is shown, such an address is the
 * browser's (an in-page anchor) and changes nothing. */
START_TEST(app_draws_the_first_lesson_for_an_address_of_no_page) {
  snprintf(hash, sizeof hash, "#nonsense");
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, ONE_LONG);
  ck_has(get("html", "lesson"), "id=\"sec-intro\"");
  int before = pending("/lessons/one.json");
  snprintf(hash, sizeof hash, "#main");
  on_hash(hash, NULL);
  ck_has(get("html", "lesson"), "id=\"sec-intro\"");
  ck_assert_int_eq(pending("/lessons/one.json"), before);
}
END_TEST

START_TEST(app_rejects_a_bundle_for_another_lesson) {
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, TWO); /* the wrong lesson */
  ck_has(get("html", "lesson"), "This lesson could not be loaded");
  on_hash("#lesson/two", NULL);
  answer("/lessons/two.json", 200, "{"); /* damaged */
  ck_has(get("html", "lesson"), "This lesson could not be loaded");
}
END_TEST

static const char CHECKING[] =
    "{\"error\":{\"code\":\"device_check_timeout\",\"message\":\"the device check has not answered within 2 s "
    "(a slow or stuck driver); retry in a few seconds\"}}";

/* A server whose own device check is still running answers 503 with a
 * Retry-After: the page simulates meanwhile, says it will ask again, and
 * does; the live answer then replaces the simulated panel. */
START_TEST(app_asks_again_while_the_server_checks_its_device) {
  answer_retry("/api/device", 503, 2, CHECKING);
  ck_assert_int_eq(test_later_ms, 2000);
  ck_has(get("html", "gpu-body"), "It answered: the device check has not answered within 2 s");
  ck_has(get("html", "gpu-body"), "This page asks it again by itself.");
  ck_has(get("html", "gpu-badge"), "simulated");
  /* the status line says the check is still running, not that it failed */
  ck_has(get("text", "status"), "still checking its GPU");
  ck_lacks(get("text", "status"), "failed");
  ck_has(get("text", "gpu-line"), "the server is still checking its GPU");
  ck_has(get("html", "gpu-body"), "The server is still checking its GPU.");
  /* the fake ui_later runs at once: the page has asked again */
  answer("/api/device", 200, DEVICE);
  ck_has(get("html", "gpu-badge"), "live");
  ck_lacks(get("html", "gpu-body"), "asks it again");
  ck_assert_int_eq(pending("/api/device"), -1);
}
END_TEST

/* A re-check that meets another failure (the server gone) ends the series:
 * the note no longer promises one. */
START_TEST(app_stops_asking_again_when_the_server_fails_otherwise) {
  answer_retry("/api/device", 503, 2, CHECKING);
  ck_has(get("html", "gpu-body"), "This page asks it again by itself.");
  answer("/api/device", 0, "");
  ck_assert_int_eq(pending("/api/device"), -1);
  ck_lacks(get("html", "gpu-body"), "asks it again");
  ck_has(get("text", "status"), "the GPU check failed");
  ck_has(get("html", "gpu-body"), "It answered: the device check has not answered within 2 s");
}
END_TEST

/* The series is bounded: each wait at least twice the last, capped, and
 * after UI_DEVICE_RETRIES re-checks the page stops and no longer says it
 * will ask. */
START_TEST(app_stops_asking_again_after_its_retries) {
  static const int want_ms[UI_DEVICE_RETRIES] = {2000, 4000, 8000, 16000, 30000};
  answer_retry("/api/device", 503, 2, CHECKING);
  for (int i = 0; i < UI_DEVICE_RETRIES; i++) {
    ck_assert_int_eq(test_later_ms, want_ms[i]);
    ck_assert_int_ge(pending("/api/device"), 0);
    answer_retry("/api/device", 503, 2, CHECKING);
  }
  ck_assert_int_eq(pending("/api/device"), -1);
  ck_has(get("html", "gpu-body"), "It answered: the device check has not answered within 2 s");
  ck_lacks(get("html", "gpu-body"), "asks it again");
  ck_has(get("html", "gpu-badge"), "simulated");
  ck_has(get("text", "status"), "the GPU check failed");
  ck_has(get("text", "gpu-line"), "the server could not check its GPU");
  ck_has(get("html", "gpu-body"), "The server could not check its GPU.");
}
END_TEST

START_TEST(app_checks_again_and_ignores_the_old_answer) {
  answer("/api/device", 0, "");
  ck_has(get("html", "gpu-badge"), "simulated");
  on_action("recheck", "", NULL);
  ck_has(get("html", "gpu-body"), "Asking the gpulab server");
  answer("/api/device", 200, DEVICE);
  ck_has(get("html", "gpu-badge"), "live");
  ck_assert_int_eq(pending("/api/device"), -1);
}
END_TEST

/* A server that accepts and never answers: the bridge gives up after the
 * timeout and the page says so, simulates, and stops asking the API for
 * lessons (their static copies answer at once). */
START_TEST(app_says_the_server_did_not_answer_and_simulates) {
  answer("/api/device", UI_FETCH_TIMED_OUT, "");
  answer("/api/health", UI_FETCH_TIMED_OUT, "");
  ck_assert_str_eq(get("text", "status"), "The server did not answer in 5 s; simulating in your browser instead");
  ck_assert_str_eq(get("attr", "status:data-state"), "offline");
  ck_assert_str_eq(get("attr", "gpu-body:aria-busy"), "false");
  ck_has(get("html", "gpu-body"), "The server did not answer in 5 s; running the simulation in your browser instead.");
  ck_has(get("html", "gpu-badge"), "simulated (profile: T4)");
  ck_assert_str_eq(get("text", "gpu-line"), "the server did not answer in 5 s — everything is simulated in your browser");
  answer("/lessons/index.json", 200, INDEX);
  answer("/lessons/one.json", 200, ONE);
  ck_has(get("html", "lesson"), "Lesson one");
  ck_has(get("fill", DEVICE_SLOT), "simulated");
}
END_TEST

/* A network failure is still plain "offline", and an answer after a
 * re-check clears the timed-out state. */
START_TEST(app_clears_the_timeout_when_the_server_answers_again) {
  answer("/api/device", UI_FETCH_TIMED_OUT, "");
  on_action("recheck", "", NULL);
  ck_assert_str_eq(get("attr", "status:data-state"), "wait");
  answer("/api/device", 200, DEVICE);
  ck_assert_str_eq(get("text", "status"), "Connected — no usable GPU, so experiments are simulated");
  ck_lacks(get("html", "gpu-body"), "did not answer");
  answer("/lessons/index.json", 200, INDEX);
  ck_assert_int_ge(pending("/lessons/one.json"), 0);
}
END_TEST

/* A run the server took and never answered: after the run timeout it is
 * simulated in the browser, and the result says why. */
/* A server whose GPU the device check found usable: auto runs there. */
static const char DEVICE_GPU[] =
    "{\"mode\":\"cuda\",\"driver\":{\"source\":\"nvml\",\"present\":true,\"devices\":[]},\"runtime\":{\"status\":"
    "\"ok\",\"built_with_cuda\":true,\"devices\":[]},\"verdict\":{\"code\":\"ok\",\"usable\":true,"
    "\"simulate\":false,\"summary\":\"usable GPU: NVIDIA T4\"}}";

START_TEST(app_simulates_a_run_the_server_never_answered) {
  answer("/api/device", 200, DEVICE_GPU);
  on_action("exp-run", "device", NULL);
  answer("/api/experiments/device", UI_FETCH_TIMED_OUT, "");
  ck_has(get("html", "exp-device-out"), "The server did not answer in 120 s, so it was simulated in your browser instead.");
  ck_has(get("html", "exp-device-out"), "simulated");
  ck_has(get("text", "exp-device-status"), "Done: simulated");
}
END_TEST

/* Without a usable GPU on the server, auto is the default profile's
 * labelled example (it names a GPU), never a request for the server's
 * "no GPU" check; the server's own check is beside it, as the server's. */
START_TEST(app_device_check_default_is_the_default_profiles_example) {
  answer("/api/device", 200, DEVICE);
  on_action("exp-run", "device", NULL);
  ck_assert_int_lt(pending("/api/experiments/device"), 0);
  ck_has(get("html", "exp-device-out"), lab_profile_default()->device_name);
  ck_has(get("html", "exp-device-out"), "The gpulab server's own check:</strong> no usable GPU: this gpulab was built");
  ck_has(get("text", "exp-device-status"), "Done: simulated");
}
END_TEST

/* ---- class mode: a join answered 429 ---------------------------------------------- */

static const char CLASS_HEALTH[] = "{\"status\":\"ok\",\"version\":\"0.1.0\",\"mode\":\"cpu\",\"class\":{\"name\":\"CS\"}}";
static const char NO_SESSION[] = "{\"error\":{\"code\":\"no_session\",\"message\":\"join first\"}}";
static const char BUSY[] = "{\"error\":{\"code\":\"rate_limited\",\"message\":\"Too many joins; retry in 3 s\"}}";

static void open_join_form(void) {
  answer("/api/health", 200, CLASS_HEALTH);
  answer("/api/session", 401, NO_SESSION);
  ck_has(get("html", "class"), "Join the class");
  test_class_code = "abcd efgh";
  test_class_name = "Ada";
  on_action("class-join", "", NULL);
  test_class_code = test_class_name = NULL;
}

START_TEST(app_retries_a_join_the_class_was_too_busy_for) {
  open_join_form();
  answer_retry("/api/class/join", 429, 3, BUSY);
  ck_has(get("html", "class"), "The class is busy letting others in; trying again in 3 s.");
  ck_has(get("html", "class"), "Joining…");
  ck_assert_int_eq(test_later_ms, 3000);
  /* the fake ui_later runs at once: the same join is already sent again */
  answer("/api/class/join", 200, "{\"name\":\"Ada\"}");
  answer("/api/session", 200, "{\"name\":\"Ada\",\"runs\":[]}");
  ck_has(get("html", "class"), "id=\"class-who\">Ada</strong>");
  ck_assert_str_eq(focus_id, "class-bar");
}
END_TEST

START_TEST(app_stops_retrying_a_join_and_asks_the_learner) {
  open_join_form();
  for (int i = 0; i < UI_CLASS_JOIN_RETRIES; i++) answer_retry("/api/class/join", 429, 1, BUSY);
  answer_retry("/api/class/join", 429, 1, BUSY);
  ck_assert_int_eq(pending("/api/class/join"), -1);
  ck_has(get("html", "class"), "The class was still busy letting others in after 7 tries; press Join again in a minute.");
  ck_lacks(get("html", "class"), "Joining…");
  ck_lacks(get("html", "class"), "trying again");
}
END_TEST

START_TEST(app_says_a_join_timed_out) {
  open_join_form();
  answer("/api/class/join", UI_FETCH_TIMED_OUT, "");
  ck_has(get("html", "class"), "The server did not answer in 5 s. Check your connection, then press Join again.");
  ck_lacks(get("html", "class"), "Joining…");
}
END_TEST

Suite *make_ui_app_suite(void) {
  Suite *s = suite_create("ui_app");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, app_asks_for_device_health_and_lessons_at_start);
  tcase_add_test(tc, app_page_waits_as_the_client_draws_it);
  tcase_add_test(tc, app_draws_the_first_screen_then_the_rest_of_the_lesson);
  tcase_add_test(tc, app_draws_a_routed_lesson_whole);
  tcase_add_test(tc, app_shows_the_live_verdict_from_the_server);
  tcase_add_test(tc, app_goes_offline_and_simulates_the_default_t4_when_unreachable);
  tcase_add_test(tc, app_treats_an_answer_that_is_not_json_as_offline);
  tcase_add_test(tc, app_treats_a_deeply_nested_answer_as_offline);
  tcase_add_test(tc, app_explains_a_server_error_then_simulates);
  tcase_add_test(tc, app_opens_the_first_lesson_and_fills_its_device_card);
  tcase_add_test(tc, app_reads_lessons_from_the_static_files_not_the_api);
  tcase_add_test(tc, app_asks_for_profiles_once_a_widget_is_used);
  tcase_add_test(tc, app_says_when_no_lessons_can_be_loaded_and_retries);
  tcase_add_test(tc, app_reopens_the_stored_lesson_and_follows_the_address);
  tcase_add_test(tc, app_drops_the_answer_to_a_superseded_lesson_request);
  tcase_add_test(tc, app_quiz_follows_the_lesson_through_another_page);
  tcase_add_test(tc, app_reports_an_unknown_lesson_in_the_address);
  tcase_add_test(tc, app_draws_the_first_lesson_for_an_address_of_no_page);
  tcase_add_test(tc, app_rejects_a_bundle_for_another_lesson);
  tcase_add_test(tc, app_asks_again_while_the_server_checks_its_device);
  tcase_add_test(tc, app_stops_asking_again_after_its_retries);
  tcase_add_test(tc, app_stops_asking_again_when_the_server_fails_otherwise);
  tcase_add_test(tc, app_checks_again_and_ignores_the_old_answer);
  tcase_add_test(tc, app_says_the_server_did_not_answer_and_simulates);
  tcase_add_test(tc, app_clears_the_timeout_when_the_server_answers_again);
  tcase_add_test(tc, app_simulates_a_run_the_server_never_answered);
  tcase_add_test(tc, app_device_check_default_is_the_default_profiles_example);
  tcase_add_test(tc, app_retries_a_join_the_class_was_too_busy_for);
  tcase_add_test(tc, app_stops_retrying_a_join_and_asks_the_learner);
  tcase_add_test(tc, app_says_a_join_timed_out);
  suite_add_tcase(s, tc);
  return s;
}
