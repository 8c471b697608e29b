/* The CUDA context's memory (what nvidia-smi shows before the first
 * tensor), by how the CUDA version PyTorch was built with loads kernels.
 * Lazy loading (CUDA 11.7 on, which PyTorch turns on itself when
 * CUDA_MODULE_LOADING is unset) loads a kernel when it first runs: the
 * profile's estimate, a few hundred MiB. Eager loading (every CUDA before
 * 11.7, or CUDA_MODULE_LOADING=EAGER) loads every kernel of every library
 * at context creation: the size of the wheel's kernels, measured by others
 * per CUDA era (below). None of these figures comes from a published row. */
#include "plan_int.h"

#define MIB (1024ull * 1024ull)

/* Eager contexts as published, less the allocator segment the probe's one
 * tensor took (2 MiB for a 1-element tensor; a 20 MiB segment for the
 * 6.4 MB tensor of the pull request, 1 MiB < size < 10 MiB):
 *  - CUDA 10.x (cuDNN 7): 721 MiB on a GTX 1080, torch 1.8.2+cu101,
 *    `torch.Tensor(1).cuda()`, nvidia-smi
 *    (https://github.com/pytorch/pytorch/issues/55277, comment of 2022-04-12);
 *  - CUDA 11.0 to 11.6 (cuDNN 8, loaded whole): 1687 MiB on an RTX 3090,
 *    torch 1.8.2+cu111, the same comment; a PyTorch maintainer puts it at
 *    ">1000MB" before 11.7 (https://github.com/pytorch/pytorch/issues/107667);
 *  - CUDA 11.7 and later with eager loading: 666,632,192 bytes (total - free)
 *    with CUDA_MODULE_LOADING=DEFAULT, against 287,047,680 lazily, torch
 *    1.13 on a CUDA of 11.7 or later, since lazy loading took effect
 *    (https://github.com/pytorch/pytorch/pull/85692); PyTorch has set
 *    LAZY itself when the variable is unset since then
 *    (https://github.com/pytorch/pytorch/pull/86509).
 * Only the device's own architecture's kernels load, so the size is the
 * wheel's, not the card's: none was measured on a V100 or a T4. */
#define EAGER_CUDA10 (719 * MIB)
#define EAGER_CUDA11 (1685 * MIB)
#define EAGER_CUDA117 (666632192ull - 20 * MIB)

uint64_t lab_plan_context_bytes(const lab_plan_settings *s, const char **what) {
  const char *label = "CUDA context (lazy module loading: the profile's estimate)";
  uint64_t bytes = s->profile.context_bytes;
  if (s->backend != LAB_PLAN_BACKEND_CUDA) {
    label = "no CUDA context (the CPU backend)";
    bytes = 0;
  } else if (s->own_profile) {
    label = "CUDA context (the profile's own figure)";
  } else if (s->module_loading == LAB_PLAN_LOADING_EAGER) {
    double v = s->cuda > 0 ? s->cuda : LAB_PLAN_CUDA_LAZY_FROM;
    bytes = v < 11.0 ? EAGER_CUDA10 : v < LAB_PLAN_CUDA_LAZY_FROM - 1e-9 ? EAGER_CUDA11 : EAGER_CUDA117;
    label = v < 11.0 ? "CUDA context (every kernel loaded: CUDA 10, cuDNN 7)"
            : v < LAB_PLAN_CUDA_LAZY_FROM - 1e-9 ? "CUDA context (every kernel loaded: CUDA 11.0-11.6, cuDNN 8)"
                                                 : "CUDA context (every kernel loaded: CUDA_MODULE_LOADING=EAGER)";
  }
  if (what) *what = label;
  return bytes;
}
