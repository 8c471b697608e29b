/* Helpers shared by the doctor suites (check_doctor.c, check_doctor_real.c):
 * a finding of an answer by its id. */
#ifndef TESTS_DOCTOR_TEST_H
#define TESTS_DOCTOR_TEST_H

#include "cjson_compat.h"

/* The answer's finding with this id, or NULL. */
const cJSON *doctor_test_finding(const cJSON *env, const char *id);

#endif
