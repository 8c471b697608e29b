/* What CUDA, ROCm and MPS each lack of what the experiments need, and why,
 * in the words an experiment that does not apply answers with. Sources:
 * PyTorch's CUDA graphs run on CUDA and on ROCm 5.3 or newer (hipGraph,
 * aten/src/ATen/cuda/CUDAGraph.cpp); MPS has no graph capture and no
 * streams (torch.mps has neither); an Apple GPU shares the CPU's memory,
 * and the M1 family's runs FP16 at the FP32 rate (philipturner-metal). */
#include "platform.h"

#include <stddef.h>
#include <string.h>

static const char *const names[LAB_PLATFORMS] = {"cuda", "rocm", "mps"};

unsigned lab_platform_lacks(lab_platform p) {
  switch (p) {
  case LAB_PLATFORM_ROCM: return LAB_NEED_NVIDIA;
  case LAB_PLATFORM_MPS:
    return LAB_NEED_HOST_LINK | LAB_NEED_NVIDIA | LAB_NEED_GRAPHS | LAB_NEED_STREAMS | LAB_NEED_MATRIX_UNITS;
  default: return 0;
  }
}

const char *lab_platform_name(lab_platform p) { return p >= 0 && p < LAB_PLATFORMS ? names[p] : names[0]; }

int lab_platform_from_name(const char *name) {
  for (int i = 0; name && i < LAB_PLATFORMS; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

const char *lab_need_what(lab_need need) {
  switch (need) {
  case LAB_NEED_HOST_LINK: return "times copies over the link between host memory and the GPU's own";
  case LAB_NEED_NVIDIA: return "reads NVIDIA's driver (nvidia-smi) beside the CUDA runtime";
  case LAB_NEED_GRAPHS: return "captures kernels into a CUDA graph and replays it";
  case LAB_NEED_STREAMS: return "overlaps copies and kernels on several streams";
  case LAB_NEED_MATRIX_UNITS: return "runs low-precision matmuls on matrix units";
  default: return "needs what this GPU lacks";
  }
}

const char *lab_platform_why_not(lab_platform p, lab_need need) {
  if (!(lab_platform_lacks(p) & need)) return NULL;
  if (p == LAB_PLATFORM_ROCM) /* it lacks NVIDIA's views alone */
    return "an AMD GPU runs ROCm instead: rocm-smi is its driver's view, and PyTorch's HIP build answers "
           "torch.cuda.is_available()";
  switch (need) {
  case LAB_NEED_HOST_LINK:
    return "an Apple GPU shares one memory with the CPU: there is no link to copy over, and pinned memory is "
           "the same as pageable";
  case LAB_NEED_NVIDIA: return "a Mac has neither: torch.backends.mps.is_available() is its one check";
  case LAB_NEED_GRAPHS: return "PyTorch has no graph capture on MPS: every op is sent on its own";
  case LAB_NEED_MATRIX_UNITS: return "the M1 family's GPU has no matrix units: FP16 runs at the FP32 rate";
  default: return "PyTorch's MPS backend has no streams to queue work on (torch.mps has no Stream)";
  }
}
