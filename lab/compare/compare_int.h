/* Internal to lab/compare/: the parts of lab_compare (compare.c) that live
 * in files of their own. */
#ifndef LAB_COMPARE_INT_H
#define LAB_COMPARE_INT_H

#include <stddef.h>

#include "cjson_compat.h"
#include "error.h"
#include "profiles.h"

/* The profile the run is compared with (compare_profile.c): `name` when
 * given, else the built-in profile of the same device (by name, then by
 * compute capability), else one fitted from the run's transfer and timing
 * (written into *fit), else the default. *datasheet: the built-in profile
 * of the run's own device (the physical checks' figures), or NULL. how:
 * one sentence on how it was chosen. NULL with err for an unknown name. */
const lab_profile *lab_compare_profile(const cJSON *kit, const char *name, lab_profile *fit,
                                       const lab_profile **datasheet, char *how, size_t n, lab_error *err);

/* The built-in profile of the run's own device (its datasheet and
 * published figures, what the physical checks read), or NULL: a run on
 * the CPU, or a device gpulab has no profile for. */
const lab_profile *lab_compare_datasheet(const cJSON *kit);

/* The lessons' claims that apply to the run (compare_claims.c): those that
 * hold on every profile and on a real GPU, on one run with the same
 * parameters as the learner's, reading figures the run has; each with
 * whether it holds on the learner's numbers. *note says why none apply
 * when none do. NULL only when out of memory. */
cJSON *lab_compare_claims(const cJSON *kit, const cJSON *claims, const char **note);

#endif
