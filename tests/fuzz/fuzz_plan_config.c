/* libFuzzer: the training planner's inputs (lab/plan/plan_config.c,
 * plan_settings.c): any bytes, up to the 64 KiB a settings document may be,
 * read as JSON two ways: as a pasted Hugging Face config.json inside
 * settings, and as a whole settings document. Either is refused with a
 * coded error that says what was wrong, or planned: the whole answer, with
 * finite figures and the counters in order. The seeds are real config.json
 * files (corpus/plan_config/SOURCES) and settings written for the harness. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void plan(cJSON *req) {
  lab_error err = {0};
  cJSON *a = lab_plan(req, &err);
  if (!a) {
    if (err.code == LAB_OK || !err.message[0]) abort(); /* a refusal has a code and says why */
    return;
  }
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(a, "memory");
  double alloc = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "allocated_bytes"));
  double res = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "reserved_bytes"));
  double dev = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "device_bytes"));
  double step = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(a, "step_ms"));
  if (!isfinite(alloc) || !isfinite(res) || !isfinite(dev) || !isfinite(step)) abort();
  if (alloc <= 0 || res < alloc || dev < res || step <= 0) abort();
  cJSON_Delete(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > LAB_PLAN_MAX_BYTES) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  cJSON *doc = cJSON_Parse(text);
  free(text);
  if (!doc) return 0;
  /* a pasted config.json, planned at a small size */
  cJSON *req = cJSON_Parse("{\"seq\":128,\"batch\":1}");
  if (!req) abort();
  cJSON_AddItemReferenceToObject(req, "config", doc);
  plan(req);
  cJSON_Delete(req);
  /* the whole settings document; big sequences and batches are planned as
   * they are (the planner's cost does not grow with them) */
  plan(doc);
  cJSON_Delete(doc);
  return 0;
}
