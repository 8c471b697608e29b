/* Recognises the errors a kernel raises after Python moved on, reported "at
 * some other API call": "device-side assert triggered" (with the kernel's
 * own "Assertion `…` failed." line when pasted), "an illegal memory access
 * was encountered", and the other launch failures. One item per message,
 * its standard hint lines (CUDA_LAUNCH_BLOCKING, TORCH_USE_CUDA_DSA)
 * included. */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

static const char *const anchors[] = {"device-side assert triggered", "Assertion `", "illegal memory access",
                                      "unspecified launch failure", "misaligned address", "illegal instruction",
                                      "asynchronously reported at some other API call", NULL};
static const char *const hints[] = {"CUDA kernel errors might be asynchronously", "For debugging consider passing",
                                    "Compile with `TORCH_USE_CUDA_DSA`", NULL};

/* cudaGetErrorString's texts a pasted message starts with */
static const char *const known[] = {"device-side assert triggered", "an illegal memory access was encountered",
                                    "unspecified launch failure", "misaligned address",
                                    "an illegal instruction was encountered", NULL};

static int find(const char *t, size_t n, size_t from, size_t *start, size_t *end) {
  lab_ex_anchor_scan sc;
  for (size_t at = lab_ex_scan_start(&sc, t, n, from, anchors);; at = lab_ex_scan_skip(&sc, t, n, at)) {
    if (at == LAB_EX_NONE) return -1;
    size_t le = lab_ex_line_end(t, at, n);
    if (strncmp(t + at, "Assertion `", 11) == 0 && lab_ex_find(t, at, le - at > 300 ? at + 300 : le, "` failed") == LAB_EX_NONE) {
      continue; /* a Python AssertionError or prose, not a kernel's assert */
    }
    size_t lo = at > 400 ? at - 400 : 0;
    if (strncmp(t + at, "asynchronously", 14) == 0 &&
        (lab_ex_find(t, lo, at, "CUDA error: ") != LAB_EX_NONE || lab_ex_find(t, lo, at, "CUBLAS_STATUS_") != LAB_EX_NONE ||
         lab_ex_find(t, lo, at, "HIP error: invalid device function") != LAB_EX_NONE)) {
      continue; /* the hint under another error (out of memory, no kernel image, ROCm's missing kernel): part of that one */
    }
    /* its hint lines, and a kernel's repeated assert lines, belong to it */
    for (int k = 0; k < 64 && le < n; k++) {
      size_t ne = lab_ex_line_end(t, le, n);
      size_t ce = ne - le > 300 ? le + 300 : ne; /* a kernel's assert line is short */
      int own = lab_ex_find(t, le, ce, "` failed") != LAB_EX_NONE && lab_ex_find(t, le, ce, "Assertion `") != LAB_EX_NONE;
      for (int h = 0; !own && hints[h]; h++) own = lab_ex_find(t, le, ne, hints[h]) != LAB_EX_NONE;
      if (!own) break;
      le = ne;
    }
    *start = at;
    *end = le;
    return 0;
  }
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_item *it) {
  char msg[160], assert_line[200];
  cJSON *f = it->facts;
  it->kind = "async_error";
  /* the kernel's assert, which CUDA prints before the Python error (anywhere before this message) */
  size_t a = lab_ex_find(t, s, e, "Assertion `");
  if (a == LAB_EX_NONE) {
    size_t lo = s > 16384 ? s - 16384 : 0;
    for (size_t p = lab_ex_find(t, lo, s, "Assertion `"); p != LAB_EX_NONE; p = lab_ex_find(t, p + 1, s, "Assertion `"))
      if (lab_ex_find(t, p, s - p > 300 ? p + 300 : s, "` failed") != LAB_EX_NONE) a = p; /* its own line: short */
  }
  /* the assertion up to its "` failed" (what follows, a period or a glued next message, is not part of it) */
  size_t ae = a == LAB_EX_NONE ? LAB_EX_NONE : lab_ex_find(t, a, lab_ex_line_end(t, a, n), "` failed");
  if (ae != LAB_EX_NONE && lab_ex_word(t, a, ae + 8, NULL, assert_line, sizeof assert_line))
    lab_ex_fact_str(f, "assert_text", assert_line);
  if (lab_ex_word_after(t, s, e, "CUDA error: ", NULL, msg, sizeof msg)) {
    for (int k = 0; known[k]; k++) /* CUDA's own wording, without what a paste glued after it */
      if (!strncmp(msg, known[k], strlen(known[k]))) msg[strlen(known[k])] = '\0';
    lab_ex_fact_str(f, "message", msg);
  }
  else if (lab_ex_find(t, s, e, "device-side assert triggered") != LAB_EX_NONE) lab_ex_fact_str(f, "message", "device-side assert triggered");
  else if (lab_ex_find(t, s, e, "illegal memory access") != LAB_EX_NONE) lab_ex_fact_str(f, "message", "an illegal memory access was encountered");
  /* "device-side assert triggered", not the hint "… to enable device-side assertions" */
  if (lab_ex_find(t, s, e, "device-side assert triggered") != LAB_EX_NONE || lab_ex_find(t, s, e, "Assertion `") != LAB_EX_NONE)
    it->diag = "async_device_assert";
  else if (lab_ex_find(t, s, e, "illegal memory access") != LAB_EX_NONE) it->diag = "async_illegal_access";
  else it->diag = "async_other";
}

const lab_ex_recogniser lab_ex_async = {"async_error", find, read};
