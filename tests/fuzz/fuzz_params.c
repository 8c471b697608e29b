/* libFuzzer: an experiment's parameters as a client sends them, through
 * the one validation path every caller uses (lab_experiment_params: each
 * value against its spec, then the experiment's cross-parameter check)
 * and written back (lab_params_to_json). The first byte picks the
 * experiment; the rest is the "params" JSON. Any input: no crash, no leak;
 * accepted values are finite. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cjson_compat.h"
#include "json.h"
#include "params.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const lab_experiment *e = lab_experiment_at(data[0] % lab_experiment_count());
  cJSON *json = lab_json_parse((const char *)data + 1, size - 1, LAB_JSON_MAX_DEPTH, NULL);
  lab_params p;
  lab_error err = {0};
  if (lab_experiment_params(e, json, &p, &err) == 0) {
    cJSON *back = lab_params_to_json(&p);
    if (!back) abort();
    for (const cJSON *it = back->child; it; it = it->next)
      if (cJSON_IsNumber(it) && !isfinite(it->valuedouble)) abort();
    cJSON_Delete(back);
  } else if (err.code != LAB_E_INVALID_PARAM && err.code != LAB_E_OVER_MEMORY_LIMIT) {
    abort(); /* bad input is always invalid_param (or, for a device, too much memory) */
  }
  cJSON_Delete(json);
  return 0;
}
