/* Recognises the failures of PyTorch on an AMD card (ROCm, HIP):
 *   "HIP error: invalid device function" (also "Invalid", and as
 *    torch.AcceleratorError), with its hint lines (AMD_SERIALIZE_KERNEL=3,
 *    TORCH_USE_HIP_DSA): the build has no code for this GPU's gfx target;
 *   "hipErrorNoBinaryForGpu: Unable to find code object for all current
 *    devices!" (before ROCm 4.1 "Coudn't find binary for current
 *    devices!"): the same, found when the program loads;
 *   "rocBLAS error: Cannot read …TensileLibrary.dat: … for GPU arch :
 *    gfxN": rocBLAS has no kernels for that target;
 *   "No HIP GPUs are available"; MIOpen's errors ("MIOpen Error:",
 *    "MIOpen(HIP): Error", miopenStatus…);
 *   rocminfo's "Unable to open /dev/kfd read-write: REASON" (Permission
 *    denied, or not a member of the video/render group: the groups; any
 *    other reason: the kernel driver does not serve this GPU).
 * The gfx target is read from the message when it names one, else from
 * the paste (explain.c); a ROCm wheel on a machine whose paste names only
 * an NVIDIA GPU is said so. */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

static const char *const anchors[] = {
    "HIP error: invalid device function", "HIP error: Invalid device function", "hipErrorNoBinaryForGpu",
    "No HIP GPUs are available", "BLAS error: Cannot read", "MIOpen Error", "MIOpen(HIP): Error", "miopenStatus",
    "Unable to open /dev/kfd", NULL};
static const char *const whats[] = {"invalid_device_function", "invalid_device_function", "no_binary_for_gpu",
                                    "no_hip_gpus", "rocblas_tensile", "miopen", "miopen", "miopen", "kfd_open"};
/* lines after a message that belong to it: its hints, rocBLAS's and MIOpen's next lines */
static const char *const own_lines[] = {"HIP kernel errors might be asynchronously", "For debugging consider passing",
                                        "TORCH_USE_HIP_DSA", "Search for `hipError", "rocBLAS error",
                                        "MIOpen", "is not member of", "is member of", "group membership", NULL};

static int form_at(const char *t, size_t n, size_t at) {
  for (int k = 0; anchors[k]; k++)
    if (n - at >= strlen(anchors[k]) && !strncmp(t + at, anchors[k], strlen(anchors[k]))) return k;
  return -1;
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) { return lab_ex_next_of(m, t, n, from, n, anchors); }

/* Its line, then the lines that belong to it (at most 16; blank lines between them too). */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  (void)n, (void)m;
  size_t le = lab_ex_line_end(t, at, lim), last = le;
  for (int k = 0; k < 16 && le < lim; k++) {
    size_t ne = lab_ex_line_end(t, le, lim), p = le;
    while (p < ne && (t[p] == ' ' || t[p] == '\t' || t[p] == '>' || t[p] == '\r' || t[p] == '\n')) p++;
    lab_ex_count(p - le + 1);
    if (p == ne) { /* blank: part of it only when an own line follows */
      le = ne;
      continue;
    }
    int own = 0;
    for (int h = 0; !own && own_lines[h]; h++) own = lab_ex_find(t, le, ne, own_lines[h]) != LAB_EX_NONE;
    if (!own) break;
    last = le = ne;
  }
  return last;
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char w[48];
  cJSON *f = it->facts;
  (void)m;
  it->kind = "hip";
  it->platform = LAB_EX_ROCM;
  int k = form_at(t, n, s);
  if (k < 0) k = 0; /* find matched one */
  const char *what = whats[k];
  if (!strcmp(what, "kfd_open")) { /* the reason after the colon decides */
    size_t le = lab_ex_line_end(t, s, e);
    if (lab_ex_find(t, s, le, "Permission denied") != LAB_EX_NONE || lab_ex_find(t, s, e, "is not member of") != LAB_EX_NONE)
      what = "permission";
  }
  lab_ex_fact_str(f, "what", what);
  if (lab_ex_word_after(t, s, e, "for GPU arch : ", " \"'`", w, sizeof w) && !strncmp(w, "gfx", 3)) lab_ex_fact_str(f, "gfx", w);
  const lab_ex_paste *p = it->paste;
  if (!strcmp(what, "invalid_device_function") || !strcmp(what, "no_binary_for_gpu"))
    /* the paste names an NVIDIA GPU and no AMD one: a ROCm build on an NVIDIA machine */
    it->diag = p && p->nvidia_gpu && !p->amd_gpu ? "hip_rocm_wheel_on_nvidia" : "setup_rocm_invalid_device";
  else if (!strcmp(what, "rocblas_tensile")) it->diag = "setup_rocm_invalid_device";
  else if (!strcmp(what, "no_hip_gpus")) it->diag = "hip_no_gpu";
  else if (!strcmp(what, "miopen")) it->diag = "hip_miopen";
  else if (!strcmp(what, "permission")) it->diag = "hip_permission";
  else it->diag = "hip_kfd_unavailable";
}

const lab_ex_recogniser lab_ex_hip = {"hip", find, extent, read};
