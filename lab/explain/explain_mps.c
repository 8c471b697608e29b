/* Recognises what PyTorch's MPS backend (a Mac's GPU) refuses:
 *   "Placeholder storage has not been allocated on MPS device!" (an input
 *    of the op is still on the CPU),
 *   "Cannot convert a MPS Tensor to float64 dtype as the MPS framework
 *    doesn't support float64. Please use float32 instead.",
 *   "BFloat16 is not supported on MPS", before it "Trying to convert
 *    BFloat16 to the MPS backend but it does not have support for that
 *    dtype.", and "MPS BFloat16 is only supported on MacOS 14 or newer",
 *   "The operator 'OP' is not current(ly) implemented for the MPS device.
 *    … you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`"
 * (aten/src/ATen/mps, torch/csrc). Whether the paste shows torch.from_numpy
 * or the fallback variable already set comes from the paste's one reading
 * (explain_platform.c): the variable is read when torch is imported, so one
 * set later in the program changes nothing. */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

static const char *const anchors[] = {"Placeholder storage has not been allocated on MPS device",
                                      "Cannot convert a MPS Tensor to float64",
                                      "BFloat16 is not supported on MPS",
                                      "Trying to convert BFloat16 to the MPS backend",
                                      "MPS BFloat16 is only supported on MacOS",
                                      "The operator '",
                                      NULL};
static const char *const whats[] = {"placeholder_storage", "float64", "bf16", "bf16", "bf16", "not_implemented"};
static const char mps_device[] = "implemented for the MPS device";

static int form_at(const char *t, size_t n, size_t at) {
  for (int k = 0; anchors[k]; k++)
    if (n - at >= strlen(anchors[k]) && !strncmp(t + at, anchors[k], strlen(anchors[k]))) return k;
  return -1;
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  for (size_t at = lab_ex_next_of(m, t, n, from, n, anchors); at != LAB_EX_NONE;
       at = lab_ex_next_of(m, t, n, at + 1, n, anchors)) {
    /* "The operator '" only with "… implemented for the MPS device" on its line */
    if (t[at] == 'T' && t[at + 1] == 'h' &&
        lab_ex_next(m, t, n, at, lab_ex_next_line_end(m, t, n, at, n), mps_device) == LAB_EX_NONE)
      continue;
    m->anchor = at;
    return at;
  }
  return LAB_EX_NONE;
}

static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  (void)n, (void)m;
  return lab_ex_line_end(t, at, lim);
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char w[160];
  cJSON *f = it->facts;
  (void)m;
  it->kind = "mps";
  it->platform = LAB_EX_MAC;
  int k = form_at(t, n, s);
  if (k < 0) k = 0; /* find matched one */
  lab_ex_fact_str(f, "what", whats[k]);
  if (!strcmp(whats[k], "not_implemented")) {
    if (lab_ex_word_after(t, s, e, "The operator '", "'", w, sizeof w)) lab_ex_fact_str(f, "op", w);
    int hint = lab_ex_find(t, s, e, "PYTORCH_ENABLE_MPS_FALLBACK") != LAB_EX_NONE;
    if (hint) cJSON_AddBoolToObject(f, "fallback_hint", 1);
    if (it->paste && it->paste->fallback_set) cJSON_AddBoolToObject(f, "fallback_set", 1);
    it->diag = it->paste && it->paste->fallback_set ? "mps_fallback_set_too_late" : "mps_op_not_implemented";
    return;
  }
  if (!strcmp(whats[k], "bf16")) {
    if (lab_ex_word_after(t, s, e, "supported on MacOS ", " ", w, sizeof w)) lab_ex_fact_str(f, "macos_min", w);
    it->diag = "mps_bf16_unsupported";
    return;
  }
  if (!strcmp(whats[k], "float64")) {
    if (it->paste && it->paste->from_numpy) cJSON_AddBoolToObject(f, "from_numpy", 1);
    it->diag = "mps_float64";
    return;
  }
  it->diag = "mps_placeholder_storage";
}

const lab_ex_recogniser lab_ex_mps = {"mps", find, extent, read};
