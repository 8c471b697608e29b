/* The experiment registry, generated from the one table in experiments.h:
 * every experiment's descriptor (descriptor.h), the one validation path
 * every caller shares, and the JSON that `GET /api/experiments` and
 * `gpulab experiments` print. */
#ifndef LAB_REGISTRY_H
#define LAB_REGISTRY_H

#include <stdbool.h>

#include "descriptor.h"
#include "params.h"
#include "profiles.h"

int lab_experiment_count(void);
const lab_experiment *lab_experiment_at(int i);
const lab_experiment *lab_experiment_find(const char *name); /* NULL when unknown */
/* The table's columns (experiments.h). kernels/NAME.cu measures it on a
 * GPU (gpu column kern). */
bool lab_experiment_has_kernel(const lab_experiment *e);
/* The device check answers it on a GPU (gpu column check): it runs wherever
 * the server is, usable GPU or not. false for NULL. */
bool lab_experiment_is_device_check(const lab_experiment *e);
/* The experiment the device check answers (what the GPU panel shows when
 * the server cannot say), or NULL. */
const lab_experiment *lab_experiment_device_check(void);
/* A run in the browser also gets the server's CPU line (cpu column 1). */
bool lab_experiment_server_cpu(const lab_experiment *e);
/* The needs column: lab_need bits its point needs of a device beyond a GPU. */
unsigned lab_experiment_needs(const lab_experiment *e);
/* true when prof's platform lacks nothing e needs (a host link, graphs…). */
bool lab_experiment_applies(const lab_experiment *e, const lab_profile *prof);
/* 0, or -1 with err not_applicable (param "profile"): what e does and why
 * prof's GPU has no such thing. Every simulation asks it first. */
int lab_experiment_check_profile(const lab_experiment *e, const lab_profile *prof, lab_error *err);
cJSON *lab_experiment_json(const lab_experiment *e);
cJSON *lab_registry_json(void); /* {"experiments":[…]} */

/* The one validation path: types and bounds of every parameter (NULL params
 * = all defaults), then the experiment's cross-parameter check. Plain mode,
 * class mode (before anything is queued, charged or stored), the worker,
 * the CLI and the browser all call it. Returns 0, or -1 with err set. */
int lab_experiment_params(const lab_experiment *e, const cJSON *params, lab_params *p, lab_error *err);
/* The GPU memory estimate of e for checked params p; 0 (and *param NULL)
 * for an experiment without one. */
double lab_experiment_gpu_bytes(const lab_experiment *e, const lab_params *p, const char **param);

/* The CPU cost estimate of e for checked params p (descriptor.h, LAB_CPU_MS). */
double lab_experiment_cpu_ms(const lab_experiment *e, const lab_params *p, const char **param);

/* e's cross-parameter check alone, for params built another way (the CLI
 * sets them from text). Returns 0, or -1 with err set. */
int lab_experiment_check(const lab_experiment *e, const lab_params *p, lab_error *err);

/* Runs e's simulator on params p that lab_experiment_params already checked
 * for e (nothing is parsed again: the server validates once and passes p
 * on) with the named profile (NULL = default). p of another experiment is
 * an internal error. */
int lab_simulate_checked(const lab_experiment *e, const lab_params *p, const char *profile, cJSON **out,
                         lab_error *err);
/* The same with a profile in hand. */
int lab_simulate_checked_with(const lab_experiment *e, const lab_params *p, const lab_profile *prof, cJSON **out,
                              lab_error *err);

/* Validates params for e and runs its simulator with the named profile
 * (NULL = default): lab_experiment_params, then lab_simulate_checked. */
int lab_simulate(const lab_experiment *e, const cJSON *params, const char *profile, cJSON **out, lab_error *err);
/* The same with a profile in hand (a calibrated one, say). */
int lab_simulate_with(const lab_experiment *e, const cJSON *params, const lab_profile *prof, cJSON **out,
                      lab_error *err);

#endif
