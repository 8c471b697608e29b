/* Paths into a result envelope, the language of the lessons' claims
 * (lessons/README.md, "claims.json"): `metrics.step_ms`,
 * `series[id=gpu].points[x=64].y`, `@pinned.metrics.step_ms`. */
#ifndef LAB_CLAIM_PATH_H
#define LAB_CLAIM_PATH_H

#include <stddef.h>

#include "cjson_compat.h"

/* An optional "@RUN." prefix names the run: copies it into run (empty when
 * absent) and points *rest past it; -1 when the prefix is malformed. */
int lab_claim_path_run(const char *path, char *run, size_t cap, const char **rest);
/* 0 when path (prefix included) is well formed, else -1 with why. */
int lab_claim_path_check(const char *path, char *why, size_t n);
/* The node path (no prefix) names in env, every `$` read as each_value;
 * NULL with why when there is none. */
const cJSON *lab_claim_path_get(const cJSON *env, const char *path, double each_value, char *why, size_t n);

#endif
