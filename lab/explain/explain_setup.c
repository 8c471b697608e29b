/* Recognises set-up failures, each naming the layer that failed: the wheel
 * ("Torch not compiled with CUDA enabled"; on a Mac there is no CUDA build
 * at all), the driver ("Found no NVIDIA driver", "driver on your system is
 * too old (found version N)", nvidia-smi unable to reach it, PTX newer than
 * the driver: CUDA_ERROR_UNSUPPORTED_PTX_VERSION, ptxas's "Unsupported
 * .version X; current version is 'Y'", "compiled with an unsupported
 * toolchain"), the GPU's architecture ("no kernel image is available", the
 * warnings "with CUDA capability sm_XX is not compatible", "Found GPU0 …
 * which is of cuda capability 6.0", "… of compute capability (CC) 7.0" with
 * the list the build supports: a GPU older than all of it, like Kaggle's
 * P100, is said so; bf16 refused below compute capability 8.0, like Colab's
 * T4), MPS on a Mac ("The MPS backend is supported on MacOS 12.3+", a build
 * without MPS), the process model ("Cannot re-initialize CUDA in forked
 * subprocess") and cuBLAS (CUBLAS_STATUS_*). */
#include <stdlib.h>
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

/* Each form's anchor, and beside it (same order) what it says, its
 * diagnosis, and the platform it shows (0: what the paste shows). */
static const char *const anchors[] = {
    "Torch not compiled with CUDA enabled",
    "Found no NVIDIA driver on your system",
    "driver on your system is too old",
    "CUDA driver version is insufficient for CUDA runtime version",
    "no kernel image is available for execution on the device",
    "is not compatible with the current PyTorch installation",
    "which is of cuda capability ",
    "which is of compute capability (CC) ",
    "NVIDIA-SMI has failed because it couldn" /* "'t" or "’t" */,
    "Cannot re-initialize CUDA in forked subprocess",
    "CUBLAS_STATUS_",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "Unsupported .version ",
    "the provided PTX was compiled with an unsupported toolchain",
    "Bfloat16 is only supported on GPUs with compute capability",
    "MPS backend is supported on MacOS",
    "MPS backend is supported on macOS",
    "not linked with support for mps devices",
    NULL,
};
enum { ON_PASTE, ON_CUDA, ON_MAC };
static const struct {
  const char *what, *diag;
  int on, arch; /* arch: an architecture warning, whose sentence starts at its line's start */
} forms[] = {
    {"not_compiled", "setup_cpu_wheel", ON_PASTE, 0},
    {"no_driver", "setup_no_driver", ON_CUDA, 0},
    {"driver_too_old", "setup_driver_too_old", ON_CUDA, 0},
    {"driver_too_old", "setup_driver_too_old", ON_CUDA, 0},
    {"no_kernel_image", "setup_arch_unsupported", ON_CUDA, 0},
    {"arch_warning", "setup_arch_unsupported", ON_CUDA, 1},
    {"arch_warning", "setup_arch_unsupported", ON_CUDA, 1},
    {"arch_warning_cc_list", "setup_arch_unsupported", ON_CUDA, 1},
    {"smi_no_driver", "setup_smi_no_driver", ON_CUDA, 0},
    {"fork_reinit", "setup_fork_reinit", ON_PASTE, 0},
    {"cublas", "setup_cublas", ON_CUDA, 0},
    {"ptx_unsupported", "setup_ptx_unsupported", ON_CUDA, 0},
    {"ptx_unsupported", "setup_ptx_unsupported", ON_CUDA, 0},
    {"ptx_toolchain", "setup_ptx_unsupported", ON_CUDA, 0},
    {"bf16_unsupported", "setup_bf16_needs_sm80", ON_CUDA, 0},
    {"mps_macos", "setup_mps_unavailable", ON_MAC, 0},
    {"mps_macos", "setup_mps_unavailable", ON_MAC, 0},
    {"mps_not_built", "setup_mps_unavailable", ON_MAC, 0},
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
  if (k >= 0 && forms[k].arch) {
    /* an architecture warning's sentence starts earlier, at its line's start ("… with CUDA capability sm_86 is not
     * compatible", "Found GPU0 … which is of cuda capability 6.0.") */
    size_t ls = best;
    while (ls > from && t[ls - 1] != '\n') ls--;
    lab_ex_count(best - ls);
    if (ls > from || from == 0 || t[from - 1] == '\n') best = ls;
  }
  return best;
}

/* Lines that go on an architecture warning: its supported list, its minimum, its CC list. */
static int arch_line(const char *t, size_t ls, size_t le) {
  size_t p = ls;
  while (p < le && (t[p] == ' ' || t[p] == '\t')) p++;
  lab_ex_count(p - ls + 1);
  if (p < le && (t[p] == '(' || (t[p] == '-' && p + 1 < le && t[p + 1] == ' '))) return 1;
  return lab_ex_find(t, p, le, "apabilit") != LAB_EX_NONE || lab_ex_find(t, p, le, " CCs ") != LAB_EX_NONE;
}

/* Its line; an architecture warning's lines that say what the install supports too. The PTX
 * assembler's "Unsupported .version" line goes on the CUDA error above it. */
static size_t extent(const char *t, size_t n, size_t start, size_t lim, lab_ex_memo *m) {
  (void)n, (void)start;
  size_t le = lab_ex_line_end(t, m->anchor, lim);
  int k = form_at(t, m->anchor);
  for (int i = 0; k >= 0 && forms[k].arch && i < 12 && le < lim; i++) {
    size_t ne = lab_ex_line_end(t, le, lim);
    if (!arch_line(t, le, ne)) break;
    le = ne;
  }
  if (k >= 0 && !strcmp(anchors[k], "CUDA_ERROR_UNSUPPORTED_PTX_VERSION") && le < lim) { /* "… CUDA_ERROR_UNSUPPORTED_PTX_VERSION" then "ptxas … Unsupported .version 8.5; …" */
    size_t ne = lab_ex_line_end(t, le, lim);
    if (lab_ex_find(t, le, ne, "Unsupported .version ") != LAB_EX_NONE) le = ne;
  }
  return le;
}

/* "7.5" or "sm_75" as 75; -1 when not one. */
static int cc_of(const char *v) {
  if (!strncmp(v, "sm_", 3)) v += 3;
  if (v[0] < '0' || v[0] > '9') return -1;
  int major = atoi(v);
  const char *dot = strchr(v, '.');
  if (dot) return major * 10 + atoi(dot + 1) % 10;
  return major >= 10 ? major : -1; /* "75" from sm_75 */
}

/* The oldest architecture the warning says the install supports, as 10 x major + minor; -1 unknown. */
static int oldest_supported(const char *t, size_t s, size_t e, const cJSON *f) {
  const cJSON *sms = cJSON_GetObjectItemCaseSensitive(f, "supported_sms");
  int oldest = -1;
  if (cJSON_IsString(sms)) /* "sm_37 sm_50 sm_60 sm_70" */
    for (const char *p = strstr(sms->valuestring, "sm_"); p; p = strstr(p + 3, "sm_")) {
      int v = atoi(p + 3);
      if (v > 0 && (oldest < 0 || v < oldest)) oldest = v;
    }
  char w[16];
  /* "Minimum and Maximum cuda capability supported by this version of PyTorch is\n (7.0) - (12.0)" */
  size_t at = lab_ex_find(t, s, e, "supported by this version of PyTorch is");
  size_t par = at == LAB_EX_NONE ? LAB_EX_NONE : lab_ex_find(t, at, e, "(");
  if (par != LAB_EX_NONE && lab_ex_word(t, par + 1, e, ")", w, sizeof w) && cc_of(w) > 0) oldest = cc_of(w);
  /* before PyTorch 1.13: "The minimum cuda capability supported by this library is 3.7." */
  if ((lab_ex_word_after(t, s, e, "supported by this library is ", " ", w, sizeof w) ||
       lab_ex_word_after(t, s, e, "capability that we support is ", " ", w, sizeof w)) && cc_of(w) > 0)
    oldest = cc_of(w);
  /* PyTorch 2.7: "- 7.5 which supports hardware CC >=7.5,<8.0", one line per built CC */
  for (at = lab_ex_find(t, s, e, "- "); at != LAB_EX_NONE; at = lab_ex_find(t, at + 2, e, "- ")) {
    size_t le = lab_ex_line_end(t, at, e);
    if (lab_ex_find(t, at, le, " which supports") == LAB_EX_NONE || !lab_ex_word(t, at + 2, le, " ", w, sizeof w)) continue;
    int v = cc_of(w);
    if (v > 0 && (oldest < 0 || v < oldest)) oldest = v;
  }
  return oldest;
}

/* The GPU's name in "Found GPU0 NAME which is of …" or at the line's start of "NAME with CUDA capability sm_XX". */
static void gpu_name(const char *t, size_t s, size_t e, cJSON *f) {
  char w[128];
  size_t at = lab_ex_find(t, s, e, "Found GPU"), stop = LAB_EX_NONE, from = s;
  if (at != LAB_EX_NONE) {
    from = at + 9;
    while (from < e && t[from] >= '0' && t[from] <= '9') from++;
    stop = lab_ex_find(t, from, lab_ex_line_end(t, from, e), " which is of");
  } else {
    stop = lab_ex_find(t, s, lab_ex_line_end(t, s, e), " with CUDA capability");
  }
  if (stop == LAB_EX_NONE || stop <= from) return;
  if (lab_ex_word(t, from, stop, NULL, w, sizeof w)) lab_ex_fact_str(f, "gpu_name", w);
}

/* A compute capability as printed, without the sentence's period: "6.0." is "6.0". */
static void cc_fact(const char *t, size_t s, size_t e, const char *phrase, cJSON *f) {
  char w[16];
  if (!lab_ex_word_after(t, s, e, phrase, " ", w, sizeof w)) return;
  size_t k = strlen(w);
  while (k && (w[k - 1] == '.' || w[k - 1] == ',')) w[--k] = '\0';
  if (k && cc_of(w) > 0) lab_ex_fact_str(f, "gpu_cc", w);
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char w[160];
  cJSON *f = it->facts;
  (void)n;
  int k = m->anchor != LAB_EX_NONE && m->anchor >= s && m->anchor < e ? form_at(t, m->anchor) : -1;
  for (size_t i = 0; i < FORMS && k < 0; i++)
    if (lab_ex_find(t, s, e, anchors[i]) != LAB_EX_NONE) k = (int)i;
  it->kind = "setup";
  if (k < 0) { /* cannot happen: find matched one */
    it->diag = "unknown";
    return;
  }
  lab_ex_fact_str(f, "what", forms[k].what);
  it->diag = forms[k].diag;
  it->platform = forms[k].on == ON_CUDA ? LAB_EX_CUDA : forms[k].on == ON_MAC ? LAB_EX_MAC : LAB_EX_NO_PLATFORM;
  /* there is no CUDA build for macOS: on a Mac the answer is the MPS device, not another wheel */
  if (k == 0 && it->paste && it->paste->platform == LAB_EX_MAC) it->diag = "setup_no_cuda_on_mac";
  /* each form's own facts only: a phrase searched for is a pass over the window (check_explain_cost) */
  const char *what = forms[k].what;
  if (!strcmp(what, "driver_too_old") && lab_ex_word_after(t, s, e, "(found version ", ")", w, sizeof w))
    lab_ex_fact_str(f, "driver_found", w);
  if (!strcmp(what, "mps_macos") && (lab_ex_word_after(t, s, e, "supported on MacOS ", "+", w, sizeof w) ||
                                     lab_ex_word_after(t, s, e, "supported on macOS ", "+", w, sizeof w)))
    lab_ex_fact_str(f, "mps_macos_needed", w);
  if (!strcmp(what, "cublas") && lab_ex_word_after(t, s, e, "CUBLAS_STATUS_", " ,.`'\")", w, sizeof w)) {
    char full[180];
    memcpy(full, "CUBLAS_STATUS_", 15);
    memcpy(full + 14, w, strlen(w) + 1);
    lab_ex_fact_str(f, "cublas_status", full);
  }
  /* ptxas: "Unsupported .version 8.5; current version is '8.4'" (the PTX's ISA version, the driver's) */
  if (!strcmp(what, "ptx_unsupported")) {
    if (lab_ex_word_after(t, s, e, "Unsupported .version ", "; ", w, sizeof w)) lab_ex_fact_str(f, "ptx_version", w);
    if (lab_ex_word_after(t, s, e, "current version is '", "'", w, sizeof w)) lab_ex_fact_str(f, "ptx_current", w);
  }
  if (forms[k].arch) {
    if (lab_ex_word_after(t, s, e, "CUDA capability ", " ", w, sizeof w) && !strncmp(w, "sm_", 3))
      lab_ex_fact_str(f, "gpu_sm", w);
    if (lab_ex_word_after(t, s, e, "supports CUDA capabilities ", ".", w, sizeof w)) lab_ex_fact_str(f, "supported_sms", w);
    gpu_name(t, s, e, f);
    if (!strncmp(anchors[k], "which is of", 11)) cc_fact(t, m->anchor, e, anchors[k], f);
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(f, "gpu_cc"), *sm = cJSON_GetObjectItemCaseSensitive(f, "gpu_sm");
    int gpu = cJSON_IsString(cc) ? cc_of(cc->valuestring) : cJSON_IsString(sm) ? cc_of(sm->valuestring) : -1;
    int oldest = oldest_supported(t, s, e, f);
    /* below every architecture the wheel carries (Kaggle's P100, sm_60, under a wheel from sm_70): an older GPU */
    if (gpu > 0 && oldest > 0 && gpu < oldest) it->diag = "env_gpu_older_than_wheel";
  }
  if (!strcmp(forms[k].what, "bf16_unsupported")) { /* "… Your Tesla T4 GPU has compute capability 7.5." */
    size_t at = lab_ex_find(t, s, e, "Your "), g = at == LAB_EX_NONE ? LAB_EX_NONE : lab_ex_find(t, at, e, " GPU has compute");
    if (g != LAB_EX_NONE && g - at < 120 && lab_ex_word(t, at + 5, g, NULL, w, sizeof w)) lab_ex_fact_str(f, "gpu_name", w);
    cc_fact(t, s, e, "GPU has compute capability ", f);
  }
}

const lab_ex_recogniser lab_ex_setup = {"setup", find, extent, read};
