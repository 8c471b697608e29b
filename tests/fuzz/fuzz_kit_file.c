/* libFuzzer: any bytes given to `gpulab compare` (or, later, the page) as a
 * measurement kit file (lab/compare/kit_file.h): no crash, no leak; either
 * one of the kit's three error codes, or a document whose every result is
 * an envelope of a known experiment, and on which every physical check
 * runs (lab/compare/plausible.h) against a profile and without one, and
 * whose plan run, if any, is reported (lab/compare/kit_plan.h). The
 * simulations of `gpulab compare` are left out: they take tenths of a
 * second and are the simulator's, fuzzed by their parameters elsewhere. */
#include <stdint.h>
#include <stdlib.h>

#include "cjson_compat.h"
#include "kit_file.h"
#include "kit_plan.h"
#include "plausible.h"
#include "profiles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lab_error err = {0};
  cJSON *kit = lab_kit_read((const char *)data, size, &err);
  if (!kit) {
    if (err.code != LAB_E_KIT_TOO_LARGE && err.code != LAB_E_KIT_NOT_JSON && err.code != LAB_E_KIT_INVALID) abort();
    return 0;
  }
  const cJSON *env, *m;
  char why[400];
  cJSON_ArrayForEach(env, cJSON_GetObjectItemCaseSensitive(kit, "results")) {
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(env, "experiment");
    if (!cJSON_IsString(exp)) abort(); /* the reader let an envelope without its experiment through */
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(env, "metrics")) {
      lab_plausible_check(exp->valuestring, m->string, env, lab_profile_find("t4"), why, sizeof why);
      lab_plausible_check(exp->valuestring, m->string, env, NULL, why, sizeof why);
    }
  }
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(kit, "plan_run");
  if (cJSON_IsObject(pr)) cJSON_Delete(lab_kit_plan_report(pr)); /* a plan run the reader let through is reported */
  lab_kit_result(kit, "transfer");
  lab_kit_kind(kit);
  cJSON_Delete(kit);
  return 0;
}
