/* The OpenAPI document (see openapi.h). The JSON file is embedded with the
 * assembler's .incbin (the build runs from the repository root; the
 * Makefile makes this object depend on the file), parsed once, completed
 * from the error table and the registry, and copied for each request. */
#include "openapi.h"

#include <civetweb.h>
#include <pthread.h>
#include <string.h>

#include "error.h"
#include "http.h"
#include "json.h"
#include "registry.h"
#include "runner.h"

__asm__(".section .rodata\n"
        ".global srv_openapi_text\n"
        "srv_openapi_text:\n"
        ".incbin \"server/api/openapi.json\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char srv_openapi_text[];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cJSON *doc;

/* Replaces the schema's "enum" with the given strings. */
static int set_enum(cJSON *schemas, const char *name, const char *const *values, int n) {
  cJSON *schema = cJSON_GetObjectItemCaseSensitive(schemas, name);
  cJSON *list = n >= 0 ? cJSON_CreateStringArray(values, n) : NULL;
  if (!schema || !list) {
    cJSON_Delete(list);
    return -1;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(schema, "enum");
  return cJSON_AddItemToObject(schema, "enum", list) ? 0 : -1;
}

static void build(void) {
  cJSON *d = lab_json_parse(srv_openapi_text, strlen(srv_openapi_text), LAB_JSON_MAX_DEPTH, NULL);
  cJSON *info = cJSON_GetObjectItemCaseSensitive(d, "info");
  cJSON *schemas = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "components"), "schemas");
  const char *codes[LAB_ERR_COUNT], *names[64];
  int n_codes = 0, n_names = 0;
  for (int i = 1; i < LAB_ERR_COUNT; i++) codes[n_codes++] = lab_err_code((lab_err)i); /* not "ok" */
  for (int i = 0; i < lab_experiment_count() && n_names < 64; i++) names[n_names++] = lab_experiment_at(i)->name;
  if (!info || !schemas || !cJSON_ReplaceItemInObjectCaseSensitive(info, "version", cJSON_CreateString(GPULAB_VERSION)) ||
      set_enum(schemas, "ErrorCode", codes, n_codes) != 0 || set_enum(schemas, "ExperimentName", names, n_names) != 0) {
    cJSON_Delete(d);
    d = NULL;
  }
  doc = d;
}

cJSON *srv_openapi_document(void) {
  pthread_once(&once, build);
  return doc ? cJSON_Duplicate(doc, 1) : NULL;
}

int srv_api_openapi(struct mg_connection *conn, void *app) {
  (void)app;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  cJSON *d = srv_openapi_document();
  if (!d) return srv_send_fail(conn, LAB_E_INTERNAL, NULL, "the built-in OpenAPI document is damaged; rebuild gpulab");
  int rc = srv_send_json(conn, 200, d);
  cJSON_Delete(d);
  return rc;
}
