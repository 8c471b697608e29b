/* libFuzzer: any bytes pasted into `gpulab explain` (lab/explain/explain.h): no
 * crash, no leak, no read past the text; either one of the explainer's
 * error codes or an envelope with 1..LAB_EXPLAIN_MAX_ITEMS items, each
 * with a kind, a diagnosis id and a lesson address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* a copy of exactly size bytes, so ASan sees any read past the end */
  char *text = malloc(size ? size : 1);
  if (!text) return 0;
  memcpy(text, data, size);
  lab_error err = {0};
  cJSON *env = lab_explain(text, size, &err);
  if (!env) {
    if (err.code != LAB_E_EXPLAIN_EMPTY && err.code != LAB_E_EXPLAIN_NOT_TEXT && err.code != LAB_E_EXPLAIN_TOO_LARGE)
      abort();
  } else {
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(env, "items"), *it;
    int n = cJSON_GetArraySize(items);
    if (n < 1 || n > LAB_EXPLAIN_MAX_ITEMS) abort();
    cJSON_ArrayForEach(it, items) {
      const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "diagnosis");
      const cJSON *l = cJSON_GetObjectItemCaseSensitive(it, "lesson");
      if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(it, "kind")) ||
          !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(d, "id")) ||
          !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(l, "href")))
        abort();
    }
    char *out = cJSON_PrintUnformatted(env); /* the answer must print (valid UTF-8 strings) */
    if (!out) abort();
    cJSON_free(out);
    cJSON_Delete(env);
  }
  free(text);
  return 0;
}
