/* The quiz controller, progress keeping and the lab-report download (see
 * quiz_app.h). One lesson's quiz is held at a time; answers to requests of
 * an earlier attempt or lesson are dropped by a generation number. */
#include "quiz_app.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge.h"
#include "clock.h"
#include "envelope.h"
#include "json.h"
#include "json_get.h"
#include "progress.h"
#include "quiz_form.h"
#include "quiz.h" /* lab_quiz_score */
#include "class_app.h"
#include "quiz_seal.h"
#include "registry.h"
#include "report.h"
#include "stored.h"
#include "route.h"
#include "timeouts.h"

/* Scoring is quick; a server that has not answered in this time is treated
 * as gone, and the attempt is scored offline. */
#define CHECKED_MAX 4096 /* the checked inputs of 9 questions take ~150 bytes */
#define ENVELOPE_MAX (1 << 20)

static struct {
  char lesson[UI_ID_MAX];
  const cJSON *bundle; /* the lesson bundle app.c shows (borrowed: released by ui_quiz_app_release) */
  cJSON *result;  /* the last attempt's result, shown until Retry */
  bool offline;   /* result was scored in the browser */
  cJSON *answers; /* the attempt being scored */
  cJSON *sealed;  /* the sealed offline key, once fetched (lab/quiz/quiz_seal.h) */
  bool busy;
  char unanswered[64]; /* the list the learner was warned about; a second press submits */
  uint64_t seed;       /* the first attempt's shuffle */
  int attempt;
  intptr_t gen;
  ui_progress progress;
} q;

/* ---- small helpers ---------------------------------------------------------- */

static const cJSON *quiz(void) { return ui_json_obj(q.bundle, "quiz"); }

static void now_text(char *out, size_t n) {
  time_t t = time(NULL);
  const struct tm *tm = t == (time_t)-1 ? NULL : gmtime(&t); /* one thread: the static result is safe */
  if (!tm || strftime(out, n, "%Y-%m-%d %H:%M UTC", tm) == 0)
    snprintf(out, n, "date unknown");
}

static void progress_key(char *key, size_t n) { snprintf(key, n, UI_STORE_PROGRESS "%s", q.lesson); }

/* A fixed seed from storage (tests), else one from the clock. Each attempt
 * steps it by a large odd constant, so Retry always reshuffles. */
static uint64_t base_seed(void) {
  char buf[32];
  if (ui_storage_get(UI_STORE_QUIZ_SEED, buf, sizeof buf) > 0) {
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end != buf && *end == '\0') return (uint64_t)v;
  }
  return (uint64_t)time(NULL) * 1000003u ^ (uint64_t)(lab_clock_ms() * 1000.0);
}

/* The quiz keeps app.c's bundle, not a copy: cJSON_Duplicate of lesson 1
 * was one of the larger pieces of a cold load's main-thread work in CPU
 * profiles (docs/performance.md). The same lesson loaded again (the learner
 * left for another page and came back) keeps its attempt and result. */
static void open_lesson(const cJSON *lesson) {
  const char *id = ui_json_str(lesson, "id");
  char key[UI_ID_MAX + 32];
  if (!ui_id_valid(id)) return;
  if (q.lesson[0] && strcmp(id, q.lesson) == 0) {
    q.bundle = lesson;
    return;
  }
  ui_quiz_app_shutdown();
  snprintf(q.lesson, sizeof q.lesson, "%s", id);
  q.bundle = lesson;
  q.seed = base_seed();
  progress_key(key, sizeof key);
  char *stored = ui_stored_read(key, ENVELOPE_MAX);
  ui_progress_parse(stored, &q.progress);
  free(stored);
}

/* ---- rendering ------------------------------------------------------------------ */

static void show(const char *id, ui_buf *b) {
  ui_dom_set_html(id, b->failed ? "<p>Out of memory while drawing this part of the page. Reload the page.</p>"
                                : ui_buf_str(b));
  ui_buf_free(b);
}

static void quiz_body(ui_buf *b) {
  if (q.result) ui_render_quiz_result(b, quiz(), q.result, q.offline);
  else ui_render_quiz_form(b, quiz(), q.seed + (uint64_t)q.attempt * 0x9E3779B97F4A7C15ull);
}

/* Without the bundle (released: another page replaced the lesson) the
 * quiz is not on the page: an answer arriving then is kept, and drawn into
 * nothing (the page has no quiz-body or nav-progress). */
static void render_quiz(void) {
  ui_buf b;
  ui_buf_init(&b);
  quiz_body(&b);
  show("quiz-body", &b);
}

static void render_progress(void) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_progress_nav(&b, &q.progress, q.bundle);
  show("nav-progress", &b);
}

static void save_progress(void) {
  char key[UI_ID_MAX + 32];
  char *text = ui_progress_json(&q.progress);
  if (text) {
    progress_key(key, sizeof key);
    ui_storage_set(key, text);
    cJSON_free(text);
  }
  render_progress();
}

static void status(const char *id, const char *text) { ui_dom_set_text(id, text); }

void ui_quiz_app_tail(ui_buf *b, const cJSON *lesson) {
  open_lesson(lesson);
  if (!q.bundle) return;
  ui_buf_raw(b, "<section class=\"lesson-section quiz-section\" id=\"sec-quiz\" tabindex=\"-1\" "
                "aria-labelledby=\"sec-quiz-h\"><p class=\"kicker\">Quiz</p><h2 id=\"sec-quiz-h\">Check what you "
                "learned</h2><div id=\"quiz-body\" aria-live=\"polite\">");
  quiz_body(b);
  ui_buf_raw(b, "</div></section><section class=\"lesson-section report-section\" id=\"sec-report\" tabindex=\"-1\" "
                "aria-labelledby=\"sec-report-h\"><p class=\"kicker\">Lab report</p><h2 id=\"sec-report-h\">Take your "
                "results with you</h2><p>One Markdown file with your device check (the driver's view beside the "
                "runtime's), what your runs of this lesson's experiments showed, your quiz result, the date, and "
                "where every figure came from.</p><p class=\"report-actions\">"
                "<button type=\"button\" class=\"button\" data-action=\"report-download\">Download lab report</button>"
                "<span id=\"report-status\" class=\"report-status\" role=\"status\"></span></p></section>");
}

void ui_quiz_app_nav(ui_buf *b, const cJSON *lesson) {
  open_lesson(lesson);
  if (!q.bundle) return;
  ui_buf_raw(b, "<div id=\"nav-progress\" class=\"nav-progress\">");
  ui_render_progress_nav(b, &q.progress, q.bundle);
  ui_buf_raw(b, "</div>");
}

static bool is_section(const char *sid) {
  const cJSON *s;
  cJSON_ArrayForEach(s, ui_json_arr(q.bundle, "sections")) {
    const char *id = ui_json_str(s, "id");
    if (id && sid && strcmp(id, sid) == 0) return true;
  }
  return false;
}

void ui_quiz_app_visit(const cJSON *lesson, const char *section_id) {
  open_lesson(lesson);
  if (q.bundle && is_section(section_id) && ui_progress_mark_read(&q.progress, section_id)) save_progress();
}

/* ---- scoring ------------------------------------------------------------------ */

static void show_result(cJSON *result, bool offline) {
  ui_attempt a;
  double score = 0, total = 0;
  memset(&a, 0, sizeof a);
  cJSON_Delete(q.result);
  q.result = result;
  q.offline = offline;
  q.busy = false;
  ui_json_num(result, "score", &score);
  ui_json_num(result, "total", &total);
  a.set = total >= 1;
  a.score = (int)score;
  a.total = (int)total;
  a.passed = ui_json_bool(result, "passed") == 1;
  a.offline = offline;
  now_text(a.date, sizeof a.date);
  ui_progress_record(&q.progress, &a);
  save_progress();
  render_quiz();
  ui_dom_focus("quiz-result");
}

static void fail(const char *text) {
  q.busy = false;
  status("quiz-status", text);
}

static void on_offline_bundle(int http, const char *body, size_t len, void *ctx) {
  lab_error err;
  cJSON *result = NULL;
  if ((intptr_t)ctx != q.gen) return;
  memset(&err, 0, sizeof err);
  cJSON *j = http == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const cJSON *key = ui_json_obj(j, "key");
  if (!key) {
    fail("The gpulab server cannot be reached and this browser has no offline copy of the answers yet. "
         "Start the server (gpulab serve) and submit again.");
  } else if (lab_quiz_score(key, q.answers, &result, &err) != 0 || !ui_quiz_result_valid(result) ||
             !(q.sealed = cJSON_Duplicate(key, 1))) {
    char text[400];
    snprintf(text, sizeof text, "Your answers could not be scored offline: %s", err.message[0] ? err.message : "the answer key is incomplete");
    cJSON_Delete(result);
    fail(text);
  } else {
    show_result(result, true);
  }
  cJSON_Delete(j);
}

static void score_offline(void) {
  char url[UI_ID_MAX + 32];
  /* A class counts only what its server scored: no offline attempt. */
  if (ui_class_app_active()) {
    fail("The class server did not answer, so this attempt was not scored or recorded. Your answers are still "
         "selected: submit again in a moment.");
    return;
  }
  cJSON_Delete(q.sealed);
  q.sealed = NULL;
  snprintf(url, sizeof url, "/lessons/%s.offline.json", q.lesson);
  status("quiz-status", "The server did not answer: checking your answers in this browser…");
  ui_fetch(url, UI_API_TIMEOUT_MS, on_offline_bundle, (void *)q.gen);
}

static void on_scored(int http, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != q.gen) return;
  /* No answer, or a gateway's: the server is unreachable, so score offline.
   * Any other error is the server's word on these answers: show it. */
  if (http <= 0 || http == 502 || http == 503 || http == 504) {
    score_offline();
    return;
  }
  cJSON *j = lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL);
  if (http == 200 && ui_quiz_result_valid(j)) {
    show_result(j, false);
    return;
  }
  char text[400];
  const char *msg = ui_json_str(ui_json_obj(j, "error"), "message");
  snprintf(text, sizeof text, "The server could not score this attempt (HTTP %d): %s", http,
           msg ? msg : "it sent no explanation. Reload the page and try again.");
  cJSON_Delete(j);
  fail(text);
}

static void submit(void) {
  char checked_text[CHECKED_MAX], missing[64], text[200];
  if (q.busy || q.result || !ui_quiz_valid(quiz())) return;
  cJSON *checked = ui_form_checked("quiz-form", checked_text, sizeof checked_text) >= 0 ? lab_json_parse(checked_text, strlen(checked_text), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  cJSON *answers = ui_quiz_answers(quiz(), checked);
  cJSON_Delete(checked);
  if (!answers) {
    status("quiz-status", "Out of memory while reading your answers. Reload the page.");
    return;
  }
  int n = ui_quiz_unanswered(quiz(), answers, missing, sizeof missing);
  if (n > 0 && strcmp(missing, q.unanswered) != 0) {
    snprintf(q.unanswered, sizeof q.unanswered, "%s", missing);
    snprintf(text, sizeof text, "%s %s %s no answer yet. Answer %s, or press Submit again to hand in as it is.",
             n == 1 ? "Question" : "Questions", missing, n == 1 ? "has" : "have", n == 1 ? "it" : "them");
    status("quiz-status", text);
    cJSON_Delete(answers);
    return;
  }
  cJSON *req = cJSON_CreateObject();
  char *body = NULL;
  cJSON_Delete(q.answers);
  q.answers = answers;
  if (req && cJSON_AddItemReferenceToObject(req, "answers", answers)) body = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  if (!body) {
    status("quiz-status", "Out of memory while sending your answers. Reload the page.");
    return;
  }
  char url[UI_ID_MAX + 32];
  snprintf(url, sizeof url, "/api/lessons/%s/quiz", q.lesson);
  q.busy = true;
  q.gen++;
  status("quiz-status", "Checking your answers…");
  ui_fetch_post(url, body, UI_API_TIMEOUT_MS, on_scored, (void *)q.gen);
  cJSON_free(body);
}

/* The learner asked for the right answer of a question scored offline:
 * try every set of its options against the sealed key (honour system). */
static void reveal(const char *qid) {
  cJSON *answer = NULL, *r;
  char *why = NULL;
  const cJSON *question = NULL, *c;
  if (!q.result || !q.sealed || !qid) return;
  cJSON_ArrayForEach(c, ui_json_arr(quiz(), "questions")) {
    const char *id = ui_json_str(c, "id");
    if (id && strcmp(id, qid) == 0) question = c;
  }
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(q.result, "questions")) {
    const char *id = ui_json_str(r, "id");
    if (!id || strcmp(id, qid) != 0 || ui_json_bool(r, "sealed") != 1) continue;
    if (!question || lab_quiz_reveal(ui_json_obj(ui_json_obj(q.sealed, "answers"), qid), question, &answer, &why)) {
      status("quiz-status", "This question's answer could not be opened: its offline key does not match the lesson.");
      return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(r, "sealed");
    cJSON_AddItemToObject(r, "answer", answer);
    cJSON_AddStringToObject(r, "explanation", why);
    free(why);
    render_quiz();
    char focus[UI_ID_MAX + 16];
    snprintf(focus, sizeof focus, "quiz-review-%s", qid);
    ui_dom_focus(focus);
    return;
  }
}

static void retry(void) {
  cJSON_Delete(q.result);
  cJSON_Delete(q.answers);
  q.result = q.answers = NULL;
  q.busy = false;
  q.unanswered[0] = '\0';
  q.attempt++;
  q.gen++;
  render_quiz();
  ui_dom_focus("sec-quiz");
}

/* ---- the lab report ------------------------------------------------------------- */

/* The last envelope the experiment widgets stored for name, if it is one. */
static cJSON *last_envelope(const char *name) {
  char key[64];
  snprintf(key, sizeof key, UI_STORE_LAST "%s", name);
  char *text = ui_stored_read(key, ENVELOPE_MAX);
  cJSON *env = text ? lab_json_parse(text, strlen(text), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  free(text);
  const char *exp = ui_json_str(env, "experiment");
  if (!exp || strcmp(exp, name) != 0 || !ui_json_obj(env, "metrics")) {
    cJSON_Delete(env);
    return NULL;
  }
  return env;
}

/* The learner's last result of every experiment the lesson embeds, by name
 * (the generic report has a section per experiment). Caller owns. */
static cJSON *lesson_runs(void) {
  cJSON *runs = cJSON_CreateObject();
  const cJSON *s, *e;
  cJSON_ArrayForEach(s, ui_json_arr(q.bundle, "sections")) {
    cJSON_ArrayForEach(e, ui_json_arr(s, "experiments")) {
      if (!cJSON_IsString(e) || cJSON_GetObjectItemCaseSensitive(runs, e->valuestring)) continue;
      cJSON *env = last_envelope(e->valuestring);
      if (env) cJSON_AddItemToObject(runs, e->valuestring, env);
    }
  }
  return runs;
}

/* A lesson's report may quote an experiment at its defaults when the
 * learner has no run of it (ui_report_default_experiment: lesson 1's
 * memory), simulated first (the simulation module answers later): what the
 * report waits for. */
static struct {
  const ui_device_state *device;
  const char *version;
  intptr_t gen;
} wait_report;

static void write_report(const ui_device_state *device, const char *version, const cJSON *default_run) {
  char date[32], name[128], text[200];
  ui_buf b;
  now_text(date, sizeof date);
  cJSON *runs = lesson_runs();
  char *own_text = ui_stored_read(UI_STORE_OWN_RUN, ENVELOPE_MAX);
  cJSON *own = own_text ? lab_json_parse(own_text, strlen(own_text), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  free(own_text);
  ui_report_input in = {.lesson = q.bundle, .date = date, .version = version, .device = device,
                        .progress = &q.progress, .runs = runs, .default_run = default_run, .own_run = own};
  ui_buf_init(&b);
  ui_report_markdown(&b, &in);
  ui_report_filename(q.lesson, date, name, sizeof name);
  if (b.failed) {
    status("report-status", "Out of memory while writing the report. Reload the page and try again.");
  } else {
    ui_download(name, "text/markdown;charset=utf-8", ui_buf_str(&b));
    snprintf(text, sizeof text, "Saved as %s.", name);
    status("report-status", text);
  }
  ui_buf_free(&b);
  cJSON_Delete(runs);
  cJSON_Delete(own);
}

static void on_default_run(int status, const char *body, size_t len, void *ctx) {
  lab_error err;
  if ((intptr_t)ctx != wait_report.gen || !q.bundle) return; /* another lesson since */
  cJSON *env = status == 200 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  if (env && lab_envelope_check(env, &err) != 0) {
    cJSON_Delete(env);
    env = NULL;
  }
  write_report(wait_report.device, wait_report.version, env); /* without it, the report says less */
  cJSON_Delete(env);
}

static void download_report(const ui_device_state *device, const char *version) {
  const char *quoted = ui_report_default_experiment(q.bundle);
  cJSON *mine = quoted ? last_envelope(quoted) : NULL;
  if (!quoted || mine) {
    cJSON_Delete(mine);
    write_report(device, version, NULL);
    return;
  }
  wait_report.device = device;
  wait_report.version = version;
  wait_report.gen = q.gen;
  status("report-status", "Writing the report…");
  ui_simulate(quoted, "", "", on_default_run, (void *)q.gen);
}

bool ui_quiz_app_action(const char *action, const char *arg, const ui_device_state *device, const char *version) {
  if (strcmp(action, "section-seen") == 0) {
    /* arg is the section element's id, "sec-ID". */
    if (arg && strncmp(arg, "sec-", 4) == 0 && q.bundle && is_section(arg + 4) &&
        ui_progress_mark_read(&q.progress, arg + 4))
      save_progress();
    return true;
  }
  if (!q.bundle) return false;
  if (strcmp(action, "quiz-submit") == 0) submit();
  else if (strcmp(action, "quiz-retry") == 0) retry();
  else if (strcmp(action, "quiz-reveal") == 0) reveal(arg);
  else if (strcmp(action, "report-download") == 0) download_report(device, version);
  else return false;
  return true;
}

void ui_quiz_app_release(const cJSON *lesson) {
  if (q.bundle == lesson) q.bundle = NULL;
}

void ui_quiz_app_shutdown(void) {
  intptr_t gen = q.gen;
  cJSON_Delete(q.result);
  cJSON_Delete(q.answers);
  cJSON_Delete(q.sealed);
  memset(&q, 0, sizeof q);
  q.gen = gen + 1; /* answers still in flight are stale */
}
