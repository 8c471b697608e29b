/* One condition of a lesson claim (lessons/README.md, "claims.json")
 * evaluated on a set of named result envelopes: what claimcheck runs on
 * the simulator or a GPU, and what `gpulab compare` runs on a learner's
 * own numbers. */
#ifndef LAB_CLAIM_EVAL_H
#define LAB_CLAIM_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cjson_compat.h"

#define LAB_CLAIM_MAX_RUNS 8

/* The runs a claim names ("runs": {"base": {...}, "pinned": {...}}), each
 * with its envelope; a path without "@RUN." reads the first. */
typedef struct lab_claim_runs {
  const char *names[LAB_CLAIM_MAX_RUNS];
  const cJSON *envs[LAB_CLAIM_MAX_RUNS];
  int n;
} lab_claim_runs;

/* Whether condition cond holds (with `$` = each when has_each); when it
 * does not, or a path names nothing, why says so with the numbers. */
bool lab_claim_holds(const lab_claim_runs *rs, const cJSON *cond, double each, bool has_each, char *why, size_t n);
/* Every condition of a claim's "expect" (each of its `each` values). */
bool lab_claim_all_hold(const lab_claim_runs *rs, const cJSON *claim, char *why, size_t n);
/* A number, text or list as a claim's message writes it. */
void lab_claim_describe(const cJSON *v, char *out, size_t n);

#endif
