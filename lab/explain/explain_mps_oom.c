/* Recognises PyTorch's out-of-memory message on a Mac (MPS):
 *   "MPS backend out of memory (MPS allocated: A, other allocations: O,
 *    max allowed: M). Tried to allocate T on private pool. Use
 *    PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for
 *    memory allocations (may cause system failure)."
 * (aten/src/ATen/mps/MPSAllocator.mm). Its sizes are binary whatever the
 * unit says: before 2.4 the allocator's format_size divided by 1024 and
 * printed "KB/MB/GB", later "KiB/MiB/GiB", so 18.13 GB and 18.13 GiB are
 * one limit. "max allowed" is the high-watermark ratio times the GPU's
 * recommended working set; "other allocations" is what Metal holds for the
 * process outside the allocator's heaps. */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

static const char anchor[] = "MPS backend out of memory";

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) { return lab_ex_next(m, t, n, from, n, anchor); }

/* Its line: the message is one line (a next message of its own ends it). */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  size_t le = lab_ex_next_line_end(m, t, n, at, lim);
  size_t next = lab_ex_next(m, t, n, at + 1, le, anchor);
  return next < le ? next : le;
}

static int size_of(const char *t, size_t s, size_t e, const char *phrase, const char *key, cJSON *f, double *bytes) {
  size_t at = lab_ex_find(t, s, e, phrase);
  lab_ex_size v;
  if (at == LAB_EX_NONE || lab_ex_size_after_binary(t, at + strlen(phrase), e, &v)) return -1;
  lab_ex_fact_size(f, key, &v);
  *bytes = v.bytes;
  return 0;
}

/* The limit in parts: what the allocator holds, what Metal holds besides, what is left under the limit. */
static cJSON *make_bar(double A, double O, double M, double T) {
  cJSON *bar = lab_ex_bar_new(M);
  cJSON_AddStringToObject(bar, "of", "The limit PyTorch's MPS allocator allows (max allowed)");
  cJSON *parts = cJSON_AddArrayToObject(bar, "parts");
  lab_ex_bar_part(parts, "tensors", "allocated by PyTorch's MPS allocator", A);
  lab_ex_bar_part(parts, "others", "other allocations (Metal, outside the allocator's heaps)", O);
  lab_ex_bar_part(parts, "free", "left under the limit", M - A - O > 0 ? M - A - O : 0);
  lab_ex_bar_part(cJSON_AddArrayToObject(bar, "request"), "request", "the request that failed", T);
  return bar;
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  double A = -1, O = -1, M = -1, T = -1;
  char pool[16];
  cJSON *f = it->facts;
  (void)n, (void)m;
  it->kind = "mps_oom";
  it->platform = LAB_EX_MAC;
  size_of(t, s, e, "MPS allocated: ", "mps_allocated", f, &A);
  size_of(t, s, e, "other allocations: ", "other_allocations", f, &O);
  size_of(t, s, e, "max allowed: ", "max_allowed", f, &M);
  size_of(t, s, e, "Tried to allocate ", "tried", f, &T);
  size_t on = lab_ex_find(t, s, e, " pool");
  if (on != LAB_EX_NONE && on > s + 8) { /* "on private pool", "on shared pool" */
    size_t w = on;
    while (w > s && on - w < 10 && t[w - 1] >= 'a' && t[w - 1] <= 'z') w--;
    lab_ex_count(on - w + 1);
    if (w < on && lab_ex_word(t, w, on, " ", pool, sizeof pool) && (!strcmp(pool, "private") || !strcmp(pool, "shared")))
      lab_ex_fact_str(f, "pool", pool);
  }
  if (lab_ex_find(t, s, e, "PYTORCH_MPS_HIGH_WATERMARK_RATIO") != LAB_EX_NONE) cJSON_AddBoolToObject(f, "watermark_hint", 1);
  /* Other allocations a quarter of the limit: Metal holds much of it for this process outside the
   * allocator (the model's mmap-ed weights, other frameworks, a leak); else the step needs more
   * than the limit allows. Every number read, or no diagnosis. */
  if (A < 0 || O < 0 || M <= 0 || T < 0) it->diag = "mps_oom_unreadable";
  else if (O * 4 >= M) it->diag = "mps_oom_other_allocations";
  else it->diag = "mps_oom_too_much";
  if (A >= 0 && O >= 0 && M > 0 && T >= 0) it->bar = make_bar(A, O, M, T);
}

const lab_ex_recogniser lab_ex_mps_oom = {"mps_oom", find, extent, read};
