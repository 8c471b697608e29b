/* The page's import of a kit file (kit_run.h): lab_kit_read, then
 * lab_compare_with keeping the predictions, on the same C as `gpulab
 * compare`. It runs in the simulation module, which has the simulators the
 * predictions need; the UI module only draws the answer. */
#include "kit_run.h"

#include <string.h>

#include "compare.h"
#include "json.h"
#include "kit_file.h"

int ui_kit_run(const char *text, size_t len, const char *claims, char **out) {
  lab_error err;
  cJSON *kit, *report = NULL, *answer = NULL;
  memset(&err, 0, sizeof err);
  *out = NULL;
  kit = lab_kit_read(text, len, &err);
  cJSON *cl = kit && claims && claims[0] ? lab_json_parse(claims, strlen(claims), LAB_JSON_MAX_DEPTH, NULL) : NULL;
  if (kit && lab_compare_with(kit, cl, NULL, LAB_COMPARE_PREDICTIONS, &report, &err) == 0 &&
      (answer = cJSON_CreateObject())) {
    cJSON_AddItemToObject(answer, "kit", kit);
    cJSON_AddItemToObject(answer, "compare", report);
    kit = report = NULL;
  } else if (!err.code) {
    lab_fail(&err, LAB_E_NOMEM, NULL, "the browser ran out of memory while comparing the file");
  }
  cJSON_Delete(cl);
  cJSON_Delete(kit);
  cJSON_Delete(report);
  int status = answer ? 200 : lab_err_http_status(err.code);
  if (!answer) answer = lab_error_json(&err);
  if (answer) *out = cJSON_PrintUnformatted(answer);
  cJSON_Delete(answer);
  return status;
}
