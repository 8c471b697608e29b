/* Helpers shared by the experiment suites (transfer, timing, crossover):
 * run a simulator through the registry, read metrics and series, and check
 * every numeric parameter's bounds from the experiment's own spec table. */
#ifndef TESTS_EXP_TEST_H
#define TESTS_EXP_TEST_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "error.h"
#include "registry.h"

/* Simulates `name` with params given as JSON text (NULL = defaults) on a
 * profile (NULL = default). Returns the envelope, or NULL with err set. */
cJSON *test_exp_simulate(const char *name, const char *params_json, const char *profile, lab_error *err);
/* A metric's value; fails the test when it is missing. */
double test_exp_metric(const cJSON *env, const char *key);
/* The points array of series `id`, or NULL. */
const cJSON *test_exp_series(const cJSON *env, const char *id);
/* y of point i of series id. */
double test_exp_y(const cJSON *env, const char *id, int i);
/* For every INT/NUM parameter of `name`: below min, above max, a string,
 * and (for INT) a non-integer all fail with invalid_param naming it; a flag
 * or a choice given a number or an unknown word fails the same way; an
 * unknown parameter fails naming itself. */
void test_exp_check_bounds(const char *name);
/* The memory experiment as a real run walks it (capped at budget_gib) over
 * a profile's memory (NULL: the default), enveloped as a GPU run: what the
 * simulator no longer does, since a simulated run has the whole card. */
cJSON *test_exp_memory_capped(const char *params_json, const char *profile);
/* Some finding contains `text`. */
int test_exp_finding_has(const cJSON *env, const char *text);
/* Experiment `name` has a meaning on profile i (lab_experiment_applies):
 * what "on every profile" means; an Apple GPU has no host link, say, and
 * check_experiments.c holds that the others say so. */
bool test_exp_applies(const char *name, int i);

/* A measurement kit file as the kit writes one: simulated envelopes of
 * `profile` for the n experiments standing in for the learner's measured
 * ones (backend pytorch, the device named `device`, compute capability cc or
 * null; PyTorch 2.5.1+cu121 on Colab, each envelope saying so as the kit
 * writes it: "measured_with"). */
cJSON *test_kit_of(const char *device, const char *cc, const char *profile, const char *const *exps, int n);

/* A JSON file of the repository (a path from its root, where the tests
 * run), parsed; fails the test when it cannot be read or parsed. */
cJSON *test_json_file(const char *path);

/* A kit file of a plan run (kit/measure.py --plan) on a T4, no results; its allocated counter's ratio
 * and band verdict and reserved's band verdict are doctored (compare recomputes them). */
extern const char TEST_PLAN_RUN[];

#endif
