/* Recognises set-up failures, each naming the layer that failed: the wheel
 * ("Torch not compiled with CUDA enabled"), the driver ("Found no NVIDIA
 * driver", "driver on your system is too old (found version N)", nvidia-smi
 * unable to reach it, PTX newer than the driver), the GPU's architecture
 * ("no kernel image is available", "with CUDA capability sm_XX is not
 * compatible", ROCm's "HIP error: invalid device function"), MPS on a Mac
 * ("The MPS backend is supported on MacOS 12.3+", a build without MPS), the
 * process model ("Cannot re-initialize CUDA in forked subprocess") and
 * cuBLAS (CUBLAS_STATUS_*). */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

/* Each form's anchor, and beside it (same order) what it says and its diagnosis. */
static const char *const anchors[] = {
    "Torch not compiled with CUDA enabled",
    "Found no NVIDIA driver on your system",
    "driver on your system is too old",
    "CUDA driver version is insufficient for CUDA runtime version",
    "no kernel image is available for execution on the device",
    "is not compatible with the current PyTorch installation",
    "NVIDIA-SMI has failed because it couldn" /* "'t" or "’t" */,
    "Cannot re-initialize CUDA in forked subprocess",
    "CUBLAS_STATUS_",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "the provided PTX was compiled with an unsupported toolchain",
    "HIP error: invalid device function",
    "MPS backend is supported on MacOS",
    "MPS backend is supported on macOS",
    "not linked with support for mps devices",
    NULL,
};
static const struct {
  const char *what, *diag;
} forms[] = {
    {"not_compiled", "setup_cpu_wheel"},          {"no_driver", "setup_no_driver"},
    {"driver_too_old", "setup_driver_too_old"},   {"driver_too_old", "setup_driver_too_old"},
    {"no_kernel_image", "setup_arch_unsupported"}, {"arch_warning", "setup_arch_unsupported"},
    {"smi_no_driver", "setup_smi_no_driver"},     {"fork_reinit", "setup_fork_reinit"},
    {"cublas", "setup_cublas"},
    {"ptx_unsupported", "setup_ptx_unsupported"}, {"ptx_unsupported", "setup_ptx_unsupported"},
    {"hip_invalid_device", "setup_rocm_invalid_device"},
    {"mps_macos", "setup_mps_unavailable"},       {"mps_macos", "setup_mps_unavailable"},
    {"mps_not_built", "setup_mps_unavailable"},
};
#define FORMS (sizeof forms / sizeof forms[0])
_Static_assert(sizeof anchors / sizeof anchors[0] == FORMS + 1, "one anchor per form");

static int form_at(const char *t, size_t at) {
  for (size_t k = 0; k < FORMS; k++)
    if (strncmp(t + at, anchors[k], strlen(anchors[k])) == 0) return (int)k;
  return -1;
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  size_t best = lab_ex_next_of(m, t, n, from, n, anchors);
  m->anchor = best;
  int k = best == LAB_EX_NONE ? -1 : form_at(t, best);
  if (k >= 0 && !strcmp(forms[k].what, "arch_warning")) {
    /* the arch warning's sentence starts earlier, at its line's start ("… with CUDA capability sm_86 is not compatible") */
    size_t ls = best;
    while (ls > from && t[ls - 1] != '\n') ls--;
    lab_ex_count(best - ls);
    if (ls > from || from == 0 || t[from - 1] == '\n') best = ls;
  }
  return best;
}

/* Its line; the arch warning's next line too when it says what the install supports. */
static size_t extent(const char *t, size_t n, size_t start, size_t lim, lab_ex_memo *m) {
  (void)n;
  size_t le = lab_ex_line_end(t, m->anchor, lim);
  int k = form_at(t, m->anchor);
  (void)start;
  if (k >= 0 && !strcmp(forms[k].what, "arch_warning")) {
    /* "The current PyTorch install supports CUDA capabilities sm_37 …" follows on the next line */
    size_t ne = lab_ex_line_end(t, le, lim);
    if (lab_ex_find(t, le, ne, "supports CUDA capabilities") != LAB_EX_NONE) le = ne;
  }
  return le;
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char w[160];
  cJSON *f = it->facts;
  (void)n, (void)m;
  int k = -1;
  for (size_t i = 0; i < FORMS && k < 0; i++)
    if (lab_ex_find(t, s, e, anchors[i]) != LAB_EX_NONE) k = (int)i;
  it->kind = "setup";
  if (k < 0) { /* cannot happen: find matched one */
    it->diag = "unknown";
    return;
  }
  lab_ex_fact_str(f, "what", forms[k].what);
  it->diag = forms[k].diag;
  if (lab_ex_word_after(t, s, e, "(found version ", ")", w, sizeof w)) lab_ex_fact_str(f, "driver_found", w);
  if (lab_ex_word_after(t, s, e, "CUDA capability ", " ", w, sizeof w)) lab_ex_fact_str(f, "gpu_sm", w);
  if (lab_ex_word_after(t, s, e, "supports CUDA capabilities ", ".", w, sizeof w)) lab_ex_fact_str(f, "supported_sms", w);
  if (lab_ex_word_after(t, s, e, "supported on MacOS ", "+", w, sizeof w) ||
      lab_ex_word_after(t, s, e, "supported on macOS ", "+", w, sizeof w))
    lab_ex_fact_str(f, "mps_macos_needed", w);
  if (lab_ex_word_after(t, s, e, "CUBLAS_STATUS_", " ,.`'\")", w, sizeof w)) {
    char full[180];
    memcpy(full, "CUBLAS_STATUS_", 15);
    memcpy(full + 14, w, strlen(w) + 1);
    lab_ex_fact_str(f, "cublas_status", full);
  }
}

const lab_ex_recogniser lab_ex_setup = {"setup", find, extent, read};
