/* The PyTorch view (see view.h). */
#include "view.h"

#include <string.h>

const char *const lab_view_choices[] = {"pytorch", "cuda", NULL};

bool lab_view_pytorch(const lab_params *p) {
  const char *v = lab_param_choice(p, "view");
  return v && strcmp(v, "pytorch") == 0;
}

void lab_view_profile(const lab_profile *in, bool pytorch, lab_profile *out) {
  *out = *in;
  if (pytorch) out->launch_us += in->torch_op_us;
}

const char *lab_view_sentence(bool simulated, bool pytorch) {
  if (!simulated)
    return " View: raw CUDA, as measured here (the view parameter applies to the simulator only; PyTorch adds its "
           "own host cost, a few µs, to every op).";
  return pytorch ? " View: as PyTorch sees it: every launch also pays PyTorch's per-op host overhead (torch_op_us, "
                   "measured on an A100; depends on the host CPU)."
                 : " View: raw CUDA launches (cudaLaunchKernel), without PyTorch's per-op host overhead.";
}
