/* The list of experiments, generated from experiments.h, and the
 * validation and simulation entries every caller shares. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "experiments.h"
#include "platform.h"
#include "text.h"

#define LAB_X_DECL(stem, gpu, cpu, needs) extern const lab_experiment lab_exp_##stem; LAB_CPU_MS(stem);
LAB_EXPERIMENTS(LAB_X_DECL)
#undef LAB_X_DECL

typedef struct row {
  const lab_experiment *e;
  bool kern; /* kernels/STEM.cu measures it on a GPU; else the device check answers it */
  bool cpu;  /* a browser's run also gets the server's CPU line */
  unsigned needs; /* lab_need bits: what its point needs of a device beyond a GPU */
  double (*cpu_ms)(const lab_params *p, const char **param);
} row;

static const row all[] = {
#define LAB_X_ENTRY(stem, gpu, cpu, needs) {&lab_exp_##stem, LAB_GPU_IS_KERN_##gpu, cpu, LAB_NEEDS_##needs, lab_cpu_ms_##stem},
    LAB_EXPERIMENTS(LAB_X_ENTRY)
#undef LAB_X_ENTRY
};

int lab_experiment_count(void) { return (int)(sizeof all / sizeof all[0]); }

const lab_experiment *lab_experiment_at(int i) { return i >= 0 && i < lab_experiment_count() ? all[i].e : NULL; }

const lab_experiment *lab_experiment_find(const char *name) {
  for (int i = 0; name && i < lab_experiment_count(); i++)
    if (strcmp(all[i].e->name, name) == 0) return all[i].e;
  return NULL;
}

/* e's line of the table, or NULL (NULL, or a descriptor not in it). */
static const row *row_of(const lab_experiment *e) {
  for (int i = 0; e && i < lab_experiment_count(); i++)
    if (all[i].e == e) return &all[i];
  return NULL;
}

bool lab_experiment_has_kernel(const lab_experiment *e) {
  const row *r = row_of(e);
  return r && r->kern;
}

bool lab_experiment_is_device_check(const lab_experiment *e) {
  const row *r = row_of(e);
  return r && !r->kern;
}

const lab_experiment *lab_experiment_device_check(void) {
  for (int i = 0; i < lab_experiment_count(); i++)
    if (!all[i].kern) return all[i].e;
  return NULL;
}

bool lab_experiment_server_cpu(const lab_experiment *e) {
  const row *r = row_of(e);
  return r && r->cpu;
}

unsigned lab_experiment_needs(const lab_experiment *e) {
  const row *r = row_of(e);
  return r ? r->needs : 0;
}

bool lab_experiment_applies(const lab_experiment *e, const lab_profile *prof) {
  return !(lab_experiment_needs(e) & lab_platform_lacks(prof->platform));
}

int lab_experiment_check_profile(const lab_experiment *e, const lab_profile *prof, lab_error *err) {
  unsigned missing = lab_experiment_needs(e) & lab_platform_lacks(prof->platform);
  if (!missing) return 0;
  lab_need need = LAB_NEED_STREAMS; /* the most particular need it lacks: streams before the link they copy over */
  while (need > LAB_NEED_HOST_LINK && !(missing & need)) need = (lab_need)(need >> 1);
  return lab_fail(err, LAB_E_NOT_APPLICABLE, "profile", "%s does not apply to the %s: it %s, and %s. Pick another "
                  "GPU's profile to see it.", e->name, prof->device_name, lab_need_what(need),
                  lab_platform_why_not(prof->platform, need));
}

cJSON *lab_experiment_json(const lab_experiment *e) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", e->name);
  cJSON_AddStringToObject(o, "title", e->title);
  cJSON_AddStringToObject(o, "summary", e->summary);
  cJSON_AddStringToObject(o, "lesson", e->lesson);
  cJSON_AddBoolToObject(o, "simulated", e->simulate != NULL);
  cJSON *params = cJSON_AddArrayToObject(o, "params");
  for (int i = 0; i < e->n_params; i++) cJSON_AddItemToArray(params, lab_param_spec_json(&e->params[i]));
  return o;
}

cJSON *lab_registry_json(void) {
  cJSON *root = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(root, "experiments");
  for (int i = 0; i < lab_experiment_count(); i++) cJSON_AddItemToArray(arr, lab_experiment_json(all[i].e));
  return root;
}

int lab_experiment_params(const lab_experiment *e, const cJSON *params, lab_params *p, lab_error *err) {
  lab_params_init(p, e->params, e->n_params);
  if (lab_params_from_json(p, params, err)) return -1;
  return lab_experiment_check(e, p, err);
}

int lab_experiment_check(const lab_experiment *e, const lab_params *p, lab_error *err) {
  return e->check ? e->check(p, err) : 0;
}

double lab_experiment_gpu_bytes(const lab_experiment *e, const lab_params *p, const char **param) {
  *param = NULL;
  return e->gpu_bytes ? e->gpu_bytes(p, param) : 0;
}

double lab_experiment_cpu_ms(const lab_experiment *e, const lab_params *p, const char **param) {
  const row *r = row_of(e);
  *param = NULL;
  return r ? r->cpu_ms(p, param) : 0;
}

static const lab_profile *profile_named(const char *profile, lab_error *err) {
  const lab_profile *prof = profile ? lab_profile_find(profile) : lab_profile_default();
  if (!prof)
    lab_fail(err, LAB_E_UNKNOWN_PROFILE, "profile", "unknown profile '%.40s'; GET /api/profiles lists them", profile);
  return prof;
}

int lab_simulate(const lab_experiment *e, const cJSON *params, const char *profile, cJSON **out, lab_error *err) {
  *out = NULL;
  const lab_profile *prof = profile_named(profile, err);
  return prof ? lab_simulate_with(e, params, prof, out, err) : -1;
}

int lab_simulate_checked(const lab_experiment *e, const lab_params *p, const char *profile, cJSON **out,
                         lab_error *err) {
  *out = NULL;
  const lab_profile *prof = profile_named(profile, err);
  return prof ? lab_simulate_checked_with(e, p, prof, out, err) : -1;
}

static bool has_param(const lab_experiment *e, const char *name) {
  for (int i = 0; i < e->n_params; i++)
    if (strcmp(e->params[i].name, name) == 0) return true;
  return false;
}

/* Every simulated result says, in its method, which of the profile's
 * figures are estimates, and (where it has no view parameter) that its
 * launch costs are raw CUDA's. */
static void note_sources(const lab_experiment *e, const lab_profile *prof, cJSON *env) {
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(env, "stats");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(stats, "method");
  char est[600], text[2600];
  lab_text t; /* appended, not printed: this runs after every simulation (lab/base/text.h) */
  lab_profile_estimates(prof, est, sizeof est);
  lab_text_init(&t, text, sizeof text);
  lab_text_add(&t, cJSON_IsString(m) ? m->valuestring : "Simulated from the profile.");
  if (!has_param(e, "view")) lab_text_add(&t, " Launch costs are modelled as raw CUDA's (the view a GPU run reads).");
  lab_text_add(&t, " Profile ");
  lab_text_add(&t, prof->name);
  if (!prof->src) {
    lab_text_add(&t, ": figures read from a profile file");
    if (prof->calibrated_fields[0]) lab_text_add(&t, " (some fitted by gpulab calibrate)");
  } else {
    lab_text_add(&t, est[0] ? ": figures with no published source, used as estimates: "
                            : ": every figure has a published source");
    lab_text_add(&t, est);
  }
  lab_text_add(&t, ".");
  if (cJSON_IsObject(stats)) cJSON_ReplaceItemInObjectCaseSensitive(stats, "method", cJSON_CreateString(text));
}

int lab_simulate_with(const lab_experiment *e, const cJSON *params, const lab_profile *prof, cJSON **out,
                      lab_error *err) {
  *out = NULL;
  lab_params p;
  if (lab_experiment_params(e, params, &p, err)) return -1;
  return lab_simulate_checked_with(e, &p, prof, out, err);
}

int lab_simulate_checked_with(const lab_experiment *e, const lab_params *p, const lab_profile *prof, cJSON **out,
                              lab_error *err) {
  *out = NULL;
  if (p->spec != e->params || p->n != e->n_params)
    return lab_fail(err, LAB_E_INTERNAL, NULL, "params of another experiment given to %s", e->name);
  if (!e->simulate)
    return lab_fail(err, LAB_E_INVALID_PARAM, "backend", "%s cannot be simulated; run it on a GPU", e->name);
  if (lab_experiment_check_profile(e, prof, err)) return -1; /* never a model of what the device has not */
  int rc = e->simulate(p, prof, out, err);
  if (rc == 0 && *out) note_sources(e, prof, *out);
  return rc;
}
