/* The lessons' claims checked on a learner's kit run (compare_claims.c):
 * which apply to the run and whether each holds on its numbers (part of
 * lab_compare, compare.h), and which a page may check at all. */
#ifndef LAB_COMPARE_CLAIMS_H
#define LAB_COMPARE_CLAIMS_H

#include "cjson_compat.h"

/* The lessons' claims that apply to the run (compare_claims.c): those that
 * hold on every profile and on a real GPU, on one run with the same
 * parameters as the learner's, reading figures the run has; each with
 * whether it holds on the learner's numbers. *note says why none apply
 * when none do. NULL only when out of memory. */
cJSON *lab_compare_claims(const cJSON *kit, const cJSON *claims, const char **note);

/* The claims of the lessons' compiled claims (lessonc's claims.json) that
 * a learner's page may check: claims on the lesson's text (never on a
 * quiz's answers, which would give the key away), on every profile and a
 * real GPU, with one run. What the page is served (/lessons/claims.json).
 * NULL when out of memory. */
cJSON *lab_compare_claims_public(const cJSON *claims);

#endif
