/* libFuzzer: the lesson compiler's quiz input (a lesson's quiz.json), the
 * way lessonc reads it: parsed, checked (lab_quiz_check), the offending
 * node given its line (tools/lesson_jsonpos.c), and split into the public
 * questions and the answer key, which must then score an empty attempt. */
#include <stdint.h>
#include <stdlib.h>

#include "cjson_compat.h"
#include "json.h"
#include "lesson.h"
#include "quiz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  cJSON *quiz = lab_json_parse(text, size, LAB_JSON_MAX_DEPTH, NULL);
  if (!quiz) return 0;
  const cJSON *where = NULL;
  lab_error err = {0};
  lesson_jsonpos *map = lesson_jsonpos_build(text, size, quiz);
  if (lab_quiz_check(quiz, &where, &err) != 0) {
    int line = map ? lesson_jsonpos_line(map, where ? where : quiz) : 1;
    if (line < 1) abort();
  } else {
    cJSON *pub = lab_quiz_public(quiz), *key = lab_quiz_key(quiz, "fuzz");
    cJSON *none = cJSON_CreateObject(), *result = NULL;
    if (!pub || !key || !none) abort();
    if (lab_quiz_score(key, none, &result, &err) != 0) abort(); /* an empty attempt is scorable: all wrong */
    cJSON_Delete(result);
    cJSON_Delete(none);
    cJSON_Delete(key);
    cJSON_Delete(pub);
  }
  lesson_jsonpos_free(map);
  cJSON_Delete(quiz);
  return 0;
}
