/* The profile list (built-ins from lab/sim/profiles_data.c plus the
 * calibrated profiles: a server's, a learner's own GPU's), lookup, the sources of each figure, and JSON in and out. */
#include "profiles.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "platform.h"
#include "profiles_data.h"
#include "profiles_refs.h"
#include "text.h"

const char *const lab_src_kind_names[LAB_SRC_KINDS] = {"datasheet", "measured", "derived", "estimate",
                                                             "not applicable"};

static lab_profile calibrated[LAB_PROFILE_CALIBRATED_MAX];
static int n_calibrated;

void lab_profile_set_calibrated(const lab_profile *p) {
  int i = 0;
  while (i < n_calibrated && strcmp(calibrated[i].name, p->name) != 0) i++;
  if (i == LAB_PROFILE_CALIBRATED_MAX) i--; /* full: the newest replaces the last */
  calibrated[i] = *p;
  if (i == n_calibrated) n_calibrated++;
}

void lab_profile_clear_calibrated(void) { n_calibrated = 0; }

int lab_profile_count(void) { return lab_builtin_profile_count + n_calibrated; }

const lab_profile *lab_profile_at(int i) {
  if (i >= 0 && i < lab_builtin_profile_count) return &lab_builtin_profiles[i];
  i -= lab_builtin_profile_count;
  return i >= 0 && i < n_calibrated ? &calibrated[i] : NULL;
}

int lab_profile_builtin(const lab_profile *p) {
  for (int i = 0; p && i < lab_builtin_profile_count; i++)
    if (p == &lab_builtin_profiles[i]) return 1;
  return 0;
}

const lab_profile *lab_profile_find(const char *name) {
  for (int i = 0; name && i < lab_profile_count(); i++)
    if (strcmp(lab_profile_at(i)->name, name) == 0) return lab_profile_at(i);
  return NULL;
}

/* The free GPU a beginner is most likely to have (Colab's and Kaggle's T4):
 * the server's, the CLI's and the page's default alike. */
const lab_profile *lab_profile_default(void) { return lab_profile_find("t4"); }

int lab_profile_ref_count(void) { return lab_profile_ref_total; }

const lab_ref *lab_profile_ref_at(int i) { return i >= 0 && i < lab_profile_ref_total ? &lab_profile_refs[i] : NULL; }

const lab_ref *lab_profile_ref(const char *id) {
  for (int i = 0; id && i < lab_profile_ref_total; i++)
    if (strcmp(lab_profile_refs[i].id, id) == 0) return &lab_profile_refs[i];
  return NULL;
}

const lab_src *lab_profile_src(const lab_profile *p, const char *field) {
  for (int i = 0; p->src && i < p->n_src; i++)
    if (strcmp(p->src[i].field, field) == 0) return &p->src[i];
  return NULL;
}

/* field appears as a whole item of the comma-separated list. */
static int listed(const char *list, const char *field) {
  size_t n = strlen(field);
  for (const char *s = list; s && *s;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == n && strncmp(s, field, n) == 0) return 1;
    s = e ? e + 1 : NULL;
  }
  return 0;
}

static const char *const all_fields[] = {
#define LAB_X_NAME(f) #f,
    LAB_PROFILE_INTS(LAB_X_NAME) LAB_PROFILE_POSITIVE(LAB_X_NAME) LAB_PROFILE_OPTIONAL(LAB_X_NAME)
#undef LAB_X_NAME
    "compute_capability", "driver_cuda_version", "driver_version",
};
#define N_FIELDS ((int)(sizeof all_fields / sizeof all_fields[0]))

int lab_profile_check_sources(const lab_profile *p, char *why, size_t n) {
  for (int i = 0; i < N_FIELDS; i++) {
    const lab_src *s = lab_profile_src(p, all_fields[i]);
    if (!s) return snprintf(why, n, "%s: no source for %s", p->name, all_fields[i]), -1;
    if (s->kind != LAB_SRC_ESTIMATE && s->kind != LAB_SRC_ABSENT && !lab_profile_ref(s->ref))
      return snprintf(why, n, "%s: %s cites unknown reference '%s'", p->name, all_fields[i], s->ref ? s->ref : ""), -1;
    if (!s->note || !s->note[0]) return snprintf(why, n, "%s: %s has no note", p->name, all_fields[i]), -1;
  }
  for (int i = 0; i < p->n_src; i++) {
    int known = 0;
    for (int k = 0; k < N_FIELDS && !known; k++) known = strcmp(p->src[i].field, all_fields[k]) == 0;
    if (!known) return snprintf(why, n, "%s: source for unknown field %s", p->name, p->src[i].field), -1;
    for (int k = 0; k < i; k++)
      if (strcmp(p->src[i].field, p->src[k].field) == 0)
        return snprintf(why, n, "%s: two sources for %s", p->name, p->src[i].field), -1;
  }
  return 0;
}

void lab_profile_estimates(const lab_profile *p, char *buf, size_t n) {
  lab_text t; /* every simulation's method names them: appended, not printed */
  lab_text_init(&t, buf, n);
  for (int i = 0; i < N_FIELDS && !t.cut; i++) {
    const lab_src *s = lab_profile_src(p, all_fields[i]);
    if (!s || s->kind != LAB_SRC_ESTIMATE || listed(p->calibrated_fields, all_fields[i])) continue;
    if (t.len) lab_text_add(&t, ", ");
    lab_text_add(&t, all_fields[i]);
  }
}

/* {"kind":…, "ref":…, "url":…, "what":…, "note":…} for one figure. */
static cJSON *source_json(const lab_profile *p, const char *field) {
  cJSON *o = cJSON_CreateObject();
  if (listed(p->calibrated_fields, field)) {
    cJSON_AddStringToObject(o, "kind", "calibrated");
    cJSON_AddStringToObject(o, "note", "fitted by gpulab calibrate to real runs on this GPU");
    return o;
  }
  const lab_src *s = lab_profile_src(p, field);
  if (!s) {
    cJSON_AddStringToObject(o, "kind", "profile file");
    cJSON_AddStringToObject(o, "note", "read from a profile file; its origin is not recorded");
    return o;
  }
  cJSON_AddStringToObject(o, "kind", lab_src_kind_names[s->kind]);
  const lab_ref *r = lab_profile_ref(s->ref);
  if (r) {
    cJSON_AddStringToObject(o, "ref", r->id);
    cJSON_AddStringToObject(o, "url", r->url);
    cJSON_AddStringToObject(o, "what", r->what);
  }
  cJSON_AddStringToObject(o, "note", s->note);
  return o;
}

cJSON *lab_profile_json(const lab_profile *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", p->name);
  cJSON_AddStringToObject(o, "label", p->label);
  cJSON_AddStringToObject(o, "device_name", p->device_name);
  cJSON_AddStringToObject(o, "source", p->source);
  cJSON_AddStringToObject(o, "platform", lab_platform_name(p->platform));
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
  if (p->cc_major || p->cc_minor) cJSON_AddStringToObject(o, "compute_capability", cc);
  else cJSON_AddNullToObject(o, "compute_capability"); /* an Apple GPU has none */
#define LAB_X_OUT(f) cJSON_AddNumberToObject(o, #f, (double)p->f);
  LAB_PROFILE_INTS(LAB_X_OUT)
  LAB_PROFILE_POSITIVE(LAB_X_OUT)
  LAB_PROFILE_OPTIONAL(LAB_X_OUT)
#undef LAB_X_OUT
  cJSON_AddNumberToObject(o, "driver_cuda_version", p->driver_cuda_version);
  cJSON_AddStringToObject(o, "driver_version", p->driver_version);
  cJSON *src = cJSON_AddObjectToObject(o, "sources");
  for (int i = 0; i < N_FIELDS; i++) cJSON_AddItemToObject(src, all_fields[i], source_json(p, all_fields[i]));
  char est[512];
  lab_profile_estimates(p, est, sizeof est);
  cJSON_AddStringToObject(o, "estimates", est);
  if (p->calibrated_fields[0]) cJSON_AddStringToObject(o, "calibrated_fields", p->calibrated_fields);
  return o;
}

static int num(const cJSON *json, const char *key, double *out, int positive, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 || (positive && v->valuedouble <= 0))
    return lab_fail(err, LAB_E_INVALID_PARAM, key, "profile field '%s' must be a %s number", key,
                    positive ? "positive" : "non-negative");
  *out = v->valuedouble;
  return 0;
}

static int str(const cJSON *json, const char *key, char *out, size_t n, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
  if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= n)
    return lab_fail(err, LAB_E_INVALID_PARAM, key, "profile field '%s' must be a string of 1 to %zu characters", key,
                    n - 1);
  snprintf(out, n, "%s", v->valuestring);
  return 0;
}

/* The figures a profile file must carry (what calibrate has always
 * written); the others fall back to the nearest built-in profile's. */
static const char *const required[] = {"mem_bw_gbps", "h2d_pinned_gbps", "d2h_pinned_gbps", "h2d_pageable_gbps",
                                       "d2h_pageable_gbps", "copy_latency_us", "launch_us", "kernel_min_us",
                                       "sync_us", "fp32_tflops", "gemm_efficiency", "pin_gbps", "cold_start_ms"};

static int is_required(const char *field) {
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    if (strcmp(required[i], field) == 0) return 1;
  return 0;
}

/* The built-in profile a file's figures start from: same platform and
 * compute capability, else (none given) the platform's first, else the default. */
static const lab_profile *nearest(lab_platform platform, int cc_major, int cc_minor) {
  int none = !cc_major && !cc_minor;
  for (int i = 0; i < lab_builtin_profile_count; i++) {
    const lab_profile *b = &lab_builtin_profiles[i];
    if (b->platform == platform && (none || (b->cc_major == cc_major && b->cc_minor == cc_minor))) return b;
  }
  return lab_profile_default();
}

/* One double figure: required ones must be there; others keep the base's
 * when absent. */
static int read_figure(const cJSON *json, const char *key, double *out, int positive, lab_error *err) {
  if (!cJSON_GetObjectItemCaseSensitive(json, key) && !is_required(key)) return 0;
  return num(json, key, out, positive, err);
}

int lab_profile_from_json(const cJSON *json, lab_profile *out, lab_error *err) {
  if (!cJSON_IsObject(json)) return lab_fail(err, LAB_E_INVALID_PARAM, "profile", "a profile must be a JSON object");
  int ccj = 0, ccn = 0;
  const cJSON *cc = cJSON_GetObjectItemCaseSensitive(json, "compute_capability");
  if (cJSON_IsString(cc) && sscanf(cc->valuestring, "%d.%d", &ccj, &ccn) != 2)
    return lab_fail(err, LAB_E_INVALID_PARAM, "compute_capability", "compute_capability must look like \"9.0\"");
  const cJSON *pf = cJSON_GetObjectItemCaseSensitive(json, "platform");
  int platform = pf ? lab_platform_from_name(cJSON_GetStringValue(pf)) : LAB_PLATFORM_CUDA;
  if (platform < 0)
    return lab_fail(err, LAB_E_INVALID_PARAM, "platform", "platform must be \"cuda\", \"rocm\" or \"mps\"");
  lab_profile p = *nearest((lab_platform)platform, ccj, ccn);
  p.platform = (lab_platform)platform;
  p.cc_major = ccj;
  p.cc_minor = ccn;
  p.src = NULL; /* a file's figures have no recorded sources */
  p.n_src = 0;
  const cJSON *cf = cJSON_GetObjectItemCaseSensitive(json, "calibrated_fields");
  snprintf(p.calibrated_fields, sizeof p.calibrated_fields, "%s", cJSON_IsString(cf) ? cf->valuestring : "");
  double sm = 0, mem = 0, ctx = 0, drv = 0;
  if (str(json, "name", p.name, sizeof p.name, err) || str(json, "label", p.label, sizeof p.label, err) ||
      str(json, "device_name", p.device_name, sizeof p.device_name, err) ||
      num(json, "sm_count", &sm, 1, err) || num(json, "memory_bytes", &mem, 1, err) ||
      num(json, "context_bytes", &ctx, 0, err))
    return -1;
#define LAB_X_POS(f) \
  if (read_figure(json, #f, &p.f, 1, err)) return -1;
#define LAB_X_OPT(f) \
  if (read_figure(json, #f, &p.f, 0, err)) return -1;
  LAB_PROFILE_POSITIVE(LAB_X_POS)
  LAB_PROFILE_OPTIONAL(LAB_X_OPT)
#undef LAB_X_POS
#undef LAB_X_OPT
  double v;
  if (!num(json, "pcie_gen", &v, 1, NULL) && v <= 6) p.pcie_gen = (int)v;
  if (!num(json, "pcie_lanes", &v, 1, NULL) && v <= 16) p.pcie_lanes = (int)v;
  if (!num(json, "tc_tile_m", &v, 1, NULL) && v <= 512) p.tc_tile_m = (int)v;
  if (!num(json, "tc_tile_n", &v, 1, NULL) && v <= 512) p.tc_tile_n = (int)v;
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(json, "source");
  snprintf(p.source, sizeof p.source, "%s", cJSON_IsString(src) ? src->valuestring : "calibrated");
  const cJSON *dv = cJSON_GetObjectItemCaseSensitive(json, "driver_version");
  snprintf(p.driver_version, sizeof p.driver_version, "%s", cJSON_IsString(dv) ? dv->valuestring : "");
  if (!num(json, "driver_cuda_version", &drv, 0, NULL)) p.driver_cuda_version = (int)drv;
  if (sm > 100000 || mem > 1e15) return lab_fail(err, LAB_E_INVALID_PARAM, "profile", "profile figures are out of range");
  /* Optional only where the platform has no use for them (platform.h). */
  unsigned lacks = lab_platform_lacks(p.platform);
  if (!(p.pin_gbps > 0) && !(lacks & LAB_NEED_HOST_LINK))
    return lab_fail(err, LAB_E_INVALID_PARAM, "pin_gbps", "profile field 'pin_gbps' must be a positive number on a "
                    "GPU with a host link");
  if (!(p.graph_node_us > 0) && !(lacks & LAB_NEED_GRAPHS))
    return lab_fail(err, LAB_E_INVALID_PARAM, "graph_node_us", "profile field 'graph_node_us' must be a positive "
                    "number on a GPU with graphs");
  p.sm_count = (int)sm;
  p.memory_bytes = (uint64_t)mem;
  p.context_bytes = (uint64_t)ctx;
  *out = p;
  return 0;
}

cJSON *lab_profiles_json(void) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < lab_profile_count(); i++) cJSON_AddItemToArray(arr, lab_profile_json(lab_profile_at(i)));
  return arr;
}
