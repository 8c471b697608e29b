/* The experiment registry: each experiment's name, description, parameter
 * specs and simulator. The GPU side is looked up by the same name in the
 * worker. `GET /api/experiments` and `gpulab experiments` print this. */
#ifndef LAB_REGISTRY_H
#define LAB_REGISTRY_H

#include "params.h"
#include "profiles.h"

typedef struct lab_experiment {
  const char *name;    /* "transfer" */
  const char *title;   /* "Host-device copies" */
  const char *summary; /* one sentence on what it shows */
  const lab_param_spec *params;
  int n_params;
  /* Builds the envelope from the model of `prof`; NULL if it cannot be
   * simulated. Returns 0, or -1 with err set. */
  int (*simulate)(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err);
} lab_experiment;

int lab_experiment_count(void);
const lab_experiment *lab_experiment_at(int i);
const lab_experiment *lab_experiment_find(const char *name); /* NULL when unknown */
cJSON *lab_experiment_json(const lab_experiment *e);
cJSON *lab_registry_json(void); /* {"experiments":[…]} */

/* Validates params for e and runs its simulator with the named profile
 * (NULL = default). The one path the CLI, the server and the client share. */
int lab_simulate(const lab_experiment *e, const cJSON *params, const char *profile, cJSON **out, lab_error *err);
/* The same with a profile in hand (a calibrated one, say). */
int lab_simulate_with(const lab_experiment *e, const cJSON *params, const lab_profile *prof, cJSON **out,
                      lab_error *err);

#endif
