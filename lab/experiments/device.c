/* The device check: judge the driver view against the runtime view, say in
 * beginner words why one can pass while the other fails, and simulate both
 * views from a profile when no GPU is at hand. */
#include "device.h"

#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "descriptor.h"

const char *lab_cuda_version_text(int v, char buf[16]) {
  if (v <= 0) return NULL;
  snprintf(buf, 16, "%d.%d", v / 1000, (v % 1000) / 10);
  return buf;
}

static const char *const verdict_names[] = {"usable",    "not_built",     "no_driver",       "driver_too_old",
                                            "no_device", "runtime_error", "arch_unsupported"};

const char *lab_verdict_code_name(lab_verdict_code c) {
  return (unsigned)c < sizeof verdict_names / sizeof verdict_names[0] ? verdict_names[c] : "runtime_error";
}

#define SAY(field, ...) snprintf(out->field, sizeof out->field, __VA_ARGS__)

void lab_device_verdict(const lab_driver_view *drv, const lab_runtime_view *rt, lab_verdict *out) {
  char need[16] = "?", have[16] = "?";
  memset(out, 0, sizeof *out);
  lab_cuda_version_text(rt->runtime_version, need);
  lab_cuda_version_text(rt->driver_api_version ? rt->driver_api_version : drv->cuda_version, have);
  switch (rt->status) {
    case LAB_RT_OK:
      if (rt->device_count > 0 && rt->n_archs > 0 && rt->dev[0].cc_major > 0 &&
          rt->dev[0].cc_major * 10 + rt->dev[0].cc_minor < rt->archs[0]) {
        const lab_gpu_info *g = &rt->dev[0];
        out->code = LAB_V_ARCH_UNSUPPORTED;
        SAY(summary, "no usable GPU: %.60s (compute capability %d.%d) is older than this build supports", g->name,
            g->cc_major, g->cc_minor);
        SAY(explanation,
            "The driver and the CUDA runtime both work, but gpulab's kernels were compiled for compute capability "
            "%d.%d and newer, and a GPU can only run code built for its own generation or an older one of the "
            "same family. CUDA %s cannot build for GPUs older than 7.5 at all: Volta (7.0, the V100) and Pascal "
            "were dropped in CUDA 13.",
            rt->archs[0] / 10, rt->archs[0] % 10, need);
        SAY(advice,
            "Rebuild gpulab with a CUDA 12 toolkit (CUDA_HOME=/usr/local/cuda-12.x make) to run it on this GPU; "
            "meanwhile every experiment is simulated.");
        return;
      }
      if (rt->device_count > 0) {
        out->code = LAB_V_USABLE;
        out->usable = true;
        SAY(summary, "GPU usable: %s", rt->dev[0].name);
        SAY(explanation,
            "The driver answers and the CUDA runtime found %d device%s it can use, so experiments run for real%s.",
            rt->device_count, rt->device_count == 1 ? "" : "s",
            drv->present && drv->device_count > rt->device_count
                ? " (the driver sees more GPUs than the runtime: CUDA_VISIBLE_DEVICES hides some)"
                : "");
        SAY(advice, "Nothing to fix. Run an experiment.");
        return;
      }
      __attribute__((fallthrough)); /* status OK but no device is the same story */
    case LAB_RT_NO_DEVICE:
      out->code = LAB_V_NO_DEVICE;
      SAY(summary, "no usable GPU: the driver is installed but the runtime sees no device");
      SAY(explanation,
          "%s The CUDA runtime counted no device it may use. Either there is no NVIDIA GPU, or it is hidden "
          "(CUDA_VISIBLE_DEVICES is empty or wrong), or a container was started without GPU access.",
          drv->present && drv->device_count > 0 ? "nvidia-smi lists a GPU, so the hardware and driver are there."
                                                : "The driver is present.");
      SAY(advice, "Check CUDA_VISIBLE_DEVICES and the container's GPU options; until then the lab simulates.");
      return;
    case LAB_RT_NOT_BUILT:
      out->code = LAB_V_NOT_BUILT;
      SAY(summary, "no usable GPU: this gpulab was built without CUDA");
      SAY(explanation,
          "The program was compiled without the CUDA toolkit (nvcc was not found), so it cannot talk to a GPU "
          "even if one is there.%s",
          drv->present && drv->device_count > 0 ? " The driver does see a GPU on this machine." : "");
      SAY(advice, "Install the CUDA toolkit and rebuild with 'make'; meanwhile every experiment is simulated.");
      return;
    case LAB_RT_INSUFFICIENT_DRIVER:
      if (rt->driver_api_version == 0 && !(drv->present && drv->cuda_version)) {
        out->code = LAB_V_NO_DRIVER;
        SAY(summary, "no usable GPU: the CUDA driver is missing");
        SAY(explanation,
            "The CUDA runtime inside gpulab (version %s) is there, but no NVIDIA driver answered: nvidia-smi and "
            "NVML are not available. The runtime needs the driver to reach a GPU, so the two checks disagree "
            "in the most common way: the program is ready, the machine is not.",
            need);
        SAY(advice, "On a machine with an NVIDIA GPU, install the NVIDIA driver; here the lab will simulate.");
      } else {
        out->code = LAB_V_DRIVER_TOO_OLD;
        SAY(summary, "no usable GPU: the driver (CUDA %s) is older than the runtime (CUDA %s)", have, need);
        SAY(explanation,
            "nvidia-smi works, so the driver and the GPU are fine, yet the CUDA runtime refuses: it was built for "
            "CUDA %s and the installed driver only supports up to CUDA %s. This is why the driver check can pass "
            "while the runtime check fails.",
            need, have);
        SAY(advice, "Update the NVIDIA driver, or use a build of gpulab for CUDA %s; meanwhile the lab simulates.",
            have);
      }
      return;
    case LAB_RT_ERROR:
      break;
  }
  out->code = LAB_V_RUNTIME_ERROR;
  SAY(summary, "no usable GPU: the CUDA runtime reported %s", rt->error_name[0] ? rt->error_name : "an error");
  SAY(explanation, "The runtime could not start: %s.", rt->error_message[0] ? rt->error_message : "unknown error");
  SAY(advice, "Run 'nvidia-smi' to check the GPU's health; the lab simulates until it works.");
}

static cJSON *gpu_json(const lab_gpu_info *g, int index) {
  cJSON *o = cJSON_CreateObject();
  char cc[16];
  cJSON_AddNumberToObject(o, "index", index);
  cJSON_AddStringToObject(o, "name", g->name);
  if (g->cc_major) {
    snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
    cJSON_AddStringToObject(o, "compute_capability", cc);
  } else {
    cJSON_AddNullToObject(o, "compute_capability");
  }
  if (g->sm_count) cJSON_AddNumberToObject(o, "sm_count", g->sm_count);
  else cJSON_AddNullToObject(o, "sm_count");
  cJSON_AddNumberToObject(o, "memory_total_bytes", (double)g->mem_total_bytes);
  if (g->mem_free_known) cJSON_AddNumberToObject(o, "memory_free_bytes", (double)g->mem_free_bytes);
  else cJSON_AddNullToObject(o, "memory_free_bytes");
  if (g->bus_id[0]) cJSON_AddStringToObject(o, "bus_id", g->bus_id);
  return o;
}

static void add_version(cJSON *o, const char *key, int v) {
  char buf[16];
  if (lab_cuda_version_text(v, buf)) cJSON_AddStringToObject(o, key, buf);
  else cJSON_AddNullToObject(o, key);
}

static const char *const source_names[] = {"none", "nvml", "nvidia-smi", "simulated"};

static cJSON *driver_json(const lab_driver_view *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "source", source_names[d->source]);
  cJSON_AddBoolToObject(o, "present", d->present);
  if (d->driver_version[0]) cJSON_AddStringToObject(o, "driver_version", d->driver_version);
  else cJSON_AddNullToObject(o, "driver_version");
  add_version(o, "cuda_version", d->cuda_version);
  cJSON_AddNumberToObject(o, "device_count", d->device_count);
  cJSON *arr = cJSON_AddArrayToObject(o, "devices");
  for (int i = 0; i < d->device_count && i < LAB_MAX_GPUS; i++) cJSON_AddItemToArray(arr, gpu_json(&d->dev[i], i));
  if (d->error[0]) cJSON_AddStringToObject(o, "error", d->error);
  else cJSON_AddNullToObject(o, "error");
  return o;
}

static const char *const rt_status_names[] = {"ok", "not_built", "insufficient_driver", "no_device", "error"};

cJSON *lab_runtime_view_json(const lab_runtime_view *rt) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "status", rt_status_names[rt->status]);
  cJSON_AddBoolToObject(o, "built_with_cuda", rt->status != LAB_RT_NOT_BUILT);
  add_version(o, "runtime_version", rt->runtime_version);
  add_version(o, "driver_api_version", rt->driver_api_version);
  if (rt->error_name[0]) cJSON_AddStringToObject(o, "error_name", rt->error_name);
  else cJSON_AddNullToObject(o, "error_name");
  if (rt->error_message[0]) cJSON_AddStringToObject(o, "error_message", rt->error_message);
  else cJSON_AddNullToObject(o, "error_message");
  cJSON_AddNumberToObject(o, "device_count", rt->device_count);
  cJSON *arr = cJSON_AddArrayToObject(o, "devices");
  for (int i = 0; i < rt->device_count && i < LAB_MAX_GPUS; i++) cJSON_AddItemToArray(arr, gpu_json(&rt->dev[i], i));
  cJSON *archs = cJSON_AddArrayToObject(o, "built_for");
  for (int i = 0; i < rt->n_archs; i++) cJSON_AddItemToArray(archs, cJSON_CreateNumber(rt->archs[i]));
  if (rt->ptx_arch) cJSON_AddNumberToObject(o, "ptx_for", rt->ptx_arch);
  else cJSON_AddNullToObject(o, "ptx_for");
  return o;
}

static int version_from(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  int major = 0, minor = 0;
  if (cJSON_IsString(v) && sscanf(v->valuestring, "%d.%d", &major, &minor) == 2) return major * 1000 + minor * 10;
  return 0;
}

static void text_from(const cJSON *o, const char *key, char *out, size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  snprintf(out, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static double num_from(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int lab_runtime_view_from_json(const cJSON *json, lab_runtime_view *rt, lab_error *err) {
  memset(rt, 0, sizeof *rt);
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(json, "status");
  const cJSON *devs = cJSON_GetObjectItemCaseSensitive(json, "devices");
  if (!cJSON_IsString(status) || !cJSON_IsArray(devs))
    return lab_fail(err, LAB_E_INTERNAL, NULL, "runtime view: status and devices are required");
  int found = 0;
  for (int s = 0; s < (int)(sizeof rt_status_names / sizeof rt_status_names[0]); s++)
    if (strcmp(rt_status_names[s], status->valuestring) == 0) {
      rt->status = (lab_rt_status)s;
      found = 1;
    }
  if (!found) return lab_fail(err, LAB_E_INTERNAL, NULL, "runtime view: unknown status");
  rt->runtime_version = version_from(json, "runtime_version");
  rt->driver_api_version = version_from(json, "driver_api_version");
  text_from(json, "error_name", rt->error_name, sizeof rt->error_name);
  text_from(json, "error_message", rt->error_message, sizeof rt->error_message);
  const cJSON *d;
  cJSON_ArrayForEach(d, devs) {
    if (rt->device_count >= LAB_MAX_GPUS) break;
    lab_gpu_info *g = &rt->dev[rt->device_count++];
    text_from(d, "name", g->name, sizeof g->name);
    text_from(d, "bus_id", g->bus_id, sizeof g->bus_id);
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(d, "compute_capability");
    if (cJSON_IsString(cc)) sscanf(cc->valuestring, "%d.%d", &g->cc_major, &g->cc_minor);
    g->sm_count = (int)num_from(d, "sm_count");
    g->mem_total_bytes = (uint64_t)num_from(d, "memory_total_bytes");
    g->mem_free_known = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(d, "memory_free_bytes"));
    g->mem_free_bytes = (uint64_t)num_from(d, "memory_free_bytes");
  }
  const cJSON *a;
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(json, "built_for")) {
    if (rt->n_archs < (int)(sizeof rt->archs / sizeof rt->archs[0]) && cJSON_IsNumber(a))
      rt->archs[rt->n_archs++] = a->valueint;
  }
  rt->ptx_arch = (int)num_from(json, "ptx_for");
  return 0;
}

cJSON *lab_device_json(const lab_driver_view *drv, const lab_runtime_view *rt) {
  lab_verdict v;
  lab_device_verdict(drv, rt, &v);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "driver", driver_json(drv));
  cJSON_AddItemToObject(o, "runtime", lab_runtime_view_json(rt));
  cJSON *vj = cJSON_AddObjectToObject(o, "verdict");
  cJSON_AddStringToObject(vj, "code", lab_verdict_code_name(v.code));
  cJSON_AddBoolToObject(vj, "usable", v.usable);
  cJSON_AddBoolToObject(vj, "simulate", !v.usable);
  cJSON_AddStringToObject(vj, "summary", v.summary);
  cJSON_AddStringToObject(vj, "explanation", v.explanation);
  cJSON_AddStringToObject(vj, "advice", v.advice);
  return o;
}

void lab_runtime_view_not_built(lab_runtime_view *rt) {
  memset(rt, 0, sizeof *rt);
  rt->status = LAB_RT_NOT_BUILT;
  snprintf(rt->error_name, sizeof rt->error_name, "notBuiltWithCuda");
  snprintf(rt->error_message, sizeof rt->error_message, "gpulab was built without the CUDA toolkit (nvcc not found)");
}

void lab_runtime_view_without_driver(lab_runtime_view *rt, int runtime_version) {
  memset(rt, 0, sizeof *rt);
  rt->status = LAB_RT_INSUFFICIENT_DRIVER;
  rt->runtime_version = runtime_version;
  /* cudaGetErrorName / cudaGetErrorString of that error, as kernels/device.cu records them */
  snprintf(rt->error_name, sizeof rt->error_name, "cudaErrorInsufficientDriver");
  snprintf(rt->error_message, sizeof rt->error_message, "CUDA driver version is insufficient for CUDA runtime version");
}

void lab_device_simulate_views(const lab_profile *prof, lab_driver_view *drv, lab_runtime_view *rt) {
  memset(drv, 0, sizeof *drv);
  memset(rt, 0, sizeof *rt);
  lab_gpu_info g;
  memset(&g, 0, sizeof g);
  snprintf(g.name, sizeof g.name, "%s", prof->device_name);
  g.cc_major = prof->cc_major;
  g.cc_minor = prof->cc_minor;
  g.sm_count = prof->sm_count;
  g.mem_total_bytes = prof->memory_bytes;
  g.mem_free_bytes = prof->memory_bytes - prof->context_bytes;
  g.mem_free_known = true;
  /* no bus id: a made-up PCI address would read as a real machine's */
  drv->source = LAB_DRV_SIMULATED;
  drv->present = true;
  snprintf(drv->driver_version, sizeof drv->driver_version, "%s", prof->driver_version);
  drv->cuda_version = prof->driver_cuda_version;
  drv->device_count = 1;
  drv->dev[0] = g;
  drv->dev[0].cc_major = drv->dev[0].cc_minor = drv->dev[0].sm_count = 0; /* NVML does not say */
  rt->status = LAB_RT_OK;
  rt->runtime_version = prof->driver_cuda_version;
  rt->driver_api_version = prof->driver_cuda_version;
  rt->device_count = 1;
  rt->dev[0] = g;
}

LAB_PARAMS_DEFINE(device)

cJSON *lab_device_envelope(const lab_params *p, const lab_driver_view *drv, const lab_runtime_view *rt,
                           const char *backend, const lab_profile *prof) {
  const lab_params_device tp = lab_params_device_of(p);
  lab_verdict v;
  lab_device_verdict(drv, rt, &v);
  int index = (int)tp.index;
  const lab_gpu_info *g = index < rt->device_count ? &rt->dev[index] : NULL;
  cJSON *env = lab_envelope_new("device", backend, g ? g->name : NULL, prof ? prof->name : NULL,
                                lab_params_to_json(p));
  if (!env) return NULL;
  lab_env_metric(env, "driver_device_count", drv->device_count);
  lab_env_metric(env, "runtime_device_count", rt->device_count);
  lab_env_metric(env, "usable", v.usable);
  if (g) {
    lab_env_metric(env, "memory_total_bytes", (double)g->mem_total_bytes);
    lab_env_metric(env, "memory_free_bytes", (double)g->mem_free_bytes);
    lab_env_metric(env, "sm_count", g->sm_count);
  }
  /* Simulated, nothing was asked: the findings describe an example machine
   * in the conditional and say how to check a real one. */
  bool example = drv->source == LAB_DRV_SIMULATED;
  if (example)
    lab_env_finding(env, "An example, not a check of this machine: a machine with %s and a working driver would "
                    "report the driver and runtime views shown here.", g ? g->name : "this profile's GPU");
  else
    lab_env_finding(env, "%s.", v.summary);
  if (example)
    lab_env_finding(env, "On such a machine the driver view and the CUDA runtime would each count %d GPU%s.",
                    rt->device_count, rt->device_count == 1 ? "" : "s");
  else
    lab_env_finding(env, "The driver view (%s) counts %d GPU%s; the CUDA runtime counts %d.",
                    source_names[drv->source], drv->device_count, drv->device_count == 1 ? "" : "s",
                    rt->device_count);
  if (g) {
    double total = (double)g->mem_total_bytes / 1e9, used = (double)(g->mem_total_bytes - g->mem_free_bytes) / 1e9;
    lab_env_finding(env, "GPU %d %s %s (compute capability %d.%d, %d SMs) with %.1f GB of memory, %.2f GB %s in use.",
                    index, example ? "would be" : "is", g->name, g->cc_major, g->cc_minor, g->sm_count, total, used,
                    example ? "(the CUDA context) would be" : "already");
  } else if (index > 0) {
    lab_env_finding(env, "There is no GPU %d to describe.", index);
  }
  if (example)
    lab_env_finding(env, "To check your own machine: nvidia-smi (the driver view), python -c \"import torch; "
                    "print(torch.cuda.is_available())\" (the runtime view PyTorch uses: True when a CUDA program can "
                    "use the GPU), or gpulab device (both views and a verdict, as on this page).");
  cJSON *details = lab_env_details(env);
  cJSON *views = lab_device_json(drv, rt);
  cJSON_AddItemToObject(details, "views", views);
  lab_env_stats(env, 1, 0, NULL, 0,
                example ? "Modelled from the device profile: the driver and runtime views a machine with this GPU "
                          "and a working driver would report (name, memory, compute capability and SM count from "
                          "the profile); no driver and no CUDA runtime was asked."
                        : "One query of NVML (or nvidia-smi) and of the CUDA runtime; nothing is timed.");
  return env;
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_device_simulate_views(prof, &drv, &rt);
  *out = lab_device_envelope(p, &drv, &rt, "simulated", prof);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* CPU cost (lab_experiment_cpu_ms): the envelope from the profile's
 * fields, well under a millisecond (bench/cpu_cost); 1 ms is the floor every
 * estimate keeps for building and printing an envelope. */
LAB_CPU_MS(device);

LAB_CPU_MS(device) {
  (void)p;
  *param = "index";
  return 1.0;
}

const lab_experiment lab_exp_device = {
    .name = "device",
    .title = "Two checks of a GPU: driver view vs runtime view",
    .summary = "What the driver sees (nvidia-smi, NVML) beside what a CUDA program can use, and why they can differ.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_device_spec,
    .n_params = LAB_PARAMS_COUNT(device),
    .simulate = LAB_SIMULATOR(simulate),
};
