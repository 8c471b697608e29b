/* The quiz, progress and lab-report behaviour of the client: what app.c
 * calls at its few hook points. It talks to the page through bridge.h only:
 * POST /api/lessons/ID/quiz, and when the server cannot be reached the
 * offline bundle (/lessons/ID.offline.json) scored in the browser; progress
 * in localStorage; the report offered as a download. */
#ifndef UI_QUIZ_APP_H
#define UI_QUIZ_APP_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "html.h"
#include "gpu_panel.h"

/* localStorage keys: the learner's progress per lesson and an optional
 * fixed shuffle seed (tests; a decimal number). */
#define UI_STORE_PROGRESS "gpulab.progress."
#define UI_STORE_QUIZ_SEED "gpulab.quiz.seed"

/* Each of these takes the lesson app.c shows and keeps a pointer to it
 * until ui_quiz_app_release. Appends the quiz and the lab-report sections
 * after a lesson's sections (ids sec-quiz and sec-report, so #lesson/ID/quiz routes to them). */
void ui_quiz_app_tail(ui_buf *b, const cJSON *lesson);
/* Appends the progress block to the lesson nav (nothing without a lesson). */
void ui_quiz_app_nav(ui_buf *b, const cJSON *lesson);
/* The learner went to a section (by the nav or the address): it is read. */
void ui_quiz_app_visit(const cJSON *lesson, const char *section_id);
/* Handles the quiz and report actions ("quiz-submit", "quiz-retry",
 * "report-download", "section-seen"); false for any other action.
 * version: the server's, or NULL when it did not answer. */
bool ui_quiz_app_action(const char *action, const char *arg, const ui_device_state *device, const char *version);
/* lesson, which the quiz keeps a pointer to (not a copy), is about to be
 * freed: the quiz lets go of it and keeps the attempt for when the same
 * lesson comes back. */
void ui_quiz_app_release(const cJSON *lesson);
void ui_quiz_app_shutdown(void);

#endif
