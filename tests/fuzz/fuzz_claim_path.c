/* libFuzzer: a lesson claim's path (lab/compare/claim_path.c), the way lessonc
 * checks it and claimcheck reads it: any text, with or without an @RUN.
 * prefix and `$`, checked for syntax and walked through an envelope with
 * metrics, series of [x, y] points, findings and nested details. A path the
 * check accepts must walk without a crash, and either name a node or say why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "claim_path.h"
#include "cjson_compat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char envelope[] =
    "{\"backend\":\"simulated\",\"metrics\":{\"step_ms\":0.84,\"gpu_idle_pct\":63.7},"
    "\"series\":[{\"id\":\"cpu\",\"points\":[[16,0.0001],[64,0.004]]},{\"id\":\"gpu\",\"points\":[[16,0.01],[64,0.011]]}],"
    "\"findings\":[\"one\",\"two\"],\"details\":{\"oom\":{\"fixes\":[\"Smaller batch\"],\"step\":\"forward\"}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 400) return 0;
  char path[401], why[256], run[40];
  memcpy(path, data, size);
  path[size] = '\0';
  static cJSON *env;
  if (!env && !(env = cJSON_Parse(envelope))) abort();
  const char *rest;
  if (lab_claim_path_check(path, why, sizeof why) != 0) {
    if (!why[0]) abort(); /* a refusal always says why */
    return 0;
  }
  if (lab_claim_path_run(path, run, sizeof run, &rest) != 0) abort(); /* the check accepted the prefix */
  why[0] = '\0';
  const cJSON *at = lab_claim_path_get(env, rest, 16, why, sizeof why);
  if (!at && !why[0]) abort();
  return 0;
}
