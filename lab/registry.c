/* The list of experiments, and the simulation entry every caller shares. */
#include "registry.h"

#include <string.h>

#include "cjson_compat.h"

extern const lab_experiment lab_exp_device;
extern const lab_experiment lab_exp_placement;
extern const lab_experiment lab_exp_memory;
extern const lab_experiment lab_exp_train_step;
extern const lab_experiment lab_exp_transfer;
extern const lab_experiment lab_exp_timing;
extern const lab_experiment lab_exp_crossover;
extern const lab_experiment lab_exp_precision;
extern const lab_experiment lab_exp_allocator;
extern const lab_experiment lab_exp_graphs;
extern const lab_experiment lab_exp_profile;
extern const lab_experiment lab_exp_streams;

static const lab_experiment *const all[] = {
    &lab_exp_device,
    &lab_exp_placement,
    &lab_exp_memory,
    &lab_exp_train_step,
    &lab_exp_transfer,
    &lab_exp_timing,
    &lab_exp_crossover,
    &lab_exp_precision,
    &lab_exp_allocator,
    &lab_exp_graphs,
    &lab_exp_profile,
    &lab_exp_streams,
};

int lab_experiment_count(void) { return (int)(sizeof all / sizeof all[0]); }

const lab_experiment *lab_experiment_at(int i) { return i >= 0 && i < lab_experiment_count() ? all[i] : NULL; }

const lab_experiment *lab_experiment_find(const char *name) {
  for (int i = 0; name && i < lab_experiment_count(); i++)
    if (strcmp(all[i]->name, name) == 0) return all[i];
  return NULL;
}

cJSON *lab_experiment_json(const lab_experiment *e) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", e->name);
  cJSON_AddStringToObject(o, "title", e->title);
  cJSON_AddStringToObject(o, "summary", e->summary);
  cJSON_AddBoolToObject(o, "simulated", e->simulate != NULL);
  cJSON *params = cJSON_AddArrayToObject(o, "params");
  for (int i = 0; i < e->n_params; i++) cJSON_AddItemToArray(params, lab_param_spec_json(&e->params[i]));
  return o;
}

cJSON *lab_registry_json(void) {
  cJSON *root = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(root, "experiments");
  for (int i = 0; i < lab_experiment_count(); i++) cJSON_AddItemToArray(arr, lab_experiment_json(all[i]));
  return root;
}

int lab_simulate(const lab_experiment *e, const cJSON *params, const char *profile, cJSON **out, lab_error *err) {
  *out = NULL;
  const lab_profile *prof = profile ? lab_profile_find(profile) : lab_profile_default();
  if (!prof)
    return lab_fail(err, LAB_E_UNKNOWN_PROFILE, "profile", "unknown profile '%.40s'; GET /api/profiles lists them",
                    profile);
  return lab_simulate_with(e, params, prof, out, err);
}

int lab_simulate_with(const lab_experiment *e, const cJSON *params, const lab_profile *prof, cJSON **out,
                      lab_error *err) {
  *out = NULL;
  if (!e->simulate)
    return lab_fail(err, LAB_E_INVALID_PARAM, "backend", "%s cannot be simulated; run it on a GPU", e->name);
  lab_params p;
  lab_params_init(&p, e->params, e->n_params);
  if (lab_params_from_json(&p, params, err)) return -1;
  return e->simulate(&p, prof, out, err);
}
