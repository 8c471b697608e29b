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

#define ASSERT_LINE_MAX 300 /* a kernel's assert line is short */
/* how far after the message's start its last hint line is looked for: past
 * the traceback PyTorch prints between a kernel's assert line and the
 * error (the H100's blocking cross-entropy: 569 bytes) */
#define HINTS_AFTER_MAX 4096

/* Whether the "Assertion `" at p is a kernel's: its "` failed" ends within
 * ASSERT_LINE_MAX bytes, on its line, before lim. */
static int kernel_assert(lab_ex_memo *m, const char *t, size_t n, size_t p, size_t lim) {
  size_t le = lab_ex_next_line_end(m, t, n, p, lim);
  return lab_ex_next(m, t, n, p, le - p > ASSERT_LINE_MAX ? p + ASSERT_LINE_MAX : le, "` failed") != LAB_EX_NONE;
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  for (size_t at = lab_ex_next_of(m, t, n, from, n, anchors); at != LAB_EX_NONE;
       at = lab_ex_next_of(m, t, n, at + 1, n, anchors)) {
    if (strncmp(t + at, "Assertion `", 11) == 0 && !kernel_assert(m, t, n, at, n))
      continue; /* a Python AssertionError or prose, not a kernel's assert */
    size_t lo = at > 400 ? at - 400 : 0;
    if (strncmp(t + at, "asynchronously", 14) == 0 &&
        (lab_ex_next(m, t, n, lo, at, "CUDA error: ") != LAB_EX_NONE || lab_ex_next(m, t, n, lo, at, "CUBLAS_STATUS_") != LAB_EX_NONE ||
         lab_ex_next(m, t, n, lo, at, "HIP error: ") != LAB_EX_NONE))
      continue; /* the hint under another error (out of memory, no kernel image, a HIP error): part of that one */
    return at;
  }
  return LAB_EX_NONE;
}

/* Its line, then its hint lines and a kernel's repeated assert lines. */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  (void)n, (void)m;
  size_t le = lab_ex_line_end(t, at, lim);
  for (int k = 0; k < 64 && le < lim; k++) {
    size_t ne = lab_ex_line_end(t, le, lim);
    size_t ce = ne - le > ASSERT_LINE_MAX ? le + ASSERT_LINE_MAX : ne;
    int own = lab_ex_find(t, le, ce, "` failed") != LAB_EX_NONE && lab_ex_find(t, le, ce, "Assertion `") != LAB_EX_NONE;
    for (int h = 0; !own && hints[h]; h++) own = lab_ex_find(t, le, ne, hints[h]) != LAB_EX_NONE;
    if (!own) break;
    le = ne;
  }
  return le;
}

/* The last kernel assert line before s (and not before lo), which CUDA
 * prints before the Python error: an "Assertion `" whose "` failed" ends
 * within ASSERT_LINE_MAX bytes and before s. The reads come in order, so
 * the paste's asserts are walked once, on cursors of their own (find's
 * walk elsewhere): m->state[0] is where the walk stands (plus one),
 * m->state[1] the last kernel assert found (plus one; 0: none). One whose
 * "` failed" ends past s stops the walk, to be judged again by a later read. */
static const char walk_assert[] = "Assertion `", walk_failed[] = "` failed";

static size_t assert_before(const char *t, size_t n, size_t lo, size_t s, lab_ex_memo *m) {
  size_t p = m->state[0] ? m->state[0] - 1 : 0, stop = LAB_EX_NONE;
  for (p = lab_ex_next(m, t, n, p, s, walk_assert); p != LAB_EX_NONE; p = lab_ex_next(m, t, n, p + 1, s, walk_assert)) {
    size_t f = lab_ex_next(m, t, n, p, n - p > ASSERT_LINE_MAX ? p + ASSERT_LINE_MAX : n, walk_failed);
    if (f != LAB_EX_NONE && f + 8 > s) {
      stop = p;
      break;
    }
    if (f != LAB_EX_NONE) m->state[1] = p + 1;
  }
  /* resume at the one left for later, else where an assert cut by s could start */
  size_t resume = stop != LAB_EX_NONE ? stop : s > 10 ? s - 10 : 0;
  if (resume + 1 > m->state[0]) m->state[0] = resume + 1;
  return m->state[1] && m->state[1] - 1 >= lo ? m->state[1] - 1 : LAB_EX_NONE;
}

/* the hint lines' own cursors (remembered in m: each read starts later than the last) */
static const char walk_dsa[] = "Compile with `TORCH_USE_CUDA_DSA`", walk_async[] = "asynchronously reported",
                  walk_blocking[] = "CUDA_LAUNCH_BLOCKING";

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char msg[160], assert_line[200];
  cJSON *f = it->facts;
  it->kind = "async_error";
  /* "CUDA error: …" on NVIDIA, "HIP error: …" on an AMD card; else what the paste shows */
  if (s >= 11 && !memcmp(t + s - 11, "HIP error: ", 11)) it->platform = LAB_EX_ROCM;
  else if (s >= 12 && !memcmp(t + s - 12, "CUDA error: ", 12)) it->platform = LAB_EX_CUDA;
  /* the kernel's assert, which CUDA prints before the Python error (anywhere before this message) */
  size_t a = lab_ex_find(t, s, e, "Assertion `");
  if (a == LAB_EX_NONE) a = assert_before(t, n, s > 16384 ? s - 16384 : 0, s, m);
  /* the assertion up to its "` failed" (what follows, a period or a glued next message, is not part of it) */
  size_t ae = LAB_EX_NONE;
  if (a != LAB_EX_NONE) {
    size_t le = lab_ex_line_end(t, a, n - a > ASSERT_LINE_MAX ? a + ASSERT_LINE_MAX : n);
    ae = lab_ex_find(t, a, le, "` failed");
  }
  if (ae != LAB_EX_NONE && lab_ex_word(t, a, ae + 8, NULL, assert_line, sizeof assert_line))
    lab_ex_fact_str(f, "assert_text", assert_line);
  if (lab_ex_word_after(t, s, e, "CUDA error: ", NULL, msg, sizeof msg)) {
    for (int k = 0; known[k]; k++) /* CUDA's own wording, without what a paste glued after it */
      if (!strncmp(msg, known[k], strlen(known[k]))) msg[strlen(known[k])] = '\0';
    lab_ex_fact_str(f, "message", msg);
  }
  else if (lab_ex_find(t, s, e, "device-side assert triggered") != LAB_EX_NONE) lab_ex_fact_str(f, "message", "device-side assert triggered");
  else if (lab_ex_find(t, s, e, "illegal memory access") != LAB_EX_NONE) lab_ex_fact_str(f, "message", "an illegal memory access was encountered");
  /* CUDA_LAUNCH_BLOCKING=1 takes PyTorch's "might be asynchronously reported … consider passing
   * CUDA_LAUNCH_BLOCKING=1" lines out of the message (c10's get_cuda_check_suffix) and keeps the
   * TORCH_USE_CUDA_DSA line printed after them: with it set, the traceback points at the launching line
   * (tests/explain/gpu, the H100's cross-entropy with and without it) */
  size_t hl = n - s > HINTS_AFTER_MAX ? s + HINTS_AFTER_MAX : n;
  size_t dsa = lab_ex_next(m, t, n, s, hl, walk_dsa);
  int blocking = dsa != LAB_EX_NONE && lab_ex_next(m, t, n, s, dsa, walk_async) == LAB_EX_NONE &&
                 lab_ex_next(m, t, n, s, dsa, walk_blocking) == LAB_EX_NONE;
  if (blocking) cJSON_AddBoolToObject(f, "launch_blocking", 1);
  /* "device-side assert triggered", not the hint "… to enable device-side assertions" */
  if (lab_ex_find(t, s, e, "device-side assert triggered") != LAB_EX_NONE || lab_ex_find(t, s, e, "Assertion `") != LAB_EX_NONE)
    it->diag = blocking ? "async_device_assert_blocking" : "async_device_assert";
  else if (lab_ex_find(t, s, e, "illegal memory access") != LAB_EX_NONE) it->diag = "async_illegal_access";
  else it->diag = "async_other";
}

const lab_ex_recogniser lab_ex_async = {"async_error", find, extent, read};
