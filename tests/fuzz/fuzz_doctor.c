/* libFuzzer: any bytes given to `gpulab doctor` as a trace (lab/doctor/doctor.h),
 * fed in chunks whose size the first byte picks (the streaming reader must
 * resume anywhere): no crash, no leak, no read past a chunk; either one of
 * the doctor's error codes or an envelope whose findings each have an id,
 * a lesson address and an experiment, and which prints. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "doctor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int allowed(lab_err e) {
  return e == LAB_E_DOCTOR_NOT_TRACE || e == LAB_E_DOCTOR_TRUNCATED || e == LAB_E_DOCTOR_BAD_NUMBER ||
         e == LAB_E_DOCTOR_NO_EVENTS || e == LAB_E_DOCTOR_NAME_TOO_LONG;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t chunk = size ? (size_t)data[0] % 64 + 1 : 1;
  lab_doctor *d = lab_doctor_new();
  if (!d) return 0;
  lab_error err = {0};
  int failed = 0;
  for (size_t i = 0; i < size && !failed; i += chunk) {
    size_t n = size - i < chunk ? size - i : chunk;
    char *c = malloc(n); /* exactly n bytes, so ASan sees any read past the chunk */
    if (!c) break;
    memcpy(c, data + i, n);
    failed = lab_doctor_feed(d, c, n, &err) != 0;
    free(c);
  }
  cJSON *env = failed ? NULL : lab_doctor_finish(d, &err);
  lab_doctor_free(d);
  if (!env) {
    if (!allowed(err.code)) abort();
    return 0;
  }
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(f, "lesson"), *e = cJSON_GetObjectItemCaseSensitive(f, "experiment");
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "id")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(l, "href")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "name")))
      abort();
  }
  char *out = cJSON_PrintUnformatted(env); /* names are UTF-8 as the trace gave them, or as \u escapes decoded */
  if (!out) abort();
  cJSON_free(out);
  cJSON_Delete(env);
  return 0;
}
