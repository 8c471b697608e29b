/* One simulation as text in and text out (sim_run.h): the same validation
 * and simulators the server runs, behind the message the UI module posts to
 * the simulation module. */
#include "sim_run.h"

#include <string.h>

#include "json.h"
#include "plan_run.h"
#include "profiles.h"
#include "registry.h"

int ui_sim_run(const char *experiment, const char *params_json, const char *profile, const char *profile_json,
               char **text) {
  lab_error err;
  cJSON *params = NULL, *env = NULL;
  int status = 200;
  memset(&err, 0, sizeof err);
  *text = NULL;
  if (experiment && strcmp(experiment, "plan") == 0) return ui_plan_run(params_json, text);
  if (profile_json && profile_json[0]) { /* a calibrated profile: it replaces any earlier one */
    cJSON *pj = lab_json_parse(profile_json, strlen(profile_json), LAB_JSON_MAX_DEPTH, NULL);
    lab_profile prof;
    lab_error perr;
    if (pj && lab_profile_from_json(pj, &prof, &perr) == 0) lab_profile_set_calibrated(&prof);
    cJSON_Delete(pj);
  }
  const lab_experiment *e = experiment ? lab_experiment_find(experiment) : NULL;
  if (params_json && params_json[0]) {
    params = lab_json_parse(params_json, strlen(params_json), LAB_JSON_MAX_DEPTH, NULL);
    if (!params) {
      lab_fail(&err, LAB_E_INVALID_JSON, "params", "the parameters are not JSON");
      status = 400;
    }
  }
  if (status == 200 && !e) {
    lab_fail(&err, LAB_E_UNKNOWN_EXPERIMENT, "experiment", "unknown experiment: %s", experiment ? experiment : "(none)");
    status = 400;
  }
  if (status == 200 && lab_simulate(e, params, profile && profile[0] ? profile : NULL, &env, &err) != 0) status = 400;
  cJSON_Delete(params);
  cJSON *out = status == 200 ? env : lab_error_json(&err);
  if (status != 200) cJSON_Delete(env);
  if (out) *text = cJSON_PrintUnformatted(out);
  cJSON_Delete(out);
  return status;
}
