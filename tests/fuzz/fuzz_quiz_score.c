/* libFuzzer: scoring a quiz attempt (lab/quiz/quiz.c) against an answer key.
 * The input is "KEY\0ANSWERS": both come from outside in some path (the
 * key from a built lesson, the answers from a learner), so both are
 * fuzzed. Any input: no crash, no leak; a score is between 0 and total. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "json.h"
#include "quiz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  const char *split = memchr(text, 0, size);
  size_t klen = split ? (size_t)(split - text) : size;
  cJSON *key = lab_json_parse(text, klen, LAB_JSON_MAX_DEPTH, NULL);
  cJSON *answers = split ? lab_json_parse(split + 1, size - klen - 1, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  cJSON *result = NULL;
  lab_error err = {0};
  if (key && answers && lab_quiz_score(key, answers, &result, &err) == 0) {
    double score = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "score"));
    double total = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "total"));
    if (!(score >= 0 && score <= total)) abort();
  }
  cJSON_Delete(result);
  cJSON_Delete(answers);
  cJSON_Delete(key);
  return 0;
}
