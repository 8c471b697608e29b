/* The fidelity suite: the simulator against published real-hardware
 * measurements (tests/fidelity/published.json, each with its link, the
 * figure as written and its settings), run at matching settings. Prints the
 * table of ratios (simulated / published) and checks, as TAP, that at least
 * 90 % lie within [0.75, 1.33] and that no profile produces anything
 * physically impossible: above a datasheet peak, pageable faster than
 * pinned, beyond the host link, a time that falls as the size grows, TF32
 * slower than FP32 on a GPU with TF32 tensor cores.
 * Usage: fidelity [published.json]   (make fidelity) */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "host_link.h"
#include "profiles.h"
#include "registry.h"

#define LO 0.75
#define HI 1.33
#define MIN_ROWS 40
#define MIN_SHARE 0.90
#define MAX_CACHE 256

static int tap_n, tap_failed;

static void tap(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (!ok) tap_failed++;
}

/* ---- simulation, one envelope per (experiment, profile, params) ---------- */

static struct {
  char key[512];
  cJSON *env;
} cache[MAX_CACHE];
static int n_cache;

static cJSON *simulate(const char *experiment, const char *profile, const cJSON *params, char *why, size_t n) {
  char *p = cJSON_PrintUnformatted(params);
  char key[512];
  snprintf(key, sizeof key, "%s|%s|%s", experiment, profile, p ? p : "{}");
  free(p);
  for (int i = 0; i < n_cache; i++)
    if (strcmp(cache[i].key, key) == 0) return cache[i].env;
  const lab_experiment *e = lab_experiment_find(experiment);
  cJSON *env = NULL;
  lab_error err;
  if (!e) return snprintf(why, n, "unknown experiment %s", experiment), NULL;
  if (lab_simulate(e, params, profile, &env, &err)) return snprintf(why, n, "%s", err.message), NULL;
  if (n_cache < MAX_CACHE) {
    snprintf(cache[n_cache].key, sizeof cache[n_cache].key, "%s", key);
    cache[n_cache++].env = env;
  }
  return env;
}

static const cJSON *series(const cJSON *env, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(s, "id");
    if (cJSON_IsString(sid) && strcmp(sid->valuestring, id) == 0) return cJSON_GetObjectItemCaseSensitive(s, "points");
  }
  return NULL;
}

static double metric(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The simulated figure a probe reads: a metric, y at x, y / x scaled, or the largest y over an x range. */
static double probe(const cJSON *env, const cJSON *pr) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(pr, "metric");
  if (cJSON_IsString(m)) return metric(env, m->valuestring);
  const cJSON *pts = series(env, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pr, "series")));
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(pr, "x"), *range = cJSON_GetObjectItemCaseSensitive(pr, "max_over");
  const cJSON *scale = cJSON_GetObjectItemCaseSensitive(pr, "x_over_y");
  double best = NAN, pt;
  const cJSON *p;
  cJSON_ArrayForEach(p, pts) {
    double px = cJSON_GetArrayItem(p, 0)->valuedouble, py = cJSON_GetArrayItem(p, 1)->valuedouble;
    pt = cJSON_IsNumber(scale) ? scale->valuedouble * px / py : py;
    if (cJSON_IsNumber(x) && fabs(px - x->valuedouble) < 0.5) return pt;
    if (cJSON_IsArray(range) && px >= cJSON_GetArrayItem(range, 0)->valuedouble &&
        px <= cJSON_GetArrayItem(range, 1)->valuedouble && !(pt <= best))
      best = pt;
  }
  return best;
}

/* ---- the table ----------------------------------------------------------- */

static const char *str(const cJSON *row, const char *key) {
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, key));
  return s ? s : "";
}

static int compare_rows(const cJSON *rows) {
  int n = 0, in = 0, fitted = 0, fitted_in = 0, sourced = 1;
  double worst_lo = 1e9, worst_hi = 0;
  char worst_lo_id[64] = "", worst_hi_id[64] = "", why[400];
  printf("# %-22s %-9s %-34s %10s %10s %6s %s\n", "row", "profile", "what (settings: see published.json)", "published",
         "simulated", "ratio", "source");
  const cJSON *row;
  cJSON_ArrayForEach(row, rows) {
    const char *id = str(row, "id"), *prof = str(row, "profile"), *ref = str(row, "ref");
    const lab_ref *r = lab_profile_ref(ref);
    if (!r || !str(row, "figure")[0] || !str(row, "settings")[0]) {
      printf("# %s: no link, figure or settings\n", id);
      sourced = 0;
    }
    cJSON *env = simulate(str(row, "experiment"), prof, cJSON_GetObjectItemCaseSensitive(row, "params"), why, sizeof why);
    double pub = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "published"));
    double sim = env ? probe(env, cJSON_GetObjectItemCaseSensitive(row, "probe")) : NAN;
    double ratio = sim / pub;
    int ok = ratio >= LO && ratio <= HI, fit = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "fitted"));
    n++;
    in += ok;
    fitted += fit;
    fitted_in += fit && ok;
    if (ratio < worst_lo) worst_lo = ratio, snprintf(worst_lo_id, sizeof worst_lo_id, "%s", id);
    if (ratio > worst_hi) worst_hi = ratio, snprintf(worst_hi_id, sizeof worst_hi_id, "%s", id);
    char what[40];
    snprintf(what, sizeof what, "%s", str(row, "figure"));
    printf("# %-22s %-9s %-34s %10.4g %10.4g %6.2f %s%s%s\n", id, prof, what, pub, sim, ratio, ok ? "" : "OUT ",
           fit ? "(fitted) " : "", r ? r->url : ref);
    if (!env) printf("#   not simulated: %s\n", why);
    else if (!ok) printf("#   %s\n", str(row, "note")[0] ? str(row, "note") : "no note");
  }
  printf("# %d rows (%d fitted to derive a profile figure, %d independent); within [%.2f, %.2f]: %d (%.0f%%), fitted "
         "%d/%d, independent %d/%d; lowest %.2f (%s), highest %.2f (%s)\n",
         n, fitted, n - fitted, LO, HI, in, n ? 100.0 * in / n : 0, fitted_in, fitted, in - fitted_in, n - fitted,
         worst_lo, worst_lo_id, worst_hi, worst_hi_id);
  tap(n >= MIN_ROWS, "at least %d published measurements (%d)", MIN_ROWS, n);
  tap(sourced, "every row has its link, the figure as written and its settings");
  tap(n > 0 && in >= MIN_SHARE * n, "at least %.0f%% of the rows within [%.2f, %.2f] (%d of %d)", 100 * MIN_SHARE, LO,
      HI, in, n);
  return 0;
}

/* ---- physics on every profile --------------------------------------------- */

/* simulate() with params given as JSON text. */
static cJSON *simulate_text(const char *experiment, const char *profile, const char *params, char *why, size_t n) {
  cJSON *pj = cJSON_Parse(params);
  cJSON *env = simulate(experiment, profile, pj, why, n);
  cJSON_Delete(pj);
  return env;
}

static const cJSON *pts_of(const cJSON *env, const char *id) {
  static cJSON none = {.type = cJSON_Array}; /* a missing series counts no points, and the check fails */
  const cJSON *p = series(env, id);
  return p ? p : &none;
}

static double y_at(const cJSON *pts, int i) { return cJSON_GetArrayItem(cJSON_GetArrayItem(pts, i), 1)->valuedouble; }
static double x_at(const cJSON *pts, int i) { return cJSON_GetArrayItem(cJSON_GetArrayItem(pts, i), 0)->valuedouble; }

static void precision_physics(const lab_profile *p, const char *view) {
  static const char *const ids[] = {"fp32", "tf32", "bf16", "fp16"};
  char params[128], why[400], sid[32];
  snprintf(params, sizeof params, "{\"max_size\":8192,\"samples\":3,\"train_steps\":10,\"view\":\"%s\"}", view);
  cJSON *env = simulate_text("precision", p->name, params, why, sizeof why);
  if (!env) return tap(0, "%s precision (%s view) simulates: %s", p->name, view, why);
  double peaks[4] = {p->fp32_tflops, p->tf32_tflops > 0 ? p->tf32_tflops : p->fp32_tflops,
                     p->bf16_tflops > 0 ? p->bf16_tflops : p->fp32_tflops,
                     p->fp16_tflops > 0 ? p->fp16_tflops : p->fp32_tflops};
  int above = 0, falls = 0, tf32_slow = 0, count = 0;
  for (int q = 0; q < 4; q++) {
    snprintf(sid, sizeof sid, "tflops_%s", ids[q]);
    const cJSON *pts = series(env, sid);
    for (int i = 0; pts && i < cJSON_GetArraySize(pts); i++, count++) {
      double n = x_at(pts, i), t = 2 * n * n * n / y_at(pts, i);
      above += y_at(pts, i) > peaks[q] * 1.0001;
      if (i > 0) {
        double n0 = x_at(pts, i - 1);
        falls += t < 2 * n0 * n0 * n0 / y_at(pts, i - 1) * 0.9999;
      }
    }
  }
  const cJSON *f = series(env, "tflops_fp32"), *t = series(env, "tflops_tf32");
  for (int i = 0; p->tf32_tflops > 0 && f && t && i < cJSON_GetArraySize(f); i++)
    tf32_slow += y_at(t, i) < y_at(f, i) * 0.9999;
  tap(count > 0 && !above, "%s precision (%s view): no matmul above its datasheet peak", p->name, view);
  tap(count > 0 && !falls, "%s precision (%s view): matmul time never falls as N grows", p->name, view);
  tap(!tf32_slow, "%s precision (%s view): TF32 never slower than FP32%s", p->name, view,
      p->tf32_tflops > 0 ? " (TF32 tensor cores)" : " (no TF32 tensor cores: same kernels)");
}

static void transfer_physics(const lab_profile *p, const char *host) {
  static const char *const kinds[4] = {"h2d_pageable", "h2d_pinned", "d2h_pageable", "d2h_pinned"};
  char params[160], why[400];
  snprintf(params, sizeof params, "{\"max_bytes\":1073741824,\"samples\":5,\"host\":\"%s\"}", host);
  cJSON *env = simulate_text("transfer", p->name, params, why, sizeof why);
  if (!env) return tap(0, "%s transfer (host %s) simulates: %s", p->name, host, why);
  double link = metric(env, "link_nominal_gbps");
  int pageable_faster = 0, beyond = 0, falls = 0, count = 0;
  for (int k = 0; k < 4; k++) {
    const cJSON *pts = pts_of(env, kinds[k]);
    for (int i = 0; i < cJSON_GetArraySize(pts); i++, count++) {
      beyond += y_at(pts, i) > link;
      if (i > 0) falls += x_at(pts, i) / y_at(pts, i) < x_at(pts, i - 1) / y_at(pts, i - 1);
      if (k == 0 || k == 2) pageable_faster += y_at(pts, i) > y_at(pts_of(env, kinds[k + 1]), i);
    }
  }
  tap(count > 0 && !pageable_faster, "%s transfer (host %s): pageable never faster than pinned", p->name, host);
  tap(count > 0 && isfinite(link) && !beyond, "%s transfer (host %s): no copy beyond the host link (%.1f GB/s)",
      p->name, host, link);
  tap(count > 0 && !falls, "%s transfer (host %s): copy time never falls as the size grows", p->name, host);
  tap(metric(env, "small_copies_ms") >= metric(env, "batched_copy_ms"),
      "%s transfer (host %s): many small copies never beat one copy of the same bytes", p->name, host);
}

static void memory_physics(const lab_profile *p) {
  char why[400];
  cJSON *env = simulate_text("graphs", p->name, "{\"kernels\":100,\"samples\":3,\"sweep\":true}", why, sizeof why);
  if (!env) return tap(0, "%s graphs simulates: %s", p->name, why);
  const cJSON *pts = pts_of(env, "sweep_body");
  int n = cJSON_GetArraySize(pts), above = 0, falls = 0;
  for (int i = 0; i < n; i++) {
    above += 8 * x_at(pts, i) / (y_at(pts, i) * 1e3) > p->mem_peak_gbps;
    if (i > 0) falls += y_at(pts, i) < y_at(pts, i - 1);
  }
  tap(n > 0 && !above, "%s: no copy kernel above the datasheet memory bandwidth (%.0f GB/s)", p->name,
      p->mem_peak_gbps);
  tap(n > 0 && !falls, "%s: kernel time never falls as its buffer grows", p->name);
}

static void timing_physics(const lab_profile *p) {
  char why[400];
  cJSON *env = simulate_text("timing", p->name, "{\"size\":256,\"repeats\":20,\"samples\":5}", why, sizeof why);
  if (!env) return tap(0, "%s timing simulates: %s", p->name, why);
  tap(metric(env, "events_ms") <= metric(env, "host_sync_ms"),
      "%s timing: the GPU's event span never exceeds the host's synchronized time", p->name);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/fidelity/published.json";
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "fidelity: cannot open %s\n", path), 2;
  static char buf[1 << 20];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = '\0';
  cJSON *doc = cJSON_Parse(buf);
  if (!doc) return fprintf(stderr, "fidelity: %s is not JSON\n", path), 2;
  printf("TAP version 13\n# gpulab fidelity: the simulator against published measurements (%s)\n", path);
  compare_rows(cJSON_GetObjectItemCaseSensitive(doc, "rows"));
  printf("# physics on every profile\n");
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    precision_physics(p, "pytorch");
    precision_physics(p, "cuda");
    for (int h = 0; lab_host_link_choices[h]; h++) transfer_physics(p, lab_host_link_choices[h]);
    memory_physics(p);
    timing_physics(p);
  }
  printf("1..%d\n# pass %d\n# fail %d\n", tap_n, tap_n - tap_failed, tap_failed);
  for (int i = 0; i < n_cache; i++) cJSON_Delete(cache[i].env);
  cJSON_Delete(doc);
  return tap_failed ? 1 : 0;
}
