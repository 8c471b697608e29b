/* A simulated result never claims a measurement: every experiment of the
 * table (lab/face/experiments.h, through the registry), simulated on every profile at its defaults and
 * with each flag and choice flipped, states a method that says it is a
 * model ("Modelled", "Simulated") and what was modelled, with none of the
 * words of a measurement (events, NVML, timers, "measured"). Only a series
 * the result marks "measured" (a CPU timed for real, as crossover's) may
 * be called measured, in the method's "CPU: …" part before its "GPU: …". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "params.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"

/* Every experiment of the table, through the registry (which expands it):
 * a table line then rebuilds no test file. */

/* Words that claim a measurement (lower case). */
static const char *const claims[] = {"measured",    "measures", "measurement", "timed ",  "timer",
                                     "cuda events", "cudaevent", "nvml",       "nvidia-smi", "stopwatch"};

/* The first claim in text (case-insensitive), or NULL. */
static const char *measurement_claim(const char *text) {
  size_t n = strlen(text);
  char *low = malloc(n + 1);
  ck_assert_ptr_nonnull(low);
  for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)text[i]);
  const char *found = NULL;
  for (size_t i = 0; !found && i < sizeof claims / sizeof claims[0]; i++)
    if (strstr(low, claims[i])) found = claims[i];
  free(low);
  return found;
}

static int says_modelled(const char *text) {
  return strstr(text, "odel") != NULL || strstr(text, "imulated") != NULL;
}

static int has_measured_series(const cJSON *env) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
    if (cJSON_IsString(src) && strcmp(src->valuestring, "measured") == 0) return 1;
  }
  return 0;
}

/* The method without its "CPU: … GPU:" part when a series was timed for real. */
static const char *modelled_part(const cJSON *env, const char *method) {
  if (has_measured_series(env) && strncmp(method, "CPU: ", 5) == 0) {
    const char *gpu = strstr(method, " GPU: ");
    ck_assert_msg(gpu != NULL, "a method that starts with the measured CPU says what the GPU part modelled");
    return gpu;
  }
  return method;
}

static void check(const lab_experiment *e, const lab_params *p, const lab_profile *prof) {
  cJSON *env = NULL;
  lab_error err = {0};
  if (lab_simulate_checked_with(e, p, prof, &env, &err) != 0) return;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "stats"), "method");
  ck_assert_msg(cJSON_IsString(m), "%s on %s states no method", e->name, prof->name);
  const char *modelled = modelled_part(env, m->valuestring);
  /* it says that it is a model: "Modelled …", "Simulated …", "the profile's model" */
  ck_assert_msg(says_modelled(modelled), "%s on %s: its simulated method does not say what was modelled: %s", e->name,
                prof->name, m->valuestring);
  const char *claim = measurement_claim(modelled);
  ck_assert_msg(claim == NULL, "%s on %s: its simulated method claims a measurement ('%s'): %s", e->name, prof->name,
                claim, m->valuestring);
  cJSON_Delete(env);
}

START_TEST(simulated_method_never_claims_a_measurement) {
  const lab_experiment *e = lab_experiment_at(_i);
  ck_assert_ptr_nonnull(e);
  for (int pi = 0; pi < lab_profile_count(); pi++) {
    lab_params p;
    lab_params_init(&p, e->params, e->n_params);
    check(e, &p, lab_profile_at(pi));
    for (int k = 0; k < e->n_params; k++) {
      const lab_param_spec *s = &e->params[k];
      if (s->type != LAB_P_BOOL && s->type != LAB_P_ENUM) continue;
      int n = s->type == LAB_P_BOOL ? 2 : 0;
      while (s->type == LAB_P_ENUM && s->choices[n]) n++;
      for (int v = 0; v < n; v++) {
        lab_params_init(&p, e->params, e->n_params);
        p.v[k] = v;
        check(e, &p, lab_profile_at(pi));
      }
    }
  }
}
END_TEST

START_TEST(measurement_claim_finds_what_it_should) {
  ck_assert_ptr_nonnull(measurement_claim("One query of NVML (or nvidia-smi); nothing is timed."));
  ck_assert_ptr_nonnull(measurement_claim("GPU spans are timed with CUDA events."));
  ck_assert_ptr_nonnull(measurement_claim("Measured on the GPU."));
  ck_assert_ptr_null(measurement_claim("Modelled from the profile: launch_us per launch, rounded to 0.5 µs."));
}
END_TEST

Suite *make_sim_method_suite(void) {
  Suite *s = suite_create("sim_method");
  TCase *tc = tcase_create("methods");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, simulated_method_never_claims_a_measurement, 0, lab_experiment_count());
  tcase_add_test(tc, measurement_claim_finds_what_it_should);
  suite_add_tcase(s, tc);
  return s;
}
