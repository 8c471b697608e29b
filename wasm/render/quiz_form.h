/* The lesson quiz as HTML: the form (options shuffled per attempt with a
 * seeded PRNG, a fieldset per question, radios or checkboxes) and the review
 * after an attempt (score, pass/fail, right answers, explanations). Plain C:
 * the bridge-facing controller is quiz_app.c. */
#ifndef UI_QUIZ_FORM_H
#define UI_QUIZ_FORM_H

#include <stdbool.h>
#include <stdint.h>

#include "cjson_compat.h"
#include "html.h"

#define UI_QUIZ_MAX_OPTIONS 16 /* lab/quiz/quiz.c bounds an answer to 16 choices */

/* true when quiz looks like the public quiz of a bundle:
 * {"pass_pct","questions":[{"id","prompt","multi","options":[{"id","text"}]}]}. */
bool ui_quiz_valid(const cJSON *quiz);
/* The smallest number of right answers that passes (100*k >= pass_pct*total). */
int ui_quiz_needed(double pass_pct, int total);

/* The display order of n options (n <= UI_QUIZ_MAX_OPTIONS) of question qid
 * for an attempt seed: a Fisher-Yates shuffle, so the same seed and question
 * give the same order, and each question is shuffled differently. */
void ui_quiz_order(uint64_t seed, const char *qid, int n, int order[]);

/* The form; inputs are named by question id and valued by option id, inside
 * <form id="quiz-form">. A NULL or invalid quiz gives a short message. */
void ui_render_quiz_form(ui_buf *b, const cJSON *quiz, uint64_t seed);

/* From the checked inputs the bridge reports ({"q1":["b"],…}, any junk),
 * the answers body for lab_quiz_score / the server: every question of quiz
 * with the known option ids chosen for it ([] when none). Caller owns. */
cJSON *ui_quiz_answers(const cJSON *quiz, const cJSON *checked);
/* How many questions of answers (from ui_quiz_answers) have no choice;
 * their 1-based numbers go into list (n bytes) as text, e.g. "3, 7". */
int ui_quiz_unanswered(const cJSON *quiz, const cJSON *answers, char *list, int n);

/* The review of an attempt. result: lab_quiz_score's / the server's answer.
 * offline: it was scored in the browser with the offline bundle's key. */
void ui_render_quiz_result(ui_buf *b, const cJSON *quiz, const cJSON *result, bool offline);
/* true when result has the fields the review needs. */
bool ui_quiz_result_valid(const cJSON *result);

#endif
