/* Helpers shared by the doctor suites (doctor_test.h). */
#include "doctor_test.h"

#include <string.h>

const cJSON *doctor_test_finding(const cJSON *env, const char *id) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(f, "id");
    if (cJSON_IsString(i) && !strcmp(i->valuestring, id)) return f;
  }
  return NULL;
}
