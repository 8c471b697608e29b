/* The CUDA context's memory (what nvidia-smi shows before the first
 * tensor), by how the CUDA version PyTorch was built with loads kernels.
 * Lazy loading (CUDA 11.7 on, which PyTorch turns on itself when
 * CUDA_MODULE_LOADING is unset) loads a kernel when it first runs: the
 * profile's estimate, a few hundred MiB. Eager loading (every CUDA before
 * 11.7, or CUDA_MODULE_LOADING=EAGER) loads every kernel of every library
 * at context creation: the size of the wheel's kernels, measured by others
 * per CUDA era (below). Lazily, the step's kernels come on top (measured on
 * an H100, below). None of these figures comes from a published row. */
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

/* Under lazy loading the context grows by the kernels the training step
 * runs (cuBLAS's and cuBLASLt's GEMMs, PyTorch's elementwise, norm,
 * softmax and optimizer kernels, flash attention). Measured on the first
 * GPU lease (NVIDIA H100 80GB HBM3, torch 2.11.0+cu130, 2026-11-28,
 * tests/plan/lease/): total - free less max_memory_reserved after the
 * fp32 eager GPT-2 plan, less the baseline before its model, 224 MiB; the
 * next plan (bf16 autocast, SDPA) added 16 MiB of its own kernels, so 240
 * MiB for a step in half precision or with SDPA: an upper figure, since
 * that run found the fp32 plan's kernels already loaded. */
#define STEP_KERNELS_FP32 (224 * MIB)
#define STEP_KERNELS_HALF (240 * MIB)

static uint64_t step_kernels(const lab_plan_settings *s) {
  return s->precision == LAB_PLAN_FP32 && s->attention != LAB_PLAN_SDPA ? STEP_KERNELS_FP32 : STEP_KERNELS_HALF;
}

uint64_t lab_plan_context_bytes(const lab_plan_settings *s, const char **what) {
  const char *label = "CUDA context (lazy module loading: the profile's estimate and the step's kernels)";
  uint64_t bytes = s->profile.context_bytes + step_kernels(s);
  if (s->backend != LAB_PLAN_BACKEND_CUDA) {
    label = "no CUDA context (the CPU backend)";
    bytes = 0;
  } else if (s->own_profile) {
    label = s->module_loading == LAB_PLAN_LOADING_EAGER ? "CUDA context (the profile's own figure)"
                                                        : "CUDA context (the profile's own figure and the step's kernels)";
    if (s->module_loading == LAB_PLAN_LOADING_EAGER) bytes = s->profile.context_bytes;
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
