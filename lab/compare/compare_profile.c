/* Which profile a learner's run is compared with: the one asked for, the
 * built-in profile of the same device (its name as PyTorch reports it,
 * then its compute capability), a profile fitted from the run itself (the
 * calibrate logic, on the kit's transfer and timing: devices gpulab has no
 * profile for, Apple and AMD GPUs included), or the default, and why. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "compare_profile.h"
#include "kit_file.h"

static const char *dev_text(const cJSON *kit, const char *key) {
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kit, "provenance"), "device");
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, key));
}

/* The built-in profile of the run's device, or NULL; *by says how it
 * matched. Never a calibrated or fitted one: an earlier import's fit is no
 * datasheet. */
static const lab_profile *same_device(const cJSON *kit, const char **by) {
  const char *name = dev_text(kit, "name"), *cc = dev_text(kit, "compute_capability");
  int count = lab_profile_count();
  for (int i = 0; name && i < count; i++)
    if (lab_profile_builtin(lab_profile_at(i)) && !strcmp(lab_profile_at(i)->device_name, name))
      return *by = "the same device name", lab_profile_at(i);
  int major = 0, minor = 0;
  if (cc && sscanf(cc, "%d.%d", &major, &minor) == 2)
    for (int i = 0; i < count; i++)
      if (lab_profile_builtin(lab_profile_at(i)) && lab_profile_at(i)->cc_major == major &&
          lab_profile_at(i)->cc_minor == minor)
        return *by = "the same compute capability", lab_profile_at(i);
  return NULL;
}

const lab_profile *lab_compare_datasheet(const cJSON *kit) {
  const char *by = NULL;
  return strcmp(lab_kit_kind(kit), "cpu") != 0 ? same_device(kit, &by) : NULL;
}

/* The run's device as calibrate reads it (no compute capability on Apple or AMD GPUs). */
static void gpu_of(const cJSON *kit, lab_gpu_info *g) {
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kit, "provenance"), "device");
  const char *name = dev_text(kit, "name"), *cc = dev_text(kit, "compute_capability");
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", name ? name : "");
  if (cc) sscanf(cc, "%d.%d", &g->cc_major, &g->cc_minor);
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(dev, "memory_bytes"), *sms = cJSON_GetObjectItemCaseSensitive(dev, "sm_count");
  if (cJSON_IsNumber(mem)) g->mem_total_bytes = (uint64_t)mem->valuedouble;
  if (cJSON_IsNumber(sms) && sms->valuedouble > 0 && sms->valuedouble < 1e6) g->sm_count = (int)sms->valuedouble;
}

const lab_profile *lab_compare_profile(const cJSON *kit, const char *name, lab_profile *fit,
                                       const lab_profile **datasheet, char *how, size_t n, lab_error *err) {
  const char *by = NULL, *kind = lab_kit_kind(kit), *dev = dev_text(kit, "name");
  int gpu = strcmp(kind, "cpu") != 0;
  *datasheet = gpu ? same_device(kit, &by) : NULL;
  if (name) {
    const lab_profile *p = lab_profile_find(name);
    if (!p) {
      lab_fail(err, LAB_E_UNKNOWN_PROFILE, "profile", "There is no profile '%.40s': gpulab profiles lists them.", name);
      return NULL;
    }
    snprintf(how, n, "the profile asked for");
    return p;
  }
  if (!gpu) {
    snprintf(how, n, "the run had no GPU (it ran on the CPU), so the predictions are the default profile's GPU and "
             "no ratio is given");
    return lab_profile_default();
  }
  if (*datasheet) {
    snprintf(how, n, "the built-in profile of %s (%s)", (*datasheet)->device_name, by);
    return *datasheet;
  }
  const cJSON *transfer = lab_kit_result(kit, "transfer"), *timing = lab_kit_result(kit, "timing");
  cJSON *report = NULL;
  lab_error why = {0};
  lab_gpu_info g;
  gpu_of(kit, &g);
  if (transfer && timing && lab_calibrate(transfer, timing, &g, fit, &report, &why) == 0) {
    /* the learner's own GPU, apart from a server's calibrated profile (both may be in a page's pickers) */
    snprintf(fit->name, sizeof fit->name, "%s", LAB_COMPARE_FITTED);
    snprintf(fit->label, sizeof fit->label, "Your GPU: %.28s (fitted from your run)", dev ? dev : "this device");
    snprintf(how, n, "gpulab has no profile for %s: one was fitted from this run's transfer and timing (starting "
             "from %s; the fit %s the simulator within 25 %% on the figures it used)", dev ? dev : "this device",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "base")),
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(report, "ok")) ? "brings" : "does not bring");
    cJSON_Delete(report);
    return fit;
  }
  snprintf(how, n, "gpulab has no profile for %s and could not fit one from this run (%s): compared with the default "
           "profile", dev ? dev : "this device", transfer && timing ? why.message : "it has no transfer and timing");
  return lab_profile_default();
}
