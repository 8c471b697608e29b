/* The fidelity suite: the simulator against published real-hardware
 * measurements (tests/fidelity/published.json: each row a quantity on a
 * profile, the published value, its source link, where in the source, the
 * conditions, and whether it was fitted), run at matching settings. Validates
 * every row strictly, prints held-out and fitted rows apart with their ratios
 * (simulated / published), and checks, as TAP, that held-out rows really are
 * independent of the profile figures they test (and fitted rows are not),
 * that there are at least 40 of them from at least 30 sources, and that at
 * least 90 % of them lie within [0.75, 1.33]; then that no profile produces anything physically impossible,
 * and that an experiment with no meaning on a profile (an Apple GPU's host link) says so.
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
#define MIN_ROWS 40    /* held-out rows */
#define MIN_SOURCES 30 /* distinct sources among them */
#define MIN_SHARE 0.90
#define MAX_CACHE 256

/* The held-out goal of issue 22: at least MIN_ROWS held-out rows from
 * MIN_SOURCES sources, MIN_SHARE of them within [LO, HI]. 1: a miss fails
 * the suite (and make fidelity); 0: a miss prints as a TAP TODO, reported
 * but not failed, while the rows are gathered. */
#define ENFORCE_HELD_OUT_GOAL 1

static int tap_n, tap_failed, tap_todo;

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

/* A check of the held-out goal: a failure unless the goal is not enforced yet. */
static void goal(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void goal(int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
  vprintf(fmt, ap);
  printf("%s\n", ok || ENFORCE_HELD_OUT_GOAL ? "" : " # TODO held-out goal not met yet");
  va_end(ap);
  if (!ok && ENFORCE_HELD_OUT_GOAL) tap_failed++;
  if (!ok && !ENFORCE_HELD_OUT_GOAL) tap_todo++;
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

/* ---- what a row may compare ---------------------------------------------- */

/* A quantity a row compares: the experiment and the series or metric that
 * produce it, its unit, and the profile figures it depends on (a row whose
 * source is the document one of those figures was read or derived from is
 * not an independent check of it). */
typedef struct quantity {
  const char *name, *unit, *experiment, *reads, *figures;
} quantity;

#define TC_FIGURES "tc_efficiency,tc_tile_m,tc_tile_n,power_cap,fp32_tflops,gemm_efficiency"
static const quantity quantities[] = {
    {"matmul_fp32", "TFLOPS", "precision", "tflops_fp32", "fp32_tflops,gemm_efficiency,power_cap"},
    {"matmul_tf32", "TFLOPS", "precision", "tflops_tf32", "tf32_tflops," TC_FIGURES},
    {"matmul_fp16", "TFLOPS", "precision", "tflops_fp16", "fp16_tflops," TC_FIGURES},
    {"matmul_bf16", "TFLOPS", "precision", "tflops_bf16", "bf16_tflops,bf16_fallback," TC_FIGURES},
    {"copy_kernel_bw", "GB/s", "graphs", "sweep_body", "mem_bw_gbps"},
    {"h2d_pinned_bw", "GB/s", "transfer", "h2d_pinned", "h2d_pinned_gbps,copy_latency_us"},
    {"d2h_pinned_bw", "GB/s", "transfer", "d2h_pinned", "d2h_pinned_gbps,copy_latency_us"},
    {"h2d_pageable_bw", "GB/s", "transfer", "h2d_pageable", "h2d_pageable_gbps,copy_latency_us"},
    {"d2h_pageable_bw", "GB/s", "transfer", "d2h_pageable", "d2h_pageable_gbps,copy_latency_us"},
    {"torch_op_time", "us", "graphs", "eager_per_kernel_us", "torch_op_us,launch_us,kernel_min_us"},
    {"torch_op_submit", "us", "graphs", "eager_launch_per_kernel_us", "torch_op_us,launch_us"},
};

static const quantity *quantity_find(const char *name) {
  for (size_t i = 0; i < sizeof quantities / sizeof quantities[0]; i++)
    if (strcmp(quantities[i].name, name) == 0) return &quantities[i];
  return NULL;
}

/* 1 when p's figure `field` was read or derived from the document at url
 * (lab/sim/profiles_data.c records the source of every figure). */
static int cites(const lab_profile *p, const char *field, const char *url) {
  const lab_src *s = lab_profile_src(p, field);
  const lab_ref *r = s && s->ref ? lab_profile_ref(s->ref) : NULL;
  return r && strcmp(r->url, url) == 0;
}

/* 1 when field is one of the figures q depends on. */
static int depends_on(const quantity *q, const char *field) {
  size_t n = strlen(field);
  for (const char *f = q->figures; *f;) {
    size_t len = strcspn(f, ",");
    if (len == n && strncmp(f, field, n) == 0) return 1;
    f += len + (f[len] == ',');
  }
  return 0;
}

/* The profile figure of q that p read or derived from the document at url, or NULL. */
static const char *derived_from(const lab_profile *p, const quantity *q, const char *url) {
  static char field[64];
  for (const char *f = q->figures; *f;) {
    size_t len = strcspn(f, ",");
    snprintf(field, sizeof field, "%.*s", (int)len, f);
    if (cites(p, field, url)) return field;
    f += len + (f[len] == ',');
  }
  return NULL;
}

/* ---- the rows: strict shape ---------------------------------------------- */

static const char *const row_keys[] = {"id",         "quantity",  "profile", "experiment", "params",
                                       "probe",      "published", "unit",    "source",     "where",
                                       "conditions", "fitted",    "derives", "note",       NULL};

static const char *str(const cJSON *row, const char *key) {
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, key));
  return s ? s : "";
}

/* 1 when s holds a double quote (straight or curly): a description says
 * where in the source, in our words, and quotes nothing. */
static int quotes(const char *s) {
  return strchr(s, '"') || strstr(s, "\xe2\x80\x9c") || strstr(s, "\xe2\x80\x9d") || strstr(s, "\xe2\x80\x9e");
}

/* Writes why the row is malformed into why; returns 0 when it is well formed. */
static int check_row(const cJSON *row, const cJSON *rows, int index, char *why, size_t n) {
  const cJSON *k;
  if (!cJSON_IsObject(row)) return snprintf(why, n, "not an object"), -1;
  cJSON_ArrayForEach(k, row) {
    int known = 0;
    for (int i = 0; row_keys[i]; i++) known |= strcmp(k->string, row_keys[i]) == 0;
    if (!known) return snprintf(why, n, "unknown key %s", k->string), -1;
  }
  static const char *const strings[] = {"id",     "quantity", "profile",    "experiment", "unit",
                                        "source", "where",    "conditions", NULL};
  for (int i = 0; strings[i]; i++)
    if (!str(row, strings[i])[0]) return snprintf(why, n, "%s missing or not a non-empty string", strings[i]), -1;
  const cJSON *note = cJSON_GetObjectItemCaseSensitive(row, "note");
  if (note && !(cJSON_IsString(note) && note->valuestring[0]))
    return snprintf(why, n, "note is not a non-empty string"), -1;
  const cJSON *pub = cJSON_GetObjectItemCaseSensitive(row, "published");
  if (!cJSON_IsNumber(pub) || !(pub->valuedouble > 0) || !isfinite(pub->valuedouble))
    return snprintf(why, n, "published is not a positive number"), -1;
  if (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(row, "fitted")))
    return snprintf(why, n, "fitted is not true or false"), -1;
  if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(row, "params")))
    return snprintf(why, n, "params is not an object"), -1;
  const char *id = str(row, "id");
  for (int i = 0; i < index; i++)
    if (strcmp(str(cJSON_GetArrayItem(rows, i), "id"), id) == 0) return snprintf(why, n, "id used twice"), -1;
  const quantity *q = quantity_find(str(row, "quantity"));
  if (!q) return snprintf(why, n, "unknown quantity %s", str(row, "quantity")), -1;
  if (strcmp(str(row, "unit"), q->unit) != 0)
    return snprintf(why, n, "unit %s, but %s is in %s", str(row, "unit"), q->name, q->unit), -1;
  if (strcmp(str(row, "experiment"), q->experiment) != 0)
    return snprintf(why, n, "%s comes from the %s experiment", q->name, q->experiment), -1;
  if (!lab_profile_find(str(row, "profile"))) return snprintf(why, n, "unknown profile %s", str(row, "profile")), -1;
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(row, "probe");
  const char *reads = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pr, "metric"));
  if (!reads) reads = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pr, "series"));
  if (!cJSON_IsObject(pr) || !reads || strcmp(reads, q->reads) != 0)
    return snprintf(why, n, "probe does not read %s (the %s of %s)", q->reads, q->name, q->experiment), -1;
  const char *src = str(row, "source");
  if (strncmp(src, "https://", 8) != 0 || strchr(src, ' ')) return snprintf(why, n, "source is not an https link"), -1;
  const cJSON *derives = cJSON_GetObjectItemCaseSensitive(row, "derives"), *d;
  if (derives) {
    if (!cJSON_IsArray(derives) || !cJSON_GetArraySize(derives))
      return snprintf(why, n, "derives is not a list of profile figures"), -1;
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "fitted")))
      return snprintf(why, n, "derives a figure but is not fitted"), -1;
    cJSON_ArrayForEach(d, derives) {
      const char *field = cJSON_GetStringValue(d);
      if (!field || !depends_on(q, field))
        return snprintf(why, n, "derives %s, not a figure %s depends on", field ? field : "?", q->name), -1;
      if (!cites(lab_profile_find(str(row, "profile")), field, src))
        return snprintf(why, n, "derives %s, but lab/sim/profiles_data.c does not cite this source for it", field), -1;
    }
  }
  const char *where = str(row, "where");
  if (strlen(where) < 12 || strlen(where) > 200 || quotes(where))
    return snprintf(why, n, "where must say in 12 to 200 characters, without quotation marks, where the figure is"), -1;
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

typedef struct tally {
  int n, in;
  const char *sources[512];
  int n_sources;
} tally;

static void count(tally *t, int ok, const char *source) {
  t->n++;
  t->in += ok;
  for (int i = 0; i < t->n_sources; i++)
    if (strcmp(t->sources[i], source) == 0) return;
  if (t->n_sources < 512) t->sources[t->n_sources++] = source;
}

static int compare_rows(const cJSON *rows) {
  int malformed = 0, same_doc = 0, unfit = 0, index = 0;
  tally held = {0}, fit = {0};
  char why[400];
  if (!cJSON_IsArray(rows)) return tap(0, "the document has an array of rows"), 0;
  const cJSON *row;
  cJSON_ArrayForEach(row, rows) {
    if (check_row(row, rows, index++, why, sizeof why)) {
      printf("# row %d (%s): %s\n", index, str(row, "id"), why);
      malformed++;
      continue;
    }
    /* Held out means not used to derive the figure compared: a row is
     * fitted exactly when it derives a figure or comes from a document its
     * profile took one of the quantity's figures from. Another document on
     * the same (profile, quantity) is independent data the fit never saw. */
    const char *prof = str(row, "profile"), *qn = str(row, "quantity");
    const char *field = derived_from(lab_profile_find(prof), quantity_find(qn), str(row, "source"));
    int fitted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "fitted"));
    if (!fitted && field) {
      printf("# %s: held out, but %s's %s was taken from the same document\n", str(row, "id"), prof, field);
      same_doc++;
    }
    if (fitted && !field && !cJSON_GetObjectItemCaseSensitive(row, "derives")) {
      printf("# %s: fitted, but it derives nothing and %s took no %s figure from its document\n", str(row, "id"),
             prof, qn);
      unfit++;
    }
  }
  tap(!malformed,
      "every row is well formed: quantity, profile, simulated run, published value and unit, source link, "
      "where in it, conditions, fitted (%d malformed)",
      malformed);
  tap(!same_doc, "no held-out row cites a document its profile took that quantity's figures from (%d do)", same_doc);
  tap(!unfit, "every fitted row derives a figure or cites a document its profile took that quantity's figures from "
      "(%d do not)", unfit);

  printf("# %-22s %-9s %-18s %10s %10s %6s %-4s %s\n", "row", "profile", "quantity", "published", "simulated", "ratio",
         "kind", "source");
  for (int pass = 0; pass < 2; pass++) {
    printf("# ---- %s ----\n", pass ? "fitted (used to derive a profile figure, or from the document one came from)"
                                    : "held out (independent of every profile figure they are compared with)");
    cJSON_ArrayForEach(row, rows) {
      int fitted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "fitted"));
      if (fitted != pass || check_row(row, rows, 0, why, sizeof why) != 0) continue;
      const char *id = str(row, "id"), *prof = str(row, "profile");
      cJSON *env =
          simulate(str(row, "experiment"), prof, cJSON_GetObjectItemCaseSensitive(row, "params"), why, sizeof why);
      double pub = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "published"));
      double sim = env ? probe(env, cJSON_GetObjectItemCaseSensitive(row, "probe")) : NAN;
      double ratio = sim / pub;
      int ok = ratio >= LO && ratio <= HI;
      count(fitted ? &fit : &held, ok, str(row, "source"));
      printf("# %-22s %-9s %-18s %10.4g %10.4g %6.2f %-4s %s%s\n", id, prof, str(row, "quantity"), pub, sim, ratio,
             fitted ? "fit" : "held", ok ? "" : "OUT ", str(row, "source"));
      if (!env) printf("#   not simulated: %s\n", why);
      else if (!ok) printf("#   %s\n", str(row, "note")[0] ? str(row, "note") : "no note");
    }
  }
  printf("# held out: %d rows from %d sources, %d within [%.2f, %.2f] (%.0f%%)\n", held.n, held.n_sources, held.in, LO,
         HI, held.n ? 100.0 * held.in / held.n : 0);
  printf("# fitted:   %d rows from %d sources, %d within [%.2f, %.2f] (%.0f%%) - agreement there is by construction\n",
         fit.n, fit.n_sources, fit.in, LO, HI, fit.n ? 100.0 * fit.in / fit.n : 0);
  goal(held.n >= MIN_ROWS, "at least %d held-out published measurements (%d)", MIN_ROWS, held.n);
  goal(held.n_sources >= MIN_SOURCES, "the held-out rows cite at least %d distinct sources (%d)", MIN_SOURCES,
       held.n_sources);
  goal(held.n > 0 && held.in >= MIN_SHARE * held.n,
       "at least %.0f%% of the held-out rows within [%.2f, %.2f] (%d of %d)", 100 * MIN_SHARE, LO, HI, held.in, held.n);
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

/* An experiment with no meaning on p (an Apple GPU's host link, its graphs)
 * simulates nothing and says so: never a model of what the device has not. */
static void refused_physics(const lab_profile *p, const char *experiment) {
  cJSON *env = NULL;
  lab_error err = {0};
  int rc = lab_simulate(lab_experiment_find(experiment), NULL, p->name, &env, &err);
  tap(rc != 0 && !env && err.code == LAB_E_NOT_APPLICABLE, "%s %s: does not apply, and answers not_applicable",
      p->name, experiment);
  cJSON_Delete(env);
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
    if (lab_experiment_applies(lab_experiment_find("transfer"), p))
      for (int h = 0; lab_host_link_choices[h]; h++) transfer_physics(p, lab_host_link_choices[h]);
    else
      refused_physics(p, "transfer");
    if (lab_experiment_applies(lab_experiment_find("graphs"), p)) memory_physics(p);
    else refused_physics(p, "graphs");
    timing_physics(p);
  }
  printf("1..%d\n# pass %d\n# fail %d\n# todo %d\n", tap_n, tap_n - tap_failed - tap_todo, tap_failed, tap_todo);
  for (int i = 0; i < n_cache; i++) cJSON_Delete(cache[i].env);
  cJSON_Delete(doc);
  return tap_failed ? 1 : 0;
}
