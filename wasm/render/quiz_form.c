/* Renders the quiz form and an attempt's review. Ids are checked with
 * ui_id_valid-like rules before they become names, values or element ids;
 * every prompt, option text and explanation is escaped. */
#include "quiz_form.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "rng.h"

static const char ICON_RIGHT[] =
    "<svg class=\"icon\" viewBox=\"0 0 20 20\" aria-hidden=\"true\" focusable=\"false\">"
    "<circle cx=\"10\" cy=\"10\" r=\"9\"/><path d=\"M5.5 10.5l3 3 6-7\"/></svg>";
static const char ICON_WRONG[] =
    "<svg class=\"icon\" viewBox=\"0 0 20 20\" aria-hidden=\"true\" focusable=\"false\">"
    "<circle cx=\"10\" cy=\"10\" r=\"9\"/><path d=\"M6.5 6.5l7 7M13.5 6.5l-7 7\"/></svg>";

/* Question and option ids as lab/quiz/quiz.c allows them: 1..32 of a-z 0-9 - _. */
static bool quiz_id(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > 32) return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return true;
}

static bool question_valid(const cJSON *q) {
  const cJSON *o;
  int n = 0;
  if (!quiz_id(ui_json_str(q, "id")) || !ui_json_str(q, "prompt")) return false;
  cJSON_ArrayForEach(o, ui_json_arr(q, "options")) {
    if (!quiz_id(ui_json_str(o, "id")) || !ui_json_str(o, "text")) return false;
    n++;
  }
  return n >= 2 && n <= UI_QUIZ_MAX_OPTIONS;
}

bool ui_quiz_valid(const cJSON *quiz) {
  const cJSON *q;
  double pct;
  int n = 0;
  if (!ui_json_num(quiz, "pass_pct", &pct) || !(pct > 0 && pct <= 100)) return false;
  cJSON_ArrayForEach(q, ui_json_arr(quiz, "questions")) {
    if (!question_valid(q)) return false;
    n++;
  }
  return n > 0;
}

int ui_quiz_needed(double pass_pct, int total) {
  for (int k = 0; k <= total; k++)
    if (100.0 * k >= pass_pct * total) return k;
  return total;
}

/* FNV-1a of the question id, so each question gets its own shuffle. */
static uint64_t hash_id(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

void ui_quiz_order(uint64_t seed, const char *qid, int n, int order[]) {
  lab_rng r;
  if (n > UI_QUIZ_MAX_OPTIONS) n = UI_QUIZ_MAX_OPTIONS;
  lab_rng_seed(&r, seed ^ hash_id(qid));
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(lab_rng_uniform(&r) * (i + 1));
    if (j > i) j = i;
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

static const cJSON *option_at(const cJSON *opts, int i) { return cJSON_GetArrayItem(opts, i); }

static void question_form(ui_buf *b, const cJSON *q, int num, int total, uint64_t seed) {
  const char *qid = ui_json_str(q, "id");
  const cJSON *opts = ui_json_arr(q, "options");
  bool multi = ui_json_bool(q, "multi") == 1;
  int n = cJSON_GetArraySize(opts), order[UI_QUIZ_MAX_OPTIONS];
  ui_quiz_order(seed, qid, n, order);
  ui_buf_rawf(b, "<fieldset class=\"quiz-q\" id=\"quiz-q-%s\"><legend><span class=\"quiz-num\">Question %d of %d</span>"
                 "<span class=\"quiz-prompt\">",
              qid, num, total);
  ui_buf_text(b, ui_json_str(q, "prompt"));
  ui_buf_rawf(b, "</span></legend><p class=\"quiz-hint\">%s</p><div class=\"quiz-options\">",
              multi ? "Choose every answer that applies." : "Choose one answer.");
  for (int i = 0; i < n; i++) {
    const cJSON *o = option_at(opts, order[i]);
    const char *oid = ui_json_str(o, "id");
    ui_buf_rawf(b, "<label class=\"quiz-option\" for=\"quiz-%s-%s\"><input type=\"%s\" id=\"quiz-%s-%s\" name=\"%s\" "
                   "value=\"%s\"><span>",
                qid, oid, multi ? "checkbox" : "radio", qid, oid, qid, oid);
    ui_buf_text(b, ui_json_str(o, "text"));
    ui_buf_raw(b, "</span></label>");
  }
  ui_buf_raw(b, "</div></fieldset>");
}

void ui_render_quiz_form(ui_buf *b, const cJSON *quiz, uint64_t seed) {
  const cJSON *q;
  double pct = 0;
  int total = 0, num = 0;
  if (!ui_quiz_valid(quiz)) {
    ui_buf_raw(b, "<p class=\"muted\">This lesson has no quiz, or its quiz could not be read. Rebuild the lessons "
                  "with 'make lessons' and reload the page.</p>");
    return;
  }
  ui_json_num(quiz, "pass_pct", &pct);
  total = cJSON_GetArraySize(ui_json_arr(quiz, "questions"));
  ui_buf_rawf(b, "<p class=\"quiz-intro\">%d questions. You pass with %d right (%g%%). The options are shuffled on "
                 "every attempt, and after you submit you see the right answers and why. The server scores your answers; "
                 "without it this browser scores them on your honour, for practice only.</p>",
              total, ui_quiz_needed(pct, total), pct);
  ui_buf_raw(b, "<form id=\"quiz-form\" class=\"quiz-form\" novalidate>");
  cJSON_ArrayForEach(q, ui_json_arr(quiz, "questions")) question_form(b, q, ++num, total, seed);
  ui_buf_raw(b, "<div class=\"quiz-actions\"><button type=\"submit\" class=\"button\" data-action=\"quiz-submit\">"
                "Submit answers</button><p id=\"quiz-status\" class=\"quiz-status\" role=\"status\"></p></div></form>");
}

static bool has_option(const cJSON *q, const char *oid) {
  const cJSON *o;
  cJSON_ArrayForEach(o, ui_json_arr(q, "options")) {
    const char *id = ui_json_str(o, "id");
    if (id && oid && strcmp(id, oid) == 0) return true;
  }
  return false;
}

static bool chosen(const cJSON *arr, const char *oid) {
  const cJSON *c;
  cJSON_ArrayForEach(c, arr) {
    if (cJSON_IsString(c) && strcmp(c->valuestring, oid) == 0) return true;
  }
  return false;
}

cJSON *ui_quiz_answers(const cJSON *quiz, const cJSON *checked) {
  const cJSON *q, *c;
  cJSON *out = cJSON_CreateObject();
  if (!out) return NULL;
  cJSON_ArrayForEach(q, ui_json_arr(quiz, "questions")) {
    const char *qid = ui_json_str(q, "id");
    cJSON *arr = cJSON_CreateArray();
    if (!arr || !quiz_id(qid) || !cJSON_AddItemToObject(out, qid, arr)) {
      cJSON_Delete(arr);
      continue;
    }
    cJSON_ArrayForEach(c, ui_json_arr(checked, qid)) {
      if (!cJSON_IsString(c) || !has_option(q, c->valuestring) || chosen(arr, c->valuestring)) continue;
      if (ui_json_bool(q, "multi") != 1 && cJSON_GetArraySize(arr) == 1) break; /* a radio group holds one */
      cJSON_AddItemToArray(arr, cJSON_CreateString(c->valuestring));
    }
  }
  return out;
}

int ui_quiz_unanswered(const cJSON *quiz, const cJSON *answers, char *list, int n) {
  const cJSON *q;
  int missing = 0, num = 0, used = 0;
  if (n > 0) list[0] = '\0';
  cJSON_ArrayForEach(q, ui_json_arr(quiz, "questions")) {
    num++;
    if (cJSON_GetArraySize(ui_json_arr(answers, ui_json_str(q, "id"))) > 0) continue;
    missing++;
    if (n > 0 && used < n) {
      int w = snprintf(list + used, (size_t)(n - used), "%s%d", missing > 1 ? ", " : "", num);
      used = w < 0 ? n : used + w;
    }
  }
  return missing;
}

bool ui_quiz_result_valid(const cJSON *result) {
  double v;
  return ui_json_num(result, "score", &v) && ui_json_num(result, "total", &v) && ui_json_num(result, "pct", &v) &&
         ui_json_num(result, "pass_pct", &v) && ui_json_bool(result, "passed") >= 0 &&
         ui_json_arr(result, "questions");
}

static const cJSON *find_question(const cJSON *quiz, const char *qid, int *num) {
  const cJSON *q;
  int i = 0;
  cJSON_ArrayForEach(q, ui_json_arr(quiz, "questions")) {
    i++;
    const char *id = ui_json_str(q, "id");
    if (id && qid && strcmp(id, qid) == 0) {
      *num = i;
      return q;
    }
  }
  return NULL;
}

/* The texts of the chosen options, in the question's own order. */
static void choice_list(ui_buf *b, const cJSON *q, const cJSON *ids) {
  const cJSON *o;
  if (cJSON_GetArraySize(ids) == 0) {
    ui_buf_raw(b, "<em>no answer</em>");
    return;
  }
  ui_buf_raw(b, "<span class=\"quiz-choices\">");
  cJSON_ArrayForEach(o, ui_json_arr(q, "options")) {
    const char *oid = ui_json_str(o, "id");
    if (!oid || !chosen(ids, oid)) continue;
    ui_buf_raw(b, "<span class=\"quiz-choice\">");
    ui_buf_text(b, ui_json_str(o, "text"));
    ui_buf_raw(b, "</span>");
  }
  ui_buf_raw(b, "</span>");
}

static void review_item(ui_buf *b, const cJSON *quiz, const cJSON *r) {
  int num = 0;
  const char *qid = ui_json_str(r, "id");
  const cJSON *q = find_question(quiz, qid, &num);
  bool right = ui_json_bool(r, "correct") == 1;
  if (!q) return;
  ui_buf_rawf(b, "<li class=\"quiz-review-item %s\" id=\"quiz-review-%s\" tabindex=\"-1\"><p class=\"quiz-review-head\">"
                 "<span class=\"quiz-mark\">%s<span>%s</span></span><span class=\"quiz-num\">Question %d</span></p>"
                 "<p class=\"quiz-prompt\">",
              right ? "is-right" : "is-wrong", qid, right ? ICON_RIGHT : ICON_WRONG, right ? "Right" : "Wrong", num);
  ui_buf_text(b, ui_json_str(q, "prompt"));
  ui_buf_raw(b, "</p><dl class=\"quiz-answers\"><div><dt>Your answer</dt><dd>");
  choice_list(b, q, ui_json_arr(r, "your"));
  ui_buf_raw(b, "</dd></div>");
  /* Scored offline with the sealed key, a wrong answer shows neither the
   * right one nor why until the learner asks (quiz_app.c opens it). */
  if (!right && ui_json_bool(r, "sealed") == 1) {
    ui_buf_rawf(b, "</dl><p class=\"quiz-explain\"><button type=\"button\" class=\"button button-quiet\" "
                   "data-action=\"quiz-reveal\" data-arg=\"%s\">Show the right answer and why</button></p></li>",
                qid);
    return;
  }
  if (!right) {
    ui_buf_raw(b, "<div><dt>Correct answer</dt><dd>");
    choice_list(b, q, ui_json_arr(r, "answer"));
    ui_buf_raw(b, "</dd></div>");
  }
  ui_buf_raw(b, "</dl><p class=\"quiz-explain\"><span class=\"label\">Why: </span>");
  ui_buf_text(b, ui_json_str(r, "explanation"));
  ui_buf_raw(b, "</p></li>");
}

void ui_render_quiz_result(ui_buf *b, const cJSON *quiz, const cJSON *result, bool offline) {
  double score = 0, total = 0, pct = 0, pass_pct = 0;
  const cJSON *r;
  if (!ui_quiz_result_valid(result)) {
    ui_buf_raw(b, "<p class=\"muted\">The result of this attempt could not be read. Press \"Try again\".</p>"
                  "<p><button type=\"button\" class=\"button\" data-action=\"quiz-retry\">Try again</button></p>");
    return;
  }
  ui_json_num(result, "score", &score);
  ui_json_num(result, "total", &total);
  ui_json_num(result, "pct", &pct);
  ui_json_num(result, "pass_pct", &pass_pct);
  bool passed = ui_json_bool(result, "passed") == 1;
  ui_buf_rawf(b, "<div id=\"quiz-result\" class=\"quiz-result %s\" tabindex=\"-1\"><div class=\"quiz-result-icon\">%s"
                 "</div><div class=\"quiz-result-text\"><p class=\"quiz-score\">%s — %.0f of %.0f right (%g%%)</p>"
                 "<p>You need %d of %.0f (%g%%) to pass. %s</p>",
              passed ? "quiz-pass" : "quiz-fail", passed ? ICON_RIGHT : ICON_WRONG, passed ? "Passed" : "Not passed yet",
              score, total, pct, ui_quiz_needed(pass_pct, (int)total), total, pass_pct,
              passed ? "Well done: read the explanations below for anything you guessed."
                     : "Read the explanations below, then try again: the options come in a new order.");
  if (offline)
    ui_buf_raw(b, "<p class=\"quiz-offline\"><span class=\"badge badge-sim badge-small\">scored offline</span> "
                  "The server could not be reached, so your answers were checked in this browser against the "
                  "lesson's sealed answer key. Offline scoring is on your honour: it is for your own practice and "
                  "counts for no class.</p>");
  ui_buf_raw(b, "<p class=\"quiz-retry\"><button type=\"button\" class=\"button\" data-action=\"quiz-retry\">"
                "Retry the quiz</button></p></div></div><ol class=\"quiz-review\">");
  cJSON_ArrayForEach(r, ui_json_arr(result, "questions")) review_item(b, quiz, r);
  ui_buf_raw(b, "</ol>");
}
