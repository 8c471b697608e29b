/* Recognises torch.cuda.memory_summary()'s table and memory_stats()'s
 * dictionary: allocated and reserved memory now and at the peak, the
 * cudaMalloc retries and OOMs, and whether the cache is fragmented (much
 * reserved that tensors do not use, or retries: the allocator had to free
 * its cache and try again). */
#include <stdlib.h>
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

#define TABLE_MAX 16384

static const char *const anchors[] = {"PyTorch CUDA memory summary", "allocated_bytes.all.current", NULL};

/* The dictionary's key with its number after it ("KeyError: 'allocated_bytes.all.current'" is not one). */
static int has_number(const char *t, size_t n, size_t at) {
  size_t p = at + strlen(anchors[1]);
  if (p < n && (t[p] == '\'' || t[p] == '"')) p++;
  for (size_t k = 0; p < n && k < 4 && (t[p] == ':' || t[p] == ',' || t[p] == ' '); k++) p++;
  return p < n && t[p] >= '0' && t[p] <= '9';
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  size_t tab = lab_ex_next(m, t, n, from, n, anchors[0]), lim = tab == LAB_EX_NONE ? n : tab;
  size_t at = lab_ex_next(m, t, n, from, lim, anchors[1]); /* each place looked at once: linear */
  while (at != LAB_EX_NONE && !has_number(t, n, at)) at = lab_ex_next(m, t, n, at + 1, lim, anchors[1]);
  if (at == LAB_EX_NONE) at = tab;
  m->anchor = at;
  if (at == LAB_EX_NONE || t[at] == 'P') return at;
  /* the dictionary: back to its opening */
  size_t b = at;
  while (b > from && at - b < 4096 && t[b - 1] != '{' && t[b - 1] != '[') b--;
  lab_ex_count(at - b + 1);
  return b > from && (t[b - 1] == '{' || t[b - 1] == '[') ? b - 1 : at;
}

/* The table ends at its last "|====…|" line after the rows; the dictionary at its closing. */
static size_t extent(const char *t, size_t n, size_t start, size_t lim, lab_ex_memo *m) {
  size_t at = m->anchor;
  size_t wend = n - at > TABLE_MAX ? at + TABLE_MAX : n, stop = wend < lim ? wend : lim;
  /* its own next anchor ends it, even one that runs past the next message's start */
  size_t reach = stop == lim && lim < wend ? (wend - lim > 64 ? lim + 64 : wend) : stop;
  size_t next = lab_ex_next_of(m, t, n, at + 1, reach, anchors);
  if (next < stop) stop = next;
  if (t[at] == 'P') {
    size_t last = lab_ex_line_end(t, at, stop);
    for (size_t ls = last; ls < stop;) {
      size_t le = lab_ex_line_end(t, ls, stop), p = ls;
      while (p < le && t[p] == ' ') p++;
      lab_ex_count(p - ls + 1);
      if (p >= le || t[p] != '|') break;
      last = ls = le;
    }
    return last;
  }
  size_t c = lab_ex_find(t, start, stop, "}");
  size_t c2 = lab_ex_find(t, start, c == LAB_EX_NONE ? stop : c, "])");
  if (c2 < c) c = c2;
  return c != LAB_EX_NONE ? c + 1 : stop;
}

/* A cell's size: PyTorch's units, or before 1.8 "1062 MB", "2048 KB" (memory.py's _format_size:
 * powers of 1024 with the older names), kept as printed. */
static int cell_size(const char *t, size_t p, size_t le, lab_ex_size *v) { return lab_ex_size_after_binary(t, p, le, v); }

/* Row "| Allocated memory      |   1024 KiB |   2048 KiB | …": the sizes of cells 2 (current) and 3 (peak). */
static void row(const char *t, size_t s, size_t e, const char *name, const char *cur_key, const char *peak_key,
                cJSON *f, double *cur) {
  size_t at = lab_ex_find(t, s, e, name);
  if (at == LAB_EX_NONE) return;
  size_t le = lab_ex_line_end(t, at, e), p = lab_ex_find(t, at + 1, le, "|");
  lab_ex_size v;
  if (p != LAB_EX_NONE && !cell_size(t, p + 1, le, &v)) {
    lab_ex_fact_size(f, cur_key, &v);
    *cur = v.bytes;
    size_t q = lab_ex_find(t, p + 1, le, "|");
    if (q != LAB_EX_NONE && !cell_size(t, q + 1, le, &v)) lab_ex_fact_size(f, peak_key, &v);
  }
}

/* 'key': 123 or ('key', 123): the integer after the key's closing quote. */
static int stat(const char *t, size_t s, size_t e, const char *key, cJSON *f, const char *fact, int as_size) {
  size_t at = lab_ex_find(t, s, e, key);
  if (at == LAB_EX_NONE) return -1;
  size_t p = at + strlen(key);
  if (p < e && (t[p] == '\'' || t[p] == '"')) p++;
  else return -1;
  while (p < e && (t[p] == ':' || t[p] == ',' || t[p] == ' ')) p++;
  char num[24];
  size_t k = 0;
  while (p + k < e && k + 1 < sizeof num && t[p + k] >= '0' && t[p + k] <= '9') num[k] = t[p + k], k++;
  num[k] = '\0';
  if (!k) return -1;
  if (as_size) {
    cJSON *o = cJSON_AddObjectToObject(f, fact);
    cJSON_AddStringToObject(o, "printed", num);
    cJSON_AddNumberToObject(o, "bytes", strtod(num, NULL));
  } else {
    lab_ex_fact_str(f, fact, num);
  }
  return 0;
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char w[24];
  double alloc = -1, reserved = -1, inactive = -1;
  long retries = -1;
  cJSON *f = it->facts;
  (void)n, (void)m;
  it->kind = "memory_summary";
  if (lab_ex_find(t, s, e, "PyTorch CUDA memory summary") == s) {
    row(t, s, e, "| Allocated memory", "allocated_cur", "allocated_peak", f, &alloc);
    row(t, s, e, "| GPU reserved memory", "reserved_cur", "reserved_peak", f, &reserved);
    row(t, s, e, "| Non-releasable memory", "non_releasable_cur", "non_releasable_peak", f, &inactive);
    if (lab_ex_word_after(t, s, e, "CUDA OOMs: ", " |", w, sizeof w)) lab_ex_fact_str(f, "oom_count", w);
    if (lab_ex_word_after(t, s, e, "cudaMalloc retries: ", " |", w, sizeof w))
      lab_ex_fact_str(f, "retries", w), retries = atol(w);
  } else {
    stat(t, s, e, "'allocated_bytes.all.current", f, "allocated_cur", 1);
    stat(t, s, e, "'allocated_bytes.all.peak", f, "allocated_peak", 1);
    stat(t, s, e, "'reserved_bytes.all.current", f, "reserved_cur", 1);
    stat(t, s, e, "'reserved_bytes.all.peak", f, "reserved_peak", 1);
    stat(t, s, e, "'inactive_split_bytes.all.current", f, "non_releasable_cur", 1);
    stat(t, s, e, "'num_ooms", f, "oom_count", 0);
    if (!stat(t, s, e, "'num_alloc_retries", f, "retries", 0))
      retries = atol(cJSON_GetObjectItemCaseSensitive(f, "retries")->valuestring);
    alloc = lab_ex_fact_bytes(f, "allocated_cur");
    reserved = lab_ex_fact_bytes(f, "reserved_cur");
    inactive = lab_ex_fact_bytes(f, "non_releasable_cur");
  }
  /* fragmented: the allocator retried, or a quarter of what it reserves is split-off free pieces,
   * or half of a reservation over 1 GiB holds no tensor */
  if (retries > 0 || (reserved > 0 && inactive >= 0 && inactive * 4 >= reserved) ||
      (reserved >= 1073741824.0 && alloc >= 0 && (reserved - alloc) * 2 >= reserved))
    it->diag = "summary_fragmentation";
  else if (reserved >= 0 && alloc >= 0) it->diag = "summary_ok";
  else it->diag = "unknown";
}

const lab_ex_recogniser lab_ex_summary = {"memory_summary", find, extent, read};
