/* Recognises PyTorch's CUDA out-of-memory message in both wordings:
 *   older: "Tried to allocate X (GPU 0; Y total capacity; Z already
 *          allocated; W free; V reserved in total by PyTorch)"
 *   newer: "Tried to allocate X. GPU 0 has a total capacity of Y of which W
 *          is free. [Including non-PyTorch memory, this process has P memory
 *          in use. | Process N has P memory in use.] Of the allocated memory
 *          A is allocated by PyTorch, and U is reserved by PyTorch but
 *          unallocated."
 * (c10/cuda/CUDACachingAllocator.cpp), and a ROCm build's "HIP out of
 * memory. Tried to allocate …" in the newer wording. Each number is read beside its own
 * phrase, so a changed or cut phrase loses that number only, and a
 * diagnosis is given only when every number it rests on was read. */
#include <math.h>
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

#define WINDOW_MAX 2048 /* one message; the longest real one is about 700 bytes */
#define MAX_PROCESSES 16

/* the third and fourth: PyTorch before 1.0 (THC), which printed no numbers; the last: a ROCm build's
 * (the newer wording, with HIP's words) */
static const char *const anchors[] = {"CUDA out of memory", "CUDA error: out of memory", "error=2 : out of memory",
                                      "cuda runtime error (2) : out of memory", "HIP out of memory", NULL};

static const char tried_phrase[] = "Tried to allocate ";

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  size_t at = lab_ex_next_of(m, t, n, from, n, anchors);
  /* the numbers pasted without the first words: "Tried to allocate X (GPU 0; …" (each place looked at once) */
  size_t lim = at == LAB_EX_NONE ? n : at;
  for (size_t ta = lab_ex_next(m, t, n, from, lim, tried_phrase); ta != LAB_EX_NONE;
       ta = lab_ex_next(m, t, n, ta + 1, lim, tried_phrase)) {
    size_t le = lab_ex_next_line_end(m, t, n, ta, lim);
    if (lab_ex_next(m, t, n, ta, le, "(GPU ") != LAB_EX_NONE || lab_ex_next(m, t, n, ta, le, ". GPU ") != LAB_EX_NONE)
      return ta;
  }
  return at;
}

/* One message: up to the next one (another kind's at lim, or this kind's
 * own next anchor) or a blank line, at most WINDOW_MAX bytes. */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  size_t wend = n - at > WINDOW_MAX ? at + WINDOW_MAX : n, stop = wend < lim ? wend : lim;
  size_t blank = lab_ex_next(m, t, n, at, stop, "\n\n");
  if (blank != LAB_EX_NONE) stop = blank + 1;
  /* an anchor of its own that starts before stop ends it, even one that runs past the next message's start */
  size_t reach = stop == lim && lim < wend ? (wend - lim > 64 ? lim + 64 : wend) : stop;
  size_t next = lab_ex_next_of(m, t, n, at + 1, reach, anchors);
  return next < stop ? next : stop;
}

/* The models a paste may name (a traceback, a from_pretrained line), for
 * the memory experiment; longest names first. */
static const struct {
  const char *needle;
  double params_m;
  int hidden, layers;
} models[] = {
    {"gpt2-xl", 1558, 1600, 48},       {"gpt2-large", 774, 1280, 36}, {"gpt2-medium", 355, 1024, 24},
    {"gpt2", 124, 768, 12},            {"bert-large", 335, 1024, 24}, {"bert-base", 110, 768, 12},
    {"llama-2-13b", 13016, 5120, 40},  {"llama-2-7b", 6738, 4096, 32}, {"llama-7b", 6738, 4096, 32},
    {"mistral-7b", 7242, 4096, 32},
};

/* The model the paste names, in one pass over it: the first of the table
 * (longest names first) that occurs anywhere, whatever its case (the
 * needles are lower case, digits and '-'); -1: none. */
#define NMODELS (sizeof models / sizeof models[0])
static int named_model(const char *t, size_t n) {
  unsigned char found[NMODELS] = {0};
  for (size_t i = 0; i < n; i++) {
    char c = (char)(t[i] | 0x20);
    if (c != 'g' && c != 'b' && c != 'l' && c != 'm') continue; /* the needles' first letters */
    for (size_t k = 0; k < NMODELS; k++) {
      const char *w = models[k].needle;
      if (found[k] || w[0] != c) continue;
      size_t j = 1;
      while (w[j] && i + j < n && (t[i + j] | 0x20) == w[j]) j++;
      lab_ex_count(j);
      if (!w[j]) found[k] = 1;
    }
  }
  lab_ex_count(n);
  for (size_t k = 0; k < NMODELS; k++)
    if (found[k]) return (int)k;
  return -1;
}

/* The model named anywhere in the paste, looked for once per paste
 * (m->state[0]: 0 not yet, else 1 + the model's index, or SIZE_MAX: none). */
static void memory_params(const char *t, size_t n, lab_ex_memo *m, lab_ex_item *it) {
  if (m->state[0] == 0) {
    int k = named_model(t, n);
    m->state[0] = k < 0 ? SIZE_MAX : (size_t)k + 1;
  }
  if (m->state[0] != SIZE_MAX) {
    size_t k = m->state[0] - 1;
    it->params = cJSON_CreateObject();
    cJSON_AddNumberToObject(it->params, "params_m", models[k].params_m);
    cJSON_AddNumberToObject(it->params, "hidden", models[k].hidden);
    cJSON_AddNumberToObject(it->params, "layers", models[k].layers);
    cJSON_AddStringToObject(it->facts, "model", models[k].needle);
    return;
  }
  it->ask = cJSON_CreateStringArray((const char *const[]){"params_m", "hidden", "layers", "batch", "seq_len"}, 5);
}

/* The bar: parts that add up to the device's total, and the request beside them. */
static cJSON *make_bar(double C, double F, double A, double U, double P, double T, int hip) {
  if (C <= 0 || F < 0 || A < 0 || U < 0) return NULL;
  double outside = C - F - A - U;
  if (outside < 0) outside = 0; /* numbers printed rounded: a few KiB either way */
  cJSON *bar = lab_ex_bar_new(C);
  cJSON *parts = cJSON_AddArrayToObject(bar, "parts");
  lab_ex_bar_part(parts, "tensors", "this process's tensors (allocated by PyTorch)", A);
  lab_ex_bar_part(parts, "cache", "PyTorch's cache (reserved, unallocated)", U);
  if (P >= 0) {
    double ctx = P - A - U, others = C - F - P;
    lab_ex_bar_part(parts, "context", hip ? "this process outside PyTorch (HIP context, libraries)"
                                          : "this process outside PyTorch (CUDA context, libraries)", ctx < 0 ? 0 : ctx);
    lab_ex_bar_part(parts, "others", "other processes", others < 0 ? 0 : others);
  } else {
    lab_ex_bar_part(parts, "outside", hip ? "outside PyTorch's pool (HIP context, other processes)"
                                          : "outside PyTorch's pool (CUDA context, other processes)", outside);
  }
  lab_ex_bar_part(parts, "free", "free", F);
  if (T >= 0) lab_ex_bar_part(cJSON_AddArrayToObject(bar, "request"), "request", "the request that failed", T);
  return bar;
}

/* The size just before / after a phrase, the phrase perhaps wrapped by a terminal ("reserved in tot\nal"). */
static int before(const char *t, size_t s, size_t e, const char *phrase, lab_ex_size *out) {
  size_t at = lab_ex_find_wrapped(t, s, e, phrase, NULL);
  return at == LAB_EX_NONE ? -1 : lab_ex_size_before(t, s, at, out);
}

static int after(const char *t, size_t s, size_t e, const char *phrase, lab_ex_size *out) {
  size_t m = 0;
  if (lab_ex_find_wrapped(t, s, e, phrase, &m) == LAB_EX_NONE) return -1;
  while (m < e && (t[m] == '\n' || t[m] == '\r')) m++; /* wrapped right after the phrase */
  return lab_ex_size_after(t, m, e, out);
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  lab_ex_size tried, total, freeb, alloc, reserved, unalloc, proc;
  char gpu[8];
  double T = -1, C = -1, F = -1, A = -1, R = -1, U = -1, P = -1;
  cJSON *f = it->facts;
  it->kind = "oom";
  int hip = lab_ex_find(t, s, e, "HIP out of memory") != LAB_EX_NONE;
  it->platform = hip ? LAB_EX_ROCM : LAB_EX_CUDA;
  /* "(GPU 0;" older, "GPU 0 has" newer */
  if (lab_ex_word_after(t, s, e, "(GPU ", ";", gpu, sizeof gpu) || lab_ex_word_after(t, s, e, ". GPU ", " ", gpu, sizeof gpu))
    lab_ex_fact_str(f, "gpu", gpu);
  if (!after(t, s, e, "Tried to allocate ", &tried)) lab_ex_fact_size(f, "tried", &tried), T = tried.bytes;
  /* PyTorch 2.1 printed "total capacty" (sic) */
  if (!before(t, s, e, " total capacity", &total) ||
      !after(t, s, e, "has a total capacity of ", &total) ||
      !after(t, s, e, "has a total capacty of ", &total))
    lab_ex_fact_size(f, "total", &total), C = total.bytes;
  if (!before(t, s, e, " free;", &freeb) || !before(t, s, e, " is free.", &freeb))
    lab_ex_fact_size(f, "free", &freeb), F = freeb.bytes;
  if (!before(t, s, e, " already allocated", &alloc) ||
      !before(t, s, e, " is allocated by PyTorch", &alloc))
    lab_ex_fact_size(f, "allocated", &alloc), A = alloc.bytes;
  if (!before(t, s, e, " reserved in total by PyTorch", &reserved))
    lab_ex_fact_size(f, "reserved", &reserved), R = reserved.bytes;
  /* PyTorch before 1.4 ended "…; 9.38 MiB free; 33.36 MiB cached)": the cache's free part, what
   * later versions call reserved but unallocated (allocated + free + cached fall short of the total
   * by the CUDA context only) */
  if (!before(t, s, e, " is reserved by PyTorch but unallocated", &unalloc) ||
      !before(t, s, e, " cached)", &unalloc))
    lab_ex_fact_size(f, "reserved_unallocated", &unalloc), U = unalloc.bytes;
  if (!after(t, s, e, "this process has ", &proc)) lab_ex_fact_size(f, "process", &proc), P = proc.bytes;
  /* "Process 1234 has 3.00 GiB memory in use." (newer, per process NVML sees: this one may be among them) */
  int listed = 0;
  for (size_t at = lab_ex_find(t, s, e, "Process "); at != LAB_EX_NONE && listed < MAX_PROCESSES;
       at = lab_ex_find(t, at + 8, e, "Process ")) {
    /* " has " within 24 bytes on the same line: "Process 1234 has" (so the line is read no further) */
    size_t near = e - at > 28 ? at + 28 : e;
    size_t has = lab_ex_find(t, at, lab_ex_line_end(t, at, near), " has ");
    if (has != LAB_EX_NONE && !lab_ex_size_after(t, has + 5, e, &proc)) listed++;
  }
  if (listed) cJSON_AddNumberToObject(f, "processes_listed", listed);
  if (lab_ex_find(t, s, e, "max_split_size_mb") != LAB_EX_NONE || lab_ex_find(t, s, e, "expandable_segments") != LAB_EX_NONE ||
      lab_ex_find(t, s, e, "PYTORCH_HIP_ALLOC_CONF") != LAB_EX_NONE)
    cJSON_AddBoolToObject(f, "allocator_hint", 1);

  if (U < 0 && R >= 0 && A >= 0) U = R - A > 0 ? R - A : 0; /* older wording: the cache is reserved minus allocated */
  if (A >= 0 && U >= 0 && C > 0 && F >= 0) it->bar = make_bar(C, F, A, U, P, T, hip);

  /* The diagnosis, the numbers deciding in this order (docs/explain.md): memory outside this process's
   * PyTorch (total - free - what this process has, else - allocated - the cache) a quarter of the GPU;
   * the cache's reserved-but-unallocated memory at least the request and 4% of the GPU; else plain too
   * much. Each is reached only when every number it and those before it rest on was read; numbers
   * printed inconsistently (allocated over the total) count what is outside as nothing. */
  double outside = -1;
  if (C > 0 && F >= 0 && (P >= 0 || (A >= 0 && U >= 0))) outside = fmax(0, P >= 0 ? C - F - P : C - F - A - U);
  if (T < 0 || C <= 0 || outside < 0) it->diag = "oom_unreadable";
  else if (outside * 4 >= C) it->diag = "oom_other_process";
  else if (U < 0) it->diag = "oom_unreadable";
  else if (U >= T && U * 25 >= C) it->diag = "oom_fragmentation";
  else it->diag = "oom_too_much";
  memory_params(t, n, m, it);
}

const lab_ex_recogniser lab_ex_oom = {"oom", find, extent, read};
