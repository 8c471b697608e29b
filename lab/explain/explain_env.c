/* Recognises `python -m torch.utils.collect_env` output: the PyTorch
 * version, the CUDA runtime its build uses ("None": a CPU wheel), whether
 * CUDA is available, the driver and the GPU, and says plainly where they
 * disagree: a CPU wheel on a GPU machine, a build needing a newer driver
 * (or only a newer one for PTX), a GPU older than the wheel supports. The
 * measurement kit's preflight (kit/measure.py) prints its findings in these
 * fields plus its own (GPU architecture, torch.cuda.get_arch_list(),
 * torch.cuda.is_bf16_supported(), MPS built/available) and decides by the
 * same rules in the same order, so a pasted finding gets its diagnosis:
 * an architecture missing from the build (CUDA or ROCm), MPS unusable on a
 * Mac, bf16 emulated on a GPU before compute capability 8.0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_driver.h"
#include "explain_item.h"
#include "explain_scan.h"

#define WINDOW_MAX 32768

/* "Is debug build: " also starts a dump whose first line was retyped ("PyTorch version 1.5.0"). */
static const char *const anchors[] = {"Collecting environment information", "PyTorch version: ", "Is debug build: ", NULL};
static const char *const dump_starts[] = {"Collecting environment information", "PyTorch version: ", NULL};

static size_t line_start(const char *t, size_t lo, size_t at) {
  size_t p = at;
  while (p > lo && t[p - 1] != '\n') p--;
  lab_ex_count(at - p + 1);
  return p;
}

/* "PyTorch version: ", or the version line retyped without its colon, at or after at. */
static size_t version_line(const char *t, size_t n, size_t at, size_t stop, lab_ex_memo *m) {
  size_t pv = lab_ex_next(m, t, n, at, stop, "PyTorch version: ");
  return pv != LAB_EX_NONE ? pv : lab_ex_next(m, t, n, at, stop, "PyTorch version");
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  size_t at = lab_ex_next_of(m, t, n, from, n, anchors);
  if (at == LAB_EX_NONE) return LAB_EX_NONE;
  size_t stop = n - at > WINDOW_MAX ? at + WINDOW_MAX : n;
  if (t[at] == 'I') { /* the line before, when it names the version, is the dump's first */
    size_t ls = line_start(t, from, at), prev = ls > from ? line_start(t, from, ls - 1) : ls;
    if (prev < ls && lab_ex_find(t, prev, ls, "PyTorch version") != LAB_EX_NONE) at = prev;
  }
  /* the header, then other lines (a warning) before the fields: the dump starts at its version line,
   * so the warning, its own message, comes first */
  size_t pv = version_line(t, n, at, stop, m);
  if (t[at] == 'C' && pv != LAB_EX_NONE) {
    size_t p = lab_ex_line_end(t, at, stop), p0 = p;
    while (p < pv && (t[p] == '\n' || t[p] == '\r' || t[p] == ' ' || t[p] == '>' || t[p] == '\t')) p++;
    lab_ex_count(p - p0);
    if (line_start(t, at, pv) > p) at = line_start(t, at, pv);
  }
  m->anchor = pv;
  m->state[0] = stop; /* the window is counted from the anchor, wherever the dump starts */
  return at;
}

/* Its own next dump, or a traceback, ends it (other messages are cut off by the caller). */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  size_t stop = m->state[0] < lim ? m->state[0] : lim;
  size_t pv = m->anchor < stop ? m->anchor : LAB_EX_NONE;
  size_t next = pv == LAB_EX_NONE ? LAB_EX_NONE : lab_ex_next_of(m, t, n, lab_ex_line_end(t, pv, stop), stop, dump_starts);
  if (next != LAB_EX_NONE) stop = line_start(t, at, next);
  size_t tb = lab_ex_find(t, at, stop, "Traceback (most recent call last)");
  if (tb != LAB_EX_NONE) stop = tb;
  return stop <= at ? at + 1 : stop;
}

/* A line's start: what a paste puts before the field (indentation, "> " quotes) skipped. */
static int at_line_start(const char *t, size_t s, size_t at) {
  size_t p = at;
  while (p > s && at - p < 16 && (t[p - 1] == ' ' || t[p - 1] == '\t' || t[p - 1] == '>')) p--;
  return p == s || t[p - 1] == '\n';
}

/* The value of "Key: value" on its own line in the window. */
static size_t field(const char *t, size_t s, size_t e, const char *key, char *out, size_t cap) {
  for (size_t at = lab_ex_find(t, s, e, key); at != LAB_EX_NONE; at = lab_ex_find(t, at + 1, e, key))
    if (at_line_start(t, s, at)) return lab_ex_word(t, at + strlen(key), e, NULL, out, cap);
  out[0] = '\0';
  return 0;
}

/* "12.1" → 12; "None"/"" → -1. */
static int major_of(const char *v) { return (v[0] >= '0' && v[0] <= '9') ? atoi(v) : -1; }

/* The oldest Linux driver each CUDA version runs on, from NVIDIA's CUDA
 * toolkit release notes: before 11 per minor version, from 11 per major
 * (minor version compatibility: any 12.x runs on a 12.0 driver). */
static const struct {
  int major, minor, drv_major, drv_minor;
} drivers[] = {{8, 0, 367, 48},  {9, 0, 384, 81},  {9, 1, 390, 46},  {9, 2, 396, 26}, {10, 0, 410, 48},
               {10, 1, 418, 39}, {10, 2, 440, 33}, {11, -1, 450, 80}, {12, -1, 525, 60}, {13, -1, 580, 65}};

/* "10.2" / "10.1.243" / "418.67": its first two numbers; 0 when it is not a version. */
static int version(const char *v, int *major, int *minor) {
  if (!(v[0] >= '0' && v[0] <= '9')) return 0;
  char *end = NULL;
  *major = (int)strtol(v, &end, 10);
  *minor = (end && *end == '.') ? (int)strtol(end + 1, NULL, 10) : 0;
  return 1;
}

/* 1 when the build's CUDA (major.minor) is newer than the driver's own. */
static int ptx_newer(const char *build, const char *driver, char *dcuda, size_t cap) {
  int bm, bn, dm, dn;
  if (!version(build, &bm, &bn) || !lab_ex_driver_cuda(driver, dcuda, cap) || !version(dcuda, &dm, &dn)) return 0;
  return dm < bm || (dm == bm && dn < bn);
}

/* Whether a build for `list` ("sm_70 sm_75 compute_90", or gfx targets)
 * runs on `arch` ("sm_60", "gfx1031"): a cubin of the same major version
 * and a lower or equal minor runs, PTX of a lower or equal version is
 * compiled at load; a gfx target must be listed itself. -1 unknown. */
static int arch_supported(const char *arch, const char *list) {
  if (!arch[0] || !list[0]) return -1;
  int gfx = !strncmp(arch, "gfx", 3), major = 0, minor = 0;
  size_t alen = strcspn(arch, ":");
  if (!gfx) {
    size_t d = strspn(arch + 3, "0123456789");
    if (strncmp(arch, "sm_", 3) || d < 2) return -1;
    major = atoi(arch + 3) / 10;
    minor = atoi(arch + 3) % 10;
  }
  for (const char *p = list; *p;) {
    p += strspn(p, " ,[]'\"");
    size_t len = strcspn(p, " ,[]'\"");
    if (!len) break;
    if (gfx) {
      if (strcspn(p, ":") >= alen && !strncmp(p, arch, alen) && (len == alen || p[alen] == ':')) return 1;
    } else {
      int sm = !strncmp(p, "sm_", 3), ptx = !strncmp(p, "compute_", 8);
      int v = sm ? atoi(p + 3) : ptx ? atoi(p + 8) : -1;
      if ((sm && v / 10 == major && v % 10 <= minor) || (ptx && v >= 0 && v <= major * 10 + minor)) return 1;
    }
    p += len;
  }
  return 0;
}

/* 1 when the driver is older than the one the CUDA build needs. */
static int driver_too_old(const char *build, const char *driver) {
  int bm, bn, dm, dn;
  if (!version(build, &bm, &bn) || !version(driver, &dm, &dn)) return 0;
  for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
    if (drivers[i].major == bm && (drivers[i].minor < 0 || drivers[i].minor == bn))
      return dm < drivers[i].drv_major || (dm == drivers[i].drv_major && dn < drivers[i].drv_minor);
  return 0;
}

/* "True" (PyTorch 1.6 on) or "Yes" (before). */
static int said(const char *v, int yes) { return yes ? (!strcmp(v, "True") || !strcmp(v, "Yes")) : (!strcmp(v, "False") || !strcmp(v, "No")); }

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  /* a machine without GPU and a PyTorch without CUDA agree too ("Could not collect": no CUDA version) */
  char torch[64], build[64], hip[64], avail[16], driver[64], gpu[128], os[64], arch[64], list[512], bf16[16];
  char mps_built[16], mps_avail[16], dcuda[16];
  cJSON *f = it->facts;
  (void)n, (void)m;
  it->kind = "collect_env";
  if (field(t, s, e, "PyTorch version: ", torch, sizeof torch) || field(t, s, e, "PyTorch version ", torch, sizeof torch))
    lab_ex_fact_str(f, "torch", torch);
  if (field(t, s, e, "CUDA used to build PyTorch: ", build, sizeof build)) lab_ex_fact_str(f, "cuda_build", build);
  if (field(t, s, e, "ROCM used to build PyTorch: ", hip, sizeof hip) && strcmp(hip, "N/A") && strcmp(hip, "None"))
    lab_ex_fact_str(f, "hip_build", hip);
  else hip[0] = '\0';
  if (field(t, s, e, "Is CUDA available: ", avail, sizeof avail)) lab_ex_fact_str(f, "cuda_available", avail);
  /* "No CUDA": collect_env's word on a Mac */
  if (field(t, s, e, "Nvidia driver version: ", driver, sizeof driver) && strcmp(driver, "Could not collect") != 0 &&
      strcmp(driver, "No CUDA") != 0)
    lab_ex_fact_str(f, "driver", driver);
  else driver[0] = '\0';
  /* "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090" (or the name alone, or on the next line) */
  gpu[0] = '\0';
  size_t g = lab_ex_find(t, s, e, "GPU models and configuration:");
  if (g != LAB_EX_NONE) {
    size_t p = g + 29, le = lab_ex_line_end(t, p, e);
    if (lab_ex_word(t, p, le, NULL, gpu, sizeof gpu) == 0) {
      while (le < e && (t[le] == '>' || t[le] == ' ' || t[le] == '\t')) le++; /* a quoted or indented paste */
      lab_ex_word(t, le, lab_ex_line_end(t, le, e), NULL, gpu, sizeof gpu);
    }
    char *colon = strncmp(gpu, "GPU ", 4) == 0 ? strchr(gpu, ':') : NULL;
    char *wide = strncmp(gpu, "GPU ", 4) == 0 ? strstr(gpu, "\xef\xbc\x9a") : NULL; /* a full-width colon, retyped */
    if (wide && (!colon || wide < colon)) colon = wide + 2;
    if (colon) {
      colon++;
      while (*colon == ' ') colon++;
      memmove(gpu, colon, strlen(colon) + 1);
    }
    if (!strcmp(gpu, "Could not collect") || !strcmp(gpu, "No CUDA")) gpu[0] = '\0';
    if (gpu[0]) lab_ex_fact_str(f, "gpu", gpu);
  }
  /* the kit's own fields; "OS: macOS 12.2.1 (arm64)" is collect_env's */
  char *macos = field(t, s, e, "OS: ", os, sizeof os) && !strncmp(os, "macOS ", 6) ? os + 6 : NULL;
  if (macos) {
    macos[strcspn(macos, " ")] = '\0';
    lab_ex_fact_str(f, "macos", macos);
  }
  if (field(t, s, e, "GPU architecture: ", arch, sizeof arch)) lab_ex_fact_str(f, "gpu_arch", arch);
  if (field(t, s, e, "torch.cuda.get_arch_list(): ", list, sizeof list)) lab_ex_fact_str(f, "arch_list", list);
  if (field(t, s, e, "torch.cuda.is_bf16_supported(): ", bf16, sizeof bf16)) lab_ex_fact_str(f, "bf16_supported", bf16);
  if (field(t, s, e, "MPS built: ", mps_built, sizeof mps_built)) lab_ex_fact_str(f, "mps_built", mps_built);
  if (field(t, s, e, "MPS available: ", mps_avail, sizeof mps_avail)) lab_ex_fact_str(f, "mps_available", mps_avail);
  int bm = major_of(build), tm = major_of(torch);
  /* the machine the dump shows: a ROCm build, macOS, or an NVIDIA driver, GPU or CUDA build */
  it->platform = hip[0] ? LAB_EX_ROCM : macos ? LAB_EX_MAC : (bm > 0 || driver[0] || gpu[0]) ? LAB_EX_CUDA : LAB_EX_NO_PLATFORM;
  /* no CUDA in the build: "None", or "Could not collect" (collect_env's word for None before 2.3) */
  int cpu_wheel = torch[0] && !hip[0] && (!strcmp(build, "None") || !strcmp(build, "Could not collect"));
  int kepler = strstr(gpu, "K80") || strstr(gpu, "K40") || strstr(gpu, "Tesla K") || strstr(gpu, "GTX 7") || strstr(gpu, "GT 7");
  int sm = !strncmp(arch, "sm_", 3) ? atoi(arch + 3) : -1;
  int ptx = bm > 0 && driver[0] && ptx_newer(build, driver, dcuda, sizeof dcuda);
  if (ptx) lab_ex_fact_str(f, "driver_cuda", dcuda);
  /* the kit's preflight decides in this order too (kit/measure.py, decide) */
  if (cpu_wheel && (driver[0] || gpu[0]) && !macos) it->diag = "env_cpu_wheel_on_gpu";
  else if (bm > 0 && driver[0] && driver_too_old(build, driver)) it->diag = "env_runtime_newer_than_driver";
  else if (ptx && !said(avail, 0)) it->diag = "env_ptx_newer_than_driver"; /* moot when CUDA is not available */
  else if (bm > 0 && kepler && tm >= 2) it->diag = "env_gpu_older_than_wheel";
  else if (arch_supported(arch, list) == 0) it->diag = hip[0] || !strncmp(arch, "gfx", 3) ? "env_rocm_gfx_unsupported" : "env_arch_not_in_wheel";
  else if (macos && (said(mps_avail, 0) || (said(mps_avail, 1) && tm >= 0 && tm < 2))) it->diag = "env_mps_unusable";
  else if (sm >= 0 && sm < 80 && said(bf16, 1)) it->diag = "env_bf16_emulated"; /* sm_XY: a CUDA build */
  else if ((bm > 0 || hip[0]) && said(avail, 0) && !driver[0] && !gpu[0] && !hip[0]) it->diag = "setup_no_driver";
  else if ((bm > 0 || hip[0]) && said(avail, 0)) it->diag = "env_cuda_unavailable"; /* driver fine, still no CUDA */
  else if (torch[0] && (said(avail, 1) || ((bm < 0 || cpu_wheel) && said(avail, 0) && !driver[0] && !gpu[0])))
    it->diag = "env_consistent";
  else it->diag = "unknown"; /* the header alone: nothing to judge */
}

const lab_ex_recogniser lab_ex_env = {"collect_env", find, extent, read};
