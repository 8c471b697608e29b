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

static const struct {
  const char *anchor, *what, *diag;
} forms[] = {
    {"Torch not compiled with CUDA enabled", "not_compiled", "setup_cpu_wheel"},
    {"Found no NVIDIA driver on your system", "no_driver", "setup_no_driver"},
    {"driver on your system is too old", "driver_too_old", "setup_driver_too_old"},
    {"CUDA driver version is insufficient for CUDA runtime version", "driver_too_old", "setup_driver_too_old"},
    {"no kernel image is available for execution on the device", "no_kernel_image", "setup_arch_unsupported"},
    {"is not compatible with the current PyTorch installation", "arch_warning", "setup_arch_unsupported"},
    {"NVIDIA-SMI has failed because it couldn" /* "'t" or "’t" */, "smi_no_driver",
     "setup_smi_no_driver"},
    {"Cannot re-initialize CUDA in forked subprocess", "fork_reinit", "setup_fork_reinit"},
    {"CUBLAS_STATUS_", "cublas", "setup_cublas"},
    {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "ptx_unsupported", "setup_ptx_unsupported"},
    {"the provided PTX was compiled with an unsupported toolchain", "ptx_unsupported", "setup_ptx_unsupported"},
    {"HIP error: invalid device function", "hip_invalid_device", "setup_rocm_invalid_device"},
    {"MPS backend is supported on MacOS", "mps_macos", "setup_mps_unavailable"},
    {"MPS backend is supported on macOS", "mps_macos", "setup_mps_unavailable"},
    {"not linked with support for mps devices", "mps_not_built", "setup_mps_unavailable"},
};
#define FORMS (sizeof forms / sizeof forms[0])

static int form_at(const char *t, size_t at) {
  for (size_t k = 0; k < FORMS; k++)
    if (strncmp(t + at, forms[k].anchor, strlen(forms[k].anchor)) == 0) return (int)k;
  return -1;
}

/* The arch warning's sentence starts earlier ("… with CUDA capability sm_86 is not compatible"). */
static size_t line_start(const char *t, size_t at) {
  while (at > 0 && t[at - 1] != '\n') at--;
  return at;
}

static int find(const char *t, size_t n, size_t from, size_t *start, size_t *end) {
  size_t best = LAB_EX_NONE;
  for (size_t k = 0; k < FORMS; k++) {
    size_t at = lab_ex_find(t, from, n, forms[k].anchor);
    if (at < best) best = at;
  }
  if (best == LAB_EX_NONE) return -1;
  size_t le = lab_ex_line_end(t, best, n);
  int k = form_at(t, best);
  if (k >= 0 && !strcmp(forms[k].what, "arch_warning")) {
    size_t ls = line_start(t, best);
    if (ls >= from) best = ls;
    /* "The current PyTorch install supports CUDA capabilities sm_37 …" follows on the next line */
    size_t ne = lab_ex_line_end(t, le, n);
    if (lab_ex_find(t, le, ne, "supports CUDA capabilities") != LAB_EX_NONE) le = ne;
  }
  *start = best;
  *end = le;
  return 0;
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_item *it) {
  char w[160];
  cJSON *f = it->facts;
  (void)n;
  int k = -1;
  for (size_t i = 0; i < FORMS && k < 0; i++)
    if (lab_ex_find(t, s, e, forms[i].anchor) != LAB_EX_NONE) k = (int)i;
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

const lab_ex_recogniser lab_ex_setup = {"setup", find, read};
