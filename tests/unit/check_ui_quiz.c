/* The quiz form and progress keeping (wasm/render/quiz_form.c, progress.c),
 * natively: seeded shuffles, keyboard-ready markup, answers from the checked
 * inputs, the review after an attempt scored by lab_quiz_score, and
 * progress that survives anything localStorage may hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiz.h"
#include "cjson_compat.h"
#include "suites.h"
#include "progress.h"
#include "quiz_form.h"

#define ck_has(html, text) ck_assert_msg(strstr(html, text) != NULL, "missing \"%s\" in: %s", text, html)
#define ck_lacks(html, text) ck_assert_msg(strstr(html, text) == NULL, "unexpected \"%s\" in: %s", text, html)

/* Three questions, one multi-answer; pass at 2 of 3 (66.7 %). */
static const char SOURCE[] =
    "{\"pass_pct\":66,\"questions\":["
    "{\"id\":\"q1\",\"prompt\":\"Which <b>clock</b>?\",\"options\":[{\"id\":\"a\",\"text\":\"host\"},"
    "{\"id\":\"b\",\"text\":\"events & sync\"},{\"id\":\"c\",\"text\":\"none\"},{\"id\":\"d\",\"text\":\"wall\"}],"
    "\"correct\":[\"b\"],\"explanation\":\"Events time the GPU.\"},"
    "{\"id\":\"q2\",\"prompt\":\"Which wait?\",\"multi\":true,\"options\":[{\"id\":\"a\",\"text\":\"item()\"},"
    "{\"id\":\"b\",\"text\":\"cpu()\"},{\"id\":\"c\",\"text\":\"x @ x\"}],\"correct\":[\"a\",\"b\"],"
    "\"explanation\":\"Reading back waits.\"},"
    "{\"id\":\"q3\",\"prompt\":\"Bytes per param?\",\"options\":[{\"id\":\"a\",\"text\":\"4\"},"
    "{\"id\":\"b\",\"text\":\"16\"}],\"correct\":[\"b\"],\"explanation\":\"4+4+8.\"}]}";

static cJSON *source, *pub, *key;

static void setup(void) {
  lab_error err;
  source = cJSON_Parse(SOURCE);
  ck_assert_int_eq(lab_quiz_check(source, NULL, &err), 0);
  pub = lab_quiz_public(source);
  key = lab_quiz_key(source, "one");
  ck_assert_ptr_nonnull(pub);
  ck_assert_ptr_nonnull(key);
}

static void teardown(void) {
  cJSON_Delete(source);
  cJSON_Delete(pub);
  cJSON_Delete(key);
}

static char *form(uint64_t seed) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_quiz_form(&b, pub, seed);
  char *s = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  return s;
}

/* The option ids of question qid in the order the form shows them. */
static void shown_order(const char *html, const char *qid, char *out, size_t n) {
  char needle[64];
  size_t used = 0;
  snprintf(needle, sizeof needle, "name=\"%s\" value=\"", qid);
  for (const char *p = strstr(html, needle); p && used + 2 < n; p = strstr(p + 1, needle)) {
    out[used++] = p[strlen(needle)];
  }
  out[used] = '\0';
}

START_TEST(quiz_order_is_a_permutation_fixed_by_the_seed) {
  int a[8], b[8], seen[8] = {0};
  ui_quiz_order(42, "q1", 8, a);
  ui_quiz_order(42, "q1", 8, b);
  ck_assert_mem_eq(a, b, sizeof a);
  for (int i = 0; i < 8; i++) seen[a[i]]++;
  for (int i = 0; i < 8; i++) ck_assert_int_eq(seen[i], 1);
}
END_TEST

START_TEST(quiz_order_changes_with_the_seed_and_the_question) {
  int first[8], other[8];
  int seed_differs = 0, question_differs = 0;
  ui_quiz_order(1, "q1", 8, first);
  for (uint64_t s = 2; s < 12; s++) {
    ui_quiz_order(s, "q1", 8, other);
    seed_differs += memcmp(first, other, sizeof first) != 0;
  }
  for (int q = 2; q < 12; q++) {
    char id[16];
    snprintf(id, sizeof id, "q%d", q);
    ui_quiz_order(1, id, 8, other);
    question_differs += memcmp(first, other, sizeof first) != 0;
  }
  /* 8! orders: a repeat is possible but not ten times in a row. */
  ck_assert_int_ge(seed_differs, 9);
  ck_assert_int_ge(question_differs, 9);
}
END_TEST

START_TEST(quiz_form_shuffles_options_per_attempt_seed) {
  char *one = form(7), *same = form(7);
  char o1[8], o2[8];
  int differs = 0;
  ck_assert_str_eq(one, same);
  shown_order(one, "q1", o1, sizeof o1);
  ck_assert_int_eq((int)strlen(o1), 4);
  for (uint64_t s = 8; s < 18; s++) {
    char *other = form(s);
    shown_order(other, "q1", o2, sizeof o2);
    differs += strcmp(o1, o2) != 0;
    free(other);
  }
  ck_assert_int_ge(differs, 5);
  free(one);
  free(same);
}
END_TEST

START_TEST(quiz_form_is_keyboard_ready_with_fieldsets_and_labels) {
  char *html = form(3);
  ck_has(html, "<form id=\"quiz-form\"");
  ck_has(html, "<fieldset class=\"quiz-q\" id=\"quiz-q-q1\"><legend>");
  ck_has(html, "Question 1 of 3");
  ck_has(html, "<label class=\"quiz-option\" for=\"quiz-q1-b\"><input type=\"radio\" id=\"quiz-q1-b\" name=\"q1\" value=\"b\">");
  ck_has(html, "<input type=\"checkbox\" id=\"quiz-q2-a\" name=\"q2\" value=\"a\">");
  ck_has(html, "Choose every answer that applies.");
  ck_has(html, "<button type=\"submit\" class=\"button\" data-action=\"quiz-submit\">");
  ck_has(html, "You pass with 2 right");
  ck_has(html, "role=\"status\"");
  free(html);
}
END_TEST

START_TEST(quiz_form_escapes_prompts_and_options) {
  char *html = form(3);
  ck_has(html, "Which &lt;b&gt;clock&lt;/b&gt;?");
  ck_has(html, "events &amp; sync");
  ck_lacks(html, "<b>clock");
  free(html);
}
END_TEST

START_TEST(quiz_form_never_contains_the_answers) {
  char *html = form(3);
  ck_lacks(html, "Events time the GPU");
  ck_lacks(html, "correct");
  free(html);
}
END_TEST

START_TEST(quiz_form_explains_a_missing_quiz) {
  ui_buf b;
  cJSON *bad = cJSON_Parse("{\"pass_pct\":75,\"questions\":[{\"id\":\"Q 1\",\"prompt\":\"x\",\"options\":[]}]}");
  ui_buf_init(&b);
  ui_render_quiz_form(&b, bad, 1);
  ck_has(ui_buf_str(&b), "make lessons");
  ck_lacks(ui_buf_str(&b), "<form");
  ui_buf_free(&b);
  ui_buf_init(&b);
  ui_render_quiz_form(&b, NULL, 1);
  ck_has(ui_buf_str(&b), "no quiz");
  ui_buf_free(&b);
  cJSON_Delete(bad);
}
END_TEST

START_TEST(quiz_needs_seven_of_nine_at_75_pct) {
  ck_assert_int_eq(ui_quiz_needed(75, 9), 7);
  ck_assert_int_eq(ui_quiz_needed(75, 4), 3);
  ck_assert_int_eq(ui_quiz_needed(100, 9), 9);
  ck_assert_int_eq(ui_quiz_needed(66, 3), 2);
}
END_TEST

START_TEST(quiz_answers_keep_known_choices_and_fill_every_question) {
  cJSON *checked = cJSON_Parse("{\"q1\":[\"b\",\"c\"],\"q2\":[\"a\",\"zz\",\"a\",7],\"nope\":[\"a\"]}");
  cJSON *ans = ui_quiz_answers(pub, checked);
  char *text = cJSON_PrintUnformatted(ans);
  /* q1 is single-choice: only the first choice counts. */
  ck_assert_str_eq(text, "{\"q1\":[\"b\"],\"q2\":[\"a\"],\"q3\":[]}");
  char list[32];
  ck_assert_int_eq(ui_quiz_unanswered(pub, ans, list, sizeof list), 1);
  ck_assert_str_eq(list, "3");
  cJSON_free(text);
  cJSON_Delete(ans);
  cJSON_Delete(checked);
}
END_TEST

START_TEST(quiz_answers_from_junk_are_all_empty) {
  cJSON *junk = cJSON_Parse("[1,2]");
  cJSON *ans = ui_quiz_answers(pub, junk);
  char list[32];
  ck_assert_int_eq(ui_quiz_unanswered(pub, ans, list, sizeof list), 3);
  ck_assert_str_eq(list, "1, 2, 3");
  cJSON_Delete(ans);
  cJSON_Delete(junk);
}
END_TEST

static char *review(const char *checked_json, bool offline, bool *passed) {
  lab_error err;
  cJSON *result = NULL, *checked = cJSON_Parse(checked_json), *ans = ui_quiz_answers(pub, checked);
  ui_buf b;
  ck_assert_int_eq(lab_quiz_score(key, ans, &result, &err), 0);
  ck_assert(ui_quiz_result_valid(result));
  *passed = cJSON_IsTrue(cJSON_GetObjectItem(result, "passed"));
  ui_buf_init(&b);
  ui_render_quiz_result(&b, pub, result, offline);
  char *s = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  cJSON_Delete(result);
  cJSON_Delete(ans);
  cJSON_Delete(checked);
  return s;
}

START_TEST(quiz_review_of_a_pass_shows_score_and_explanations) {
  bool passed;
  char *html = review("{\"q1\":[\"b\"],\"q2\":[\"a\",\"b\"],\"q3\":[\"a\"]}", false, &passed);
  ck_assert(passed);
  ck_has(html, "quiz-pass");
  ck_has(html, "Passed — 2 of 3 right");
  ck_has(html, "You need 2 of 3");
  ck_has(html, "id=\"quiz-review-q3\"");
  ck_has(html, "Correct answer</dt><dd><span class=\"quiz-choices\"><span class=\"quiz-choice\">16</span>");
  ck_has(html, "Why: </span>4+4+8.");
  ck_has(html, "data-action=\"quiz-retry\"");
  ck_lacks(html, "scored offline");
  free(html);
}
END_TEST

START_TEST(quiz_review_of_a_fail_marks_each_question_and_offline) {
  bool passed;
  char *html = review("{\"q1\":[\"a\"],\"q2\":[\"a\"]}", true, &passed);
  ck_assert(!passed);
  ck_has(html, "quiz-fail");
  ck_has(html, "Not passed yet — 0 of 3 right");
  ck_has(html, "scored offline");
  ck_has(html, "<em>no answer</em>");
  ck_lacks(html, "is-right");
  ck_has(html, "<span class=\"quiz-choice\">item()</span><span class=\"quiz-choice\">cpu()</span>");
  free(html);
}
END_TEST

START_TEST(quiz_review_of_a_damaged_result_offers_retry) {
  ui_buf b;
  cJSON *bad = cJSON_Parse("{\"score\":\"x\"}");
  ui_buf_init(&b);
  ui_render_quiz_result(&b, pub, bad, false);
  ck_has(ui_buf_str(&b), "could not be read");
  ck_has(ui_buf_str(&b), "quiz-retry");
  ui_buf_free(&b);
  cJSON_Delete(bad);
}
END_TEST

/* ---- progress ------------------------------------------------------------------ */

static const char BUNDLE[] =
    "{\"id\":\"one\",\"title\":\"One\",\"sections\":[{\"id\":\"intro\"},{\"id\":\"timing\"},{\"id\":\"memory\"}]}";

START_TEST(progress_round_trips_through_json) {
  ui_progress p, back;
  ui_attempt a = {.set = true, .score = 6, .total = 9, .passed = false, .offline = true, .date = "2026-11-22 10:00 UTC"};
  ui_attempt b = {.set = true, .score = 8, .total = 9, .passed = true, .date = "2026-11-22 11:00 UTC"};
  ui_progress_parse(NULL, &p);
  ck_assert(ui_progress_mark_read(&p, "intro"));
  ck_assert(!ui_progress_mark_read(&p, "intro"));
  ui_progress_record(&p, &a);
  ui_progress_record(&p, &b);
  ui_progress_record(&p, &a);
  char *text = ui_progress_json(&p);
  ui_progress_parse(text, &back);
  cJSON_free(text);
  ck_assert_int_eq(back.n_read, 1);
  ck_assert(ui_progress_is_read(&back, "intro"));
  ck_assert_int_eq(back.attempts, 3);
  ck_assert_int_eq(back.best.score, 8);
  ck_assert(back.best.passed && !back.best.offline);
  ck_assert_int_eq(back.last.score, 6);
  ck_assert(back.last.offline);
  ck_assert_str_eq(back.last.date, "2026-11-22 10:00 UTC");
}
END_TEST

START_TEST(progress_ignores_junk_from_storage) {
  ui_progress p;
  const char *junk[] = {"", "not json", "[1]", "{\"read\":\"intro\"}", "{\"read\":[\"Bad Id\",5,\"ok\"],"
                        "\"best\":{\"score\":12,\"total\":9},\"last\":{\"score\":-1,\"total\":9},\"attempts\":-4}"};
  for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
    ui_progress_parse(junk[i], &p);
    ck_assert(!p.best.set && !p.last.set);
    ck_assert_int_eq(p.attempts, 0);
    ck_assert_int_le(p.n_read, 1);
  }
  ck_assert(ui_progress_is_read(&p, "ok"));
}
END_TEST

START_TEST(progress_counts_only_the_lesson_sections) {
  ui_progress p;
  int total;
  cJSON *bundle = cJSON_Parse(BUNDLE);
  ui_progress_parse("{\"read\":[\"intro\",\"gone\",\"memory\"]}", &p);
  ck_assert_int_eq(ui_progress_read_count(&p, bundle, &total), 2);
  ck_assert_int_eq(total, 3);
  cJSON_Delete(bundle);
}
END_TEST

START_TEST(progress_nav_says_sections_read_and_quiz_result) {
  ui_progress p;
  ui_buf b;
  char text[64];
  cJSON *bundle = cJSON_Parse(BUNDLE);
  ui_progress_parse("{\"read\":[\"intro\"]}", &p);
  ck_assert_str_eq(ui_progress_quiz_text(&p, text, sizeof text), "Quiz: not taken yet");
  ui_attempt a = {.set = true, .score = 6, .total = 9};
  ui_progress_record(&p, &a);
  ck_assert_str_eq(ui_progress_quiz_text(&p, text, sizeof text), "Quiz: best 6/9, not passed yet");
  ui_attempt pass = {.set = true, .score = 8, .total = 9, .passed = true};
  ui_progress_record(&p, &pass);
  ui_buf_init(&b);
  ui_render_progress_nav(&b, &p, bundle);
  ck_has(ui_buf_str(&b), "1 of 3 sections read");
  ck_has(ui_buf_str(&b), "progress-30");
  ck_has(ui_buf_str(&b), "<a href=\"#lesson/one/quiz\">Quiz: passed 8/9</a>");
  ck_has(ui_buf_str(&b), "Last attempt: 8/9");
  ck_has(ui_buf_str(&b), "#lesson/one/report");
  ui_buf_free(&b);
  cJSON_Delete(bundle);
}
END_TEST

Suite *make_ui_quiz_suite(void) {
  Suite *s = suite_create("ui_quiz");
  TCase *tc = tcase_create("quiz");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, quiz_order_is_a_permutation_fixed_by_the_seed);
  tcase_add_test(tc, quiz_order_changes_with_the_seed_and_the_question);
  tcase_add_test(tc, quiz_form_shuffles_options_per_attempt_seed);
  tcase_add_test(tc, quiz_form_is_keyboard_ready_with_fieldsets_and_labels);
  tcase_add_test(tc, quiz_form_escapes_prompts_and_options);
  tcase_add_test(tc, quiz_form_never_contains_the_answers);
  tcase_add_test(tc, quiz_form_explains_a_missing_quiz);
  tcase_add_test(tc, quiz_needs_seven_of_nine_at_75_pct);
  tcase_add_test(tc, quiz_answers_keep_known_choices_and_fill_every_question);
  tcase_add_test(tc, quiz_answers_from_junk_are_all_empty);
  tcase_add_test(tc, quiz_review_of_a_pass_shows_score_and_explanations);
  tcase_add_test(tc, quiz_review_of_a_fail_marks_each_question_and_offline);
  tcase_add_test(tc, quiz_review_of_a_damaged_result_offers_retry);
  suite_add_tcase(s, tc);
  TCase *tp = tcase_create("progress");
  tcase_add_test(tp, progress_round_trips_through_json);
  tcase_add_test(tp, progress_ignores_junk_from_storage);
  tcase_add_test(tp, progress_counts_only_the_lesson_sections);
  tcase_add_test(tp, progress_nav_says_sections_read_and_quiz_result);
  suite_add_tcase(s, tp);
  return s;
}
