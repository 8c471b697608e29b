/* The profile a learner's kit run is compared with (compare_profile.c):
 * matched to a built-in profile by the device's name or compute
 * capability, or fitted from the run; and the run's own device's datasheet
 * for the physical checks. Part of lab_compare (compare.h). */
#ifndef LAB_COMPARE_PROFILE_H
#define LAB_COMPARE_PROFILE_H

#include <stddef.h>

#include "cjson_compat.h"
#include "error.h"
#include "profiles.h"

/* The name of a profile fitted from a learner's run (its label: "Your GPU:
 * NAME (fitted from your run)"), the page's "your GPU" choice. */
#define LAB_COMPARE_FITTED "yours"

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

#endif
