/* Recognises `python -m torch.utils.collect_env` output: the PyTorch
 * version, the CUDA runtime its build uses ("None": a CPU wheel), whether
 * CUDA is available, the driver and the GPU, and says plainly where they
 * disagree: a CPU wheel on a GPU machine, a build needing a newer driver,
 * a GPU older than the wheel supports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

#define WINDOW_MAX 32768

static const char *const anchors[] = {"Collecting environment information", "PyTorch version: ", NULL};

static int find(const char *t, size_t n, size_t from, size_t *start, size_t *end) {
  size_t at = lab_ex_first_anchor(t, n, from, anchors);
  if (at == LAB_EX_NONE) return -1;
  size_t stop = n - at > WINDOW_MAX ? at + WINDOW_MAX : n;
  size_t pv = lab_ex_find(t, at, stop, "PyTorch version: ");
  /* its own next dump, or a traceback, ends it (other messages are cut off by the caller) */
  size_t next = pv == LAB_EX_NONE ? LAB_EX_NONE : lab_ex_first_anchor(t, stop, pv + 1, anchors);
  if (next != LAB_EX_NONE) stop = next;
  size_t tb = lab_ex_find(t, at, stop, "Traceback (most recent call last)");
  if (tb != LAB_EX_NONE) stop = tb;
  *start = at;
  *end = stop;
  return 0;
}

/* The value of "Key: value" on its own line in the window. */
static size_t field(const char *t, size_t s, size_t e, const char *key, char *out, size_t cap) {
  for (size_t at = lab_ex_find(t, s, e, key); at != LAB_EX_NONE; at = lab_ex_find(t, at + 1, e, key))
    if (at == s || t[at - 1] == '\n') return lab_ex_word(t, at + strlen(key), e, NULL, out, cap);
  out[0] = '\0';
  return 0;
}

/* "12.1" → 12; "None"/"" → -1. */
static int major_of(const char *v) { return (v[0] >= '0' && v[0] <= '9') ? atoi(v) : -1; }

/* The oldest driver (Linux, the lower of Linux and Windows) each CUDA major
 * version runs on, from NVIDIA's CUDA toolkit release notes (minor version
 * compatibility: any 12.x runs on a 12.0 driver). */
static double driver_needed(int cuda_major) {
  return cuda_major == 11 ? 450.80 : cuda_major == 12 ? 525.60 : cuda_major == 13 ? 580.65 : 0;
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_item *it) {
  /* a machine without GPU and a PyTorch without CUDA agree too ("Could not collect": no CUDA version) */
  char torch[64], build[64], avail[16], driver[64], gpu[128];
  cJSON *f = it->facts;
  (void)n;
  it->kind = "collect_env";
  if (field(t, s, e, "PyTorch version: ", torch, sizeof torch)) lab_ex_fact_str(f, "torch", torch);
  if (field(t, s, e, "CUDA used to build PyTorch: ", build, sizeof build)) lab_ex_fact_str(f, "cuda_build", build);
  if (field(t, s, e, "Is CUDA available: ", avail, sizeof avail)) lab_ex_fact_str(f, "cuda_available", avail);
  if (field(t, s, e, "Nvidia driver version: ", driver, sizeof driver) && strcmp(driver, "Could not collect") != 0)
    lab_ex_fact_str(f, "driver", driver);
  else driver[0] = '\0';
  /* "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090" (or the name alone, or on the next line) */
  gpu[0] = '\0';
  size_t g = lab_ex_find(t, s, e, "GPU models and configuration:");
  if (g != LAB_EX_NONE) {
    size_t p = g + 29, le = lab_ex_line_end(t, p, e);
    if (lab_ex_word(t, p, le, NULL, gpu, sizeof gpu) == 0) lab_ex_word(t, le, lab_ex_line_end(t, le, e), NULL, gpu, sizeof gpu);
    char *colon = strncmp(gpu, "GPU ", 4) == 0 ? strchr(gpu, ':') : NULL;
    if (colon) {
      colon++;
      while (*colon == ' ') colon++;
      memmove(gpu, colon, strlen(colon) + 1);
    }
    if (!strcmp(gpu, "Could not collect")) gpu[0] = '\0';
    if (gpu[0]) lab_ex_fact_str(f, "gpu", gpu);
  }
  int bm = major_of(build);
  double dv = driver[0] ? atof(driver) : 0;
  int kepler = strstr(gpu, "K80") || strstr(gpu, "K40") || strstr(gpu, "Tesla K") || strstr(gpu, "GTX 7") || strstr(gpu, "GT 7");
  if (!strcmp(build, "None") && (driver[0] || gpu[0])) it->diag = "env_cpu_wheel_on_gpu";
  else if (bm > 0 && dv > 0 && driver_needed(bm) > 0 && dv < driver_needed(bm)) it->diag = "env_runtime_newer_than_driver";
  else if (bm > 0 && kepler && major_of(torch) >= 2) it->diag = "env_gpu_older_than_wheel";
  else if (bm > 0 && !strcmp(avail, "False") && !driver[0] && !gpu[0]) it->diag = "setup_no_driver";
  else if (bm > 0 && !strcmp(avail, "False")) it->diag = "env_cuda_unavailable"; /* driver fine, still no CUDA */
  else if (torch[0] && (!strcmp(avail, "True") || (bm < 0 && !strcmp(avail, "False") && !driver[0] && !gpu[0])))
    it->diag = "env_consistent";
  else it->diag = "unknown"; /* the header alone: nothing to judge */
}

const lab_ex_recogniser lab_ex_env = {"collect_env", find, read};
