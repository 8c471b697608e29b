/* A learner's own run (a measurement kit file, kit_file.h) beside the
 * simulator's prediction for the same device: the device matched to a
 * built-in profile (or a profile fitted from the run, calibrate.h), each
 * experiment simulated with the run's parameters, and per headline figure
 * the measured value, the prediction, their ratio and whether the figure
 * is physically possible (plausible.h); then the lessons' claims checked
 * on the learner's numbers (claim_eval.h). `gpulab compare` prints it;
 * the page (#yours) draws it with each prediction beside the run; a class
 * keeps a summary of each run handed in and shows their spread. */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

#include "cjson_compat.h"
#include "compare_profile.h" /* LAB_COMPARE_FITTED */
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
 *  "claims_note"?, "implausible":N, "plan"?: a plan run (kit_plan.h)}
 * -1 with err: unknown_profile, or out_of_memory. */
int lab_compare(const cJSON *kit, const cJSON *claims, const char *profile, cJSON **report, lab_error *err);

/* flags of lab_compare_with: each experiment's entry keeps the simulated
 * envelope it was compared with as "prediction" (what the page draws
 * beside the learner's run). */
#define LAB_COMPARE_PREDICTIONS 1
int lab_compare_with(const cJSON *kit, const cJSON *claims, const char *profile, int flags, cJSON **report,
                     lab_error *err);

/* What a class keeps of a run handed in, without simulating anything:
 * {"run":{…as above}, "profile": the device's built-in profile or null,
 *  "experiments":[{"experiment","figures":[{"metric","unit","measured",
 *  "predicted":null,"ratio":null,"plausible","reason"}]}], "implausible":N, "plan"?}.
 * NULL when out of memory. */
cJSON *lab_compare_summary(const cJSON *kit);


/* A class's runs handed in, side by side (the instructor's view): from
 * [{"learner_id","name","at","summary"}] (summaries as lab_compare_summary
 * writes them; the newest run of each learner counts), {"learners":N,
 * "devices":[{"device","kind","learners"}], "figures":[{"experiment",
 * "metric","unit","n","min","median","max","devices":N,"implausible":[{
 * "learner_id","name","device","measured","reason"}]}]}: the spread of
 * each headline figure over the plausible values, and the implausible ones
 * apart, never in the spread. NULL when out of memory. */
cJSON *lab_compare_class(const cJSON *handins);

#endif
