/* The error table's accessors and the JSON error envelope. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "utf8.h"

static const struct {
  const char *code;
  int status;
  const char *advice;
} table[] = {
#define LAB_X_ROW(id, code, status, advice) {code, status, advice},
    LAB_ERRORS(LAB_X_ROW)
#undef LAB_X_ROW
};

const char *lab_err_code(lab_err e) {
  return (unsigned)e < LAB_ERR_COUNT ? table[e].code : "internal";
}

int lab_err_http_status(lab_err e) {
  return (unsigned)e < LAB_ERR_COUNT ? table[e].status : 500;
}

const char *lab_err_advice(lab_err e) {
  return (unsigned)e < LAB_ERR_COUNT ? table[e].advice : table[LAB_E_INTERNAL].advice;
}

lab_err lab_err_from_code(const char *code) {
  for (int i = 0; code && i < LAB_ERR_COUNT; i++)
    if (strcmp(table[i].code, code) == 0) return (lab_err)i;
  return LAB_E_INTERNAL;
}

int lab_fail(lab_error *err, lab_err code, const char *param, const char *fmt, ...) {
  if (!err) return -1;
  err->code = code;
  snprintf(err->param, sizeof err->param, "%s", param ? param : "");
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  } else {
    snprintf(err->message, sizeof err->message, "%s", lab_err_advice(code));
  }
  /* Messages quote what a client sent, cut at a byte count ("%.40s"): the
   * cut can split a character, and an answer must still be valid JSON text. */
  lab_utf8_repair(err->param);
  lab_utf8_repair(err->message);
  return -1;
}

cJSON *lab_error_json(const lab_error *err) {
  cJSON *root = cJSON_CreateObject();
  cJSON *body = cJSON_AddObjectToObject(root, "error");
  if (!body) goto fail;
  if (!cJSON_AddStringToObject(body, "code", lab_err_code(err->code))) goto fail;
  if (!cJSON_AddStringToObject(body, "message", err->message[0] ? err->message : lab_err_advice(err->code)))
    goto fail;
  if (err->param[0] && !cJSON_AddStringToObject(body, "param", err->param)) goto fail;
  return root;
fail:
  cJSON_Delete(root);
  return NULL;
}

int lab_error_from_json(const cJSON *json, lab_error *err) {
  const cJSON *body = cJSON_GetObjectItemCaseSensitive(json, "error");
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(body, "code");
  const cJSON *msg = cJSON_GetObjectItemCaseSensitive(body, "message");
  const cJSON *param = cJSON_GetObjectItemCaseSensitive(body, "param");
  if (!cJSON_IsString(code) || !cJSON_IsString(msg)) return -1;
  lab_fail(err, lab_err_from_code(code->valuestring), cJSON_IsString(param) ? param->valuestring : NULL,
           "%s", msg->valuestring);
  return 0;
}
