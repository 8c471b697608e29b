/* The explainer's work is linear in the paste, checked without a clock:
 * the scanner counts every byte a recogniser looks at (lab_explain_cost),
 * and on pastes built to be its worst case — many anchors then one long
 * line, every phrase repeated on one line and line by line, two kinds'
 * anchors interleaved so that each message is cut by the next, the real
 * messages of the corpus pasted again and again — no recogniser looks at
 * more than COST_MAX bytes per byte of the paste. Before, a recogniser that
 * skipped an anchor searched to its line's end again: a 256 KiB paste of
 * "can't convert " and 't's cost 4.3 s of CPU (docs/explain.md). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "explain.h"
#include "suites.h"

/* Bytes examined per byte of paste, per recogniser: each phrase a
 * recogniser asks for is searched once over the text (a handful of bytes
 * per match tried), and each message's window is read once by its dozen
 * or so phrases; the worst cases below stay under 22. */
#define COST_MAX 32
#define BIG (LAB_EXPLAIN_MAX_BYTES - 1)
#define SMALL (8 * 1024) /* each pair of anchors: 100 or more messages cut, enough to show a rescan */

/* Every phrase a recogniser searches for, its anchors first. */
static const char *const anchors[] = {
    "CUDA out of memory", "CUDA error: out of memory", "error=2 : out of memory",
    "cuda runtime error (2) : out of memory", "Tried to allocate ",
    "Expected all tensors to be on the same device", "Expected object of device type ", "Input type (",
    "can't convert ", "device-side assert triggered", "Assertion `", "illegal memory access",
    "unspecified launch failure", "misaligned address", "illegal instruction",
    "asynchronously reported at some other API call", "Torch not compiled with CUDA enabled",
    "Found no NVIDIA driver on your system", "driver on your system is too old",
    "CUDA driver version is insufficient for CUDA runtime version",
    "no kernel image is available for execution on the device",
    "is not compatible with the current PyTorch installation", "NVIDIA-SMI has failed because it couldn't",
    "Cannot re-initialize CUDA in forked subprocess", "CUBLAS_STATUS_", "NVIDIA-SMI ", "| Processes:",
    "Collecting environment information", "PyTorch version: ", "Is debug build: ", "PyTorch CUDA memory summary",
    "allocated_bytes.all.current': 1",
    /* the set-up forms of free tiers, Macs and AMD cards */
    "which is of cuda capability ", "which is of compute capability (CC) ", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "Unsupported .version ", "the provided PTX was compiled with an unsupported toolchain",
    "Bfloat16 is only supported on GPUs with compute capability", "MPS backend is supported on MacOS",
    "not linked with support for mps devices",
    /* MPS (mps_oom, mps) */
    "MPS backend out of memory", "Placeholder storage has not been allocated on MPS device",
    "Cannot convert a MPS Tensor to float64", "BFloat16 is not supported on MPS",
    "Trying to convert BFloat16 to the MPS backend", "MPS BFloat16 is only supported on MacOS", "The operator '",
    /* ROCm (hip, and oom's HIP wording) */
    "HIP out of memory", "HIP error: invalid device function", "hipErrorNoBinaryForGpu", "No HIP GPUs are available",
    "BLAS error: Cannot read", "MIOpen Error", "MIOpen(HIP): Error", "miopenStatus", "Unable to open /dev/kfd", NULL};
static const char *const inner[] = {
    "(GPU ", ". GPU ", " total capacity", "has a total capacity of ", " free;", " is free.", " already allocated",
    " is allocated by PyTorch", " reserved in total by PyTorch", " is reserved by PyTorch but unallocated",
    " cached)", "this process has ", "Process 1 has ", "max_split_size_mb", "gpt2-xl", "llama-2-13b",
    "weight type (", "to numpy", "two devices, ", " and ", " is on ", "other tensors on ", "but got ",
    "got device type ", "argument for argument ", "in method ", "in call to ", ")", "` failed", "CUDA error: ",
    "CUDA kernel errors might be asynchronously", "For debugging consider passing",
    "Compile with `TORCH_USE_CUDA_DSA`", "(found version ", "CUDA capability ", "supports CUDA capabilities ",
    "Driver Version", "|====", "No running processes", "MiB /", "| 0  NVIDIA A100 On |", "CUDA Version: ",
    "PyTorch version", "Traceback (most recent call last)", "CUDA used to build PyTorch: ", "Is CUDA available: ",
    "Nvidia driver version: ", "GPU models and configuration:", "| Allocated memory", "{", "}", "])",
    "'num_alloc_retries': 3", "cudaMalloc retries: ", "x\n\n", "x   ",
    /* what the platform forms read inside their messages, and the paste's platform words */
    "Found GPU0 Tesla P100 ", "supported by this version of PyTorch is (", "supported by this library is ",
    "- 7.5 which supports", "current version is '", "Your Tesla T4 GPU has compute capability ", "MPS allocated: ",
    "other allocations: ", "max allowed: ", " on private pool", "PYTORCH_MPS_HIGH_WATERMARK_RATIO",
    "implemented for the MPS device", "PYTORCH_ENABLE_MPS_FALLBACK=1", "HIP kernel errors might be asynchronously",
    "TORCH_USE_HIP_DSA", "Search for `hipError", "rocBLAS error", "for GPU arch : ", "is not member of",
    "group membership", "gfx1030:xnack-", "+cu121", "/Users/", "MacBook", "Persistence-M", NULL};
/* The first bytes of all of them, for lines that keep memchr stopping. */
static const char filler[] = "CEeTIicdAuimNFDnP|{}])t(.w `'hrgl>aMBHUYRSgf+/-Pp";

/* text = `unit` repeated to len bytes (a cut one at the end). */
static char *repeat(const char *unit, size_t len) {
  char *t = malloc(len);
  size_t u = strlen(unit);
  for (size_t i = 0; i < len; i++) t[i] = unit[i % u];
  return t;
}

/* `head` repeated `times`, then one line of filler to len bytes. */
static char *anchors_then_line(const char *head, size_t times, size_t len) {
  char *t = repeat(filler, len);
  size_t h = strlen(head);
  for (size_t i = 0; i < times && (i + 1) * h <= len / 2; i++) memcpy(t + i * h, head, h);
  return t;
}

typedef struct worst {
  double ratio;
  char what[96];
} worst;

static worst worst_seen[LAB_EXPLAIN_RECOGNISERS];

/* Explains t[0..len) and checks every recogniser's count against the bound. */
static void check_cost(const char *t, size_t len, const char *what, const char *phrase) {
  lab_explain_costs cost;
  lab_error err;
  cJSON *r = lab_explain_cost(t, len, &cost, &err);
  ck_assert_msg(r != NULL, "%s of \"%s\": %s", what, phrase, err.message);
  cJSON_Delete(r);
  for (int k = 0; k < LAB_EXPLAIN_RECOGNISERS; k++) {
    double ratio = (double)cost.examined[k] / (double)len;
    if (ratio > worst_seen[k].ratio) {
      worst_seen[k].ratio = ratio;
      snprintf(worst_seen[k].what, sizeof worst_seen[k].what, "%s of \"%.40s\"", what, phrase);
    }
    ck_assert_msg(ratio < COST_MAX, "%s looked at %zu bytes of a %zu-byte paste (%.1f per byte): %s of \"%s\"",
                  lab_explain_recogniser_kind(k), cost.examined[k], len, ratio, what, phrase);
  }
}

/* Where each recogniser came closest to the bound in this test (the log of make unit). */
static void report(const char *test) {
  for (int k = 0; k < LAB_EXPLAIN_RECOGNISERS; k++)
    if (worst_seen[k].ratio > 0)
      fprintf(stderr, "explain cost, %s: %-16s at most %5.1f bytes per byte (%s)\n", test,
              lab_explain_recogniser_kind(k), worst_seen[k].ratio, worst_seen[k].what);
  memset(worst_seen, 0, sizeof worst_seen);
}

static void check_shapes(const char *p, size_t len) {
  char unit[256];
  char *t = repeat(p, len);
  check_cost(t, len, "one line", p);
  free(t);
  snprintf(unit, sizeof unit, "%s\n", p);
  t = repeat(unit, len);
  check_cost(t, len, "line by line", p);
  free(t);
  snprintf(unit, sizeof unit, "%s%s", p, filler);
  t = repeat(unit, len);
  check_cost(t, len, "with filler", p);
  free(t);
  t = anchors_then_line(p, len, len);
  check_cost(t, len, "many, then one long line", p);
  free(t);
}

START_TEST(explain_cost_is_linear_for_every_phrase) {
  for (int i = 0; anchors[i]; i++) check_shapes(anchors[i], BIG);
  for (int i = 0; inner[i]; i++) check_shapes(inner[i], BIG);
  report("every phrase");
}
END_TEST

/* Two kinds' anchors in turn: each message is cut where the next starts,
 * and a recogniser must not search its cut window again. */
START_TEST(explain_cost_is_linear_when_messages_cut_each_other) {
  char unit[512];
  for (int i = 0; anchors[i]; i++)
    for (int j = 0; anchors[j]; j++) {
      if (i == j) continue;
      snprintf(unit, sizeof unit, "%s %s", anchors[i], anchors[j]);
      char *t = repeat(unit, SMALL);
      check_cost(t, SMALL, "two anchors in turn", unit);
      free(t);
      snprintf(unit, sizeof unit, "%s\n %s\n", anchors[i], anchors[j]);
      t = repeat(unit, SMALL);
      check_cost(t, SMALL, "two anchors in turn, lines", unit);
      free(t);
    }
  report("messages cut");
}
END_TEST

/* The corpus's real messages (own and public), pasted one after another
 * until the paste is full: every recogniser, each message read. */
static size_t add_case_texts(const char *list, const char *dir, char *buf, size_t at, size_t cap) {
  char path[512];
  FILE *f = fopen(list, "rb");
  if (!f) return at;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *json = malloc((size_t)n + 1);
  size_t got = fread(json, 1, (size_t)n, f);
  json[got] = 0;
  fclose(f);
  cJSON *doc = cJSON_Parse(json);
  free(json);
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases")) {
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(c, "file");
    if (!cJSON_IsString(file)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, file->valuestring);
    FILE *g = fopen(path, "rb");
    if (!g) continue;
    at += fread(buf + at, 1, cap - at, g);
    fclose(g);
    if (at < cap) buf[at++] = '\n';
  }
  cJSON_Delete(doc);
  return at;
}

START_TEST(explain_cost_is_linear_on_the_corpus_pasted_again_and_again) {
  char *buf = malloc(BIG);
  size_t n = 0, last = (size_t)-1;
  while (n < BIG && n != last) {
    last = n;
    n = add_case_texts("tests/explain/own.json", "tests/explain", buf, n, BIG);
    n = add_case_texts("tests/explain/cases.json", "tests/explain", buf, n, BIG);
    n = add_case_texts("tests/explain/real_platforms.json", "tests/explain", buf, n, BIG);
  }
  ck_assert_msg(n > 64 * 1024, "the corpus gave only %zu bytes", n);
  check_cost(buf, n, "the corpus again and again", "tests/explain");
  free(buf);
  report("the corpus");
}
END_TEST

Suite *make_explain_cost_suite(void) {
  Suite *s = suite_create("explain_cost");
  TCase *tc = tcase_create("linear");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, explain_cost_is_linear_for_every_phrase);
  tcase_add_test(tc, explain_cost_is_linear_when_messages_cut_each_other);
  tcase_add_test(tc, explain_cost_is_linear_on_the_corpus_pasted_again_and_again);
  suite_add_tcase(s, tc);
  return s;
}
