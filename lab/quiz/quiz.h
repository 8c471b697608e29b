/* Lesson quizzes: validating a quiz source (lessons/ID/quiz.json), splitting
 * it into the public questions and the server-only answer key, and scoring
 * an attempt against the key. Compiled natively (lesson compiler, server)
 * and with emcc (offline scoring in the browser), so plain C + cJSON only. */
#ifndef LAB_QUIZ_H
#define LAB_QUIZ_H

#include "error.h"

#define LAB_QUIZ_ID_MAX 32 /* question and option ids: [a-z0-9_-], 1..32 chars */

/* Checks a quiz source: {"pass_pct":75,"questions":[{"id","prompt","multi",
 * "options":[{"id","text"}],"correct":[…],"explanation"}]}. Returns 0, or -1
 * with err set (invalid_param) and *where set to the offending node (a
 * question, a field, an option) so a caller holding the text can name its
 * line. where may be NULL. */
int lab_quiz_check(const cJSON *quiz, const cJSON **where, lab_error *err);

/* From a checked source: {"pass_pct","questions":[{"id","prompt","multi",
 * "options":[{"id","text"}]}]} with no answers in it. Caller owns; NULL on
 * out-of-memory. */
cJSON *lab_quiz_public(const cJSON *quiz);

/* From a checked source: {"id":lesson_id,"pass_pct","answers":{"q1":
 * {"correct":["b"],"explanation":…}}}. Caller owns; NULL on out-of-memory. */
cJSON *lab_quiz_key(const cJSON *quiz, const char *lesson_id);

/* Scores answers ({"q1":["b"],…}; a question left out counts as wrong)
 * against a key from lab_quiz_key or lab_quiz_seal (quiz_seal.h). With a
 * sealed key a wrong question has no "answer" nor "explanation" but
 * "sealed":true: the learner may ask to reveal it (lab_quiz_reveal). *result (caller owns) becomes
 * {"score","total","pct","passed","pass_pct","questions":[{"id","correct",
 * "your","answer","explanation"}]}. Passing means pct >= pass_pct. Unknown
 * question ids, non-array answers and non-string or repeated choices fail
 * with invalid_param; a malformed key fails with internal. */
int lab_quiz_score(const cJSON *key, const cJSON *answers, cJSON **result, lab_error *err);

#endif
