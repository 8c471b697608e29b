/* A learner's own run (a measurement kit file, kit_file.h) beside the
 * simulator's prediction for the same device: the device matched to a
 * built-in profile (or a profile fitted from the run, calibrate.h), each
 * experiment simulated with the run's parameters, and per headline figure
 * the measured value, the prediction, their ratio and whether the figure
 * is physically possible (plausible.h); then the lessons' claims checked
 * on the learner's numbers (claim_eval.h). `gpulab compare` prints it;
 * the page will draw it. */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

#include "cjson_compat.h"
#include "error.h"

/* kit: a file lab_kit_read accepted. claims: the lessons' compiled claims
 * (lessonc's claims.json: {"claims": [...]}), or NULL to leave them out.
 * profile: a built-in profile's name to compare with, or NULL to match.
 * On success *report (caller owns) is
 * {"compare":1, "run":{device, kind, torch, platform, date, kit_version},
 *  "profile":{"name","label","how","fitted"?},
 *  "experiments":[{"experiment","note"?,"figures":[{"metric","unit","measured",
 *     "predicted","ratio","plausible","reason"}]}],
 *  "skipped":[...], "failed":[...],
 *  "claims":[{"lesson","id","quote","where","experiment","holds","numbers"|"why"}],
 *  "claims_note"?, "implausible":N}
 * -1 with err: unknown_profile, or out_of_memory. */
int lab_compare(const cJSON *kit, const cJSON *claims, const char *profile, cJSON **report, lab_error *err);

#endif
