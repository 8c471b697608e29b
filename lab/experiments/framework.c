/* Which framework's launch costs a simulated time carries (see framework.h). */
#include "framework.h"

#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"

const char *const lab_framework_choices[] = {"pytorch", "cuda", NULL};

bool lab_framework_pytorch(int view) { return view >= 0 && view < 2 && strcmp(lab_framework_choices[view], "pytorch") == 0; }

void lab_framework_profile(const lab_profile *in, bool pytorch, lab_profile *out) {
  *out = *in;
  if (pytorch) out->launch_us += in->torch_op_us;
}

const char *lab_framework_sentence(bool simulated, bool pytorch) {
  if (!simulated)
    return " View: raw CUDA, as measured here (the view parameter applies to the simulator only; PyTorch adds its "
           "own host cost, a few µs, to every op).";
  return pytorch ? " View: as PyTorch sees it: every launch also pays PyTorch's per-op host overhead (torch_op_us, "
                   "a published A100 figure; it depends on the host CPU)."
                 : " View: raw CUDA launches (cudaLaunchKernel), without PyTorch's per-op host overhead.";
}

/* A GPU run measured raw CUDA whatever its params asked: its params say so. */
static void params_as_measured(cJSON *env) {
  cJSON *params = cJSON_GetObjectItemCaseSensitive(env, "params");
  if (cJSON_GetObjectItemCaseSensitive(params, "view"))
    cJSON_ReplaceItemInObjectCaseSensitive(params, "view", cJSON_CreateString("cuda"));
}

static void finding(cJSON *env, const lab_profile *prof, bool pytorch) {
  if (!prof)
    lab_env_finding(env, "These are raw CUDA launches, as measured here. From PyTorch each op also pays its own host "
                    "overhead, a few µs (about 4 on an A100 host), so launch-bound code looks worse there.");
  else if (pytorch)
    lab_env_finding(env, "View: as PyTorch sees it. Each launch cost the host %.1f µs: %.1f for the raw CUDA launch and "
                    "%.1f of PyTorch's own per-op overhead. Set view to cuda for the raw launch alone.",
                    prof->launch_us + prof->torch_op_us, prof->launch_us, prof->torch_op_us);
  else
    lab_env_finding(env, "View: raw CUDA. Each launch cost the host %.1f µs; from PyTorch every op also pays about "
                    "%.1f µs of its own, as the pytorch view shows.",
                    prof->launch_us, prof->torch_op_us);
}

bool lab_framework_report(cJSON *env, int view, const lab_profile *prof) {
  bool pytorch = prof && lab_framework_pytorch(view);
  cJSON_AddStringToObject(lab_env_details(env), "view", pytorch ? "pytorch" : "cuda");
  finding(env, prof, pytorch);
  if (!prof) params_as_measured(env);
  return pytorch;
}
