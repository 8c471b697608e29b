/* Device profiles: the figures the simulator models a GPU with. Every figure
 * of a built-in profile carries its source (lab/sim/profiles_data.c): a datasheet
 * peak, a published measurement (link, tool, size, host), a figure derived
 * from those, or an estimate, and which; a calibrated profile comes from a
 * real run (gpulab calibrate). What a profile holds is device_profile.h;
 * adding one touches lab/sim/profiles_data.c and profiles_refs.c only. */
#ifndef LAB_PROFILES_H
#define LAB_PROFILES_H

#include <stddef.h>
#include <stdint.h>

#include "device_profile.h"
#include "error.h"

extern const char *const lab_src_kind_names[LAB_SRC_KINDS]; /* "datasheet", "measured", … */

int lab_profile_count(void);
const lab_profile *lab_profile_at(int i);
/* NULL when unknown. */
const lab_profile *lab_profile_find(const char *name);
const lab_profile *lab_profile_default(void);
/* Whether p is one of the built-in profiles (sourced figures), not a
 * calibrated or fitted one. */
int lab_profile_builtin(const lab_profile *p);
/* The source of one figure, or NULL (a calibrated or file profile). */
const lab_src *lab_profile_src(const lab_profile *p, const char *field);
/* The reference a source points at, or NULL. */
const lab_ref *lab_profile_ref(const char *id);
int lab_profile_ref_count(void);
const lab_ref *lab_profile_ref_at(int i);
/* 0 when every figure of p has exactly one source whose reference exists;
 * else -1 and why. */
int lab_profile_check_sources(const lab_profile *p, char *why, size_t n);
/* The figures of p with no published source, comma-separated ("" when
 * none): what a simulated result must call estimates. */
void lab_profile_estimates(const lab_profile *p, char *buf, size_t n);
cJSON *lab_profile_json(const lab_profile *p);
/* Reads a profile (e.g. a calibrated one); every figure must be present and positive. */
int lab_profile_from_json(const cJSON *json, lab_profile *out, lab_error *err);
cJSON *lab_profiles_json(void);
/* Adds (or replaces) a calibrated profile, found by its own name beside
 * the built-ins: the one of the same name is replaced, else it is added
 * (at most LAB_PROFILE_CALIBRATED_MAX: a server's, "calibrated", and a
 * learner's own GPU fitted from a kit run in the page, "yours"; past that
 * the last one is replaced). Call at start-up, before threads read
 * profiles. */
#define LAB_PROFILE_CALIBRATED_MAX 2
void lab_profile_set_calibrated(const lab_profile *p);
/* Forgets every calibrated profile: the built-ins alone again (a test
 * that reads the built-in table starts from it, whatever ran before it in
 * the same process). */
void lab_profile_clear_calibrated(void);

#endif
