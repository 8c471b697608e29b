/* The device check's picture for a set-up failure or a collect_env dump:
 * the layers CUDA work passes through (driver, runtime, the PyTorch wheel,
 * the GPU's architecture, the process model), the learner's own values
 * where the text gives them, and which layer failed. A layer the text says
 * nothing about is "not in the text", never guessed. */
#include <string.h>

#include "explain_item.h"

static const char *const names[] = {"driver", "runtime", "wheel", "architecture", "process"};
#define NLAYERS 5

static const char *fact(const lab_ex_item *it, const char *k) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(it->facts, k);
  return cJSON_IsString(f) ? f->valuestring : NULL;
}

/* The failed layer for a diagnosis; -1 for none. */
static int failed_layer(const char *diag) {
  static const struct {
    const char *diag;
    int layer;
  } map[] = {
      {"setup_cpu_wheel", 2},          {"setup_no_driver", 0},          {"setup_smi_no_driver", 0},
      {"setup_driver_too_old", 0},     {"setup_arch_unsupported", 3},   {"setup_fork_reinit", 4},
      {"env_cpu_wheel_on_gpu", 2},     {"env_runtime_newer_than_driver", 0}, {"env_gpu_older_than_wheel", 3},
      {"env_cuda_unavailable", 1},     {"env_ptx_newer_than_driver", 0}, {"env_arch_not_in_wheel", 3},
      {"env_rocm_gfx_unsupported", 3}, {"env_mps_unusable", 2},        {"env_bf16_emulated", 3},
      {"setup_ptx_unsupported", 0},    {"setup_rocm_invalid_device", 3}, {"setup_mps_unavailable", 2},
      {"setup_no_cuda_on_mac", 2},     {"setup_bf16_needs_sm80", 3},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i].diag, diag)) return map[i].layer;
  return -1;
}

cJSON *lab_ex_layers_json(const lab_ex_item *it) {
  int setup = !strcmp(it->kind, "setup"), env = !strcmp(it->kind, "collect_env");
  if (!setup && !env) return NULL;
  int bad = failed_layer(it->diag);
  const char *value[NLAYERS] = {0};
  if (env) {
    value[0] = fact(it, "driver");
    value[1] = fact(it, "cuda_build");
    value[2] = fact(it, "torch");
    value[3] = fact(it, "gpu_arch") ? fact(it, "gpu_arch") : fact(it, "gpu");
  } else {
    value[0] = fact(it, "driver_found");
    value[3] = fact(it, "gpu_sm");
  }
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < NLAYERS; i++) {
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "layer", names[i]);
    if (value[i]) cJSON_AddStringToObject(l, "value", value[i]);
    /* a consistent report vouches for the layers it shows; a failure only for the one that failed */
    const char *state = i == bad                                                ? "failed"
                        : env && !strcmp(it->diag, "env_consistent") && value[i] ? "ok"
                        : value[i]                                                ? "no problem seen"
                                                                                  : "not in the text";
    cJSON_AddStringToObject(l, "state", state);
    cJSON_AddItemToArray(arr, l);
  }
  return arr;
}
