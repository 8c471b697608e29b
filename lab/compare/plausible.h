/* Whether a learner's figure is physically possible on the device it names:
 * a copy faster than the host link can carry, a matmul above the card's
 * peak FLOPS, a time below what one launch costs, a host clock that
 * stopped before the GPU finished. Such a figure is not drawn as truth:
 * it is flagged with its likely cause (docs/measure.md, "Plausible"). */
#ifndef LAB_PLAUSIBLE_H
#define LAB_PLAUSIBLE_H

#include <stddef.h>

#include "cjson_compat.h"
#include "profiles.h"

#define LAB_PLAUSIBLE_SLACK 1.05 /* a measured figure may pass a physical limit by this factor (clock, rounding) */

typedef enum { LAB_PLAUSIBLE_YES = 1, LAB_PLAUSIBLE_NO = 0, LAB_PLAUSIBLE_UNCHECKED = -1 } lab_plausible;

/* Checks figure `metric` of run env (a result envelope of experiment
 * `experiment`) against prof, a profile of datasheet and published
 * figures for the same device (NULL: gpulab has none, and only the checks
 * that need no device figures run). why: the reason when NO, what was
 * compared when YES, why nothing was when UNCHECKED. */
lab_plausible lab_plausible_check(const char *experiment, const char *metric, const cJSON *env, const lab_profile *prof,
                                  char *why, size_t n);

/* Whether a metric has a physical check at all (then compare lists it even
 * when it is not a headline figure). */
int lab_plausible_known(const char *experiment, const char *metric);

#endif
