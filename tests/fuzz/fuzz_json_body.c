/* libFuzzer: the JSON body reader every endpoint uses (server/http/http.c:
 * srv_json_object_parse), with its nesting pre-scan and strict UTF-8 and
 * single-value parse (lab/base/json.c), and the error envelope it answers with:
 * whatever the bytes, no crash, no leak, and every answer is one valid JSON
 * text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "error.h"
#include "http.h"
#include "json.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  static const char *const fields[] = {"params", "backend", "profile", NULL};
  cJSON *body = NULL;
  lab_error err = {0};
  int depth = lab_json_depth(text, size, LAB_JSON_MAX_DEPTH);
  if (depth < 0 || depth > LAB_JSON_MAX_DEPTH + 1) abort();
  if (srv_json_object_parse(text, size, fields, 1, "{\"params\":{}}", &body, &err) == 0) {
    if (!cJSON_IsObject(body)) abort();
  } else {
    /* The error envelope quotes the input: it must print, and be UTF-8. */
    cJSON *env = lab_error_json(&err);
    char *out = env ? cJSON_PrintUnformatted(env) : NULL;
    if (out && !lab_utf8_valid(out, strlen(out), NULL)) abort();
    cJSON_free(out);
    cJSON_Delete(env);
  }
  cJSON_Delete(body);
  return 0;
}
