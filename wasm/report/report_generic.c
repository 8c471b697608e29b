/* The lab report of every lesson that has no sections of its own (all but
 * lesson 1): after the device check, one section per experiment the lesson
 * runs (for lesson 2: streams, graphs, precision, the allocator, …), in the
 * lesson's order, from the learner's last run of each: where it ran, the
 * parameters, every metric with its unit, how it was measured, the findings.
 * Metrics are read generically (unit from the key's suffix), so a section
 * shows whatever the experiment measured and never a number of ours. */
#include <stdio.h>
#include <string.h>

#include "chart_axis.h"
#include "json_get.h"
#include "registry.h"
#include "report_generic.h"
#include "report_parts.h"

#define MAX_EXPERIMENTS 16

/* Experiment names are a-z, 0-9 and '_' (the registry's); anything else
 * in a bundle from the network is skipped, so it can be printed as is. */
static bool name_ok(const char *s) {
  if (!*s || strlen(s) > 40) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
  return true;
}

/* The lesson's experiments in order of first appearance, without the
 * device check's (it has its own section). Returns how many. */
static int lesson_experiments(const cJSON *lesson, const char *names[MAX_EXPERIMENTS]) {
  const cJSON *s, *e;
  int n = 0;
  cJSON_ArrayForEach(s, ui_json_arr(lesson, "sections")) {
    cJSON_ArrayForEach(e, ui_json_arr(s, "experiments")) {
      if (!cJSON_IsString(e) || !name_ok(e->valuestring) || lab_experiment_is_device_check(lab_experiment_find(e->valuestring)) ||
          n == MAX_EXPERIMENTS)
        continue;
      int seen = 0;
      for (int i = 0; i < n && !seen; i++) seen = strcmp(names[i], e->valuestring) == 0;
      if (!seen) names[n++] = e->valuestring;
    }
  }
  return n;
}

/* The learner's last run of `name`, if it is an envelope of that experiment. */
static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Units by key suffix, as the envelopes name their fields. */
static const struct {
  const char *suffix, *fmt;
} units[] = {
    {"_ms", "%.3f ms"},     {"_us", "%.2f µs"},    {"_ns", "%.0f ns"},       {"_pct", "%.1f %%"},
    {"_gbps", "%.2f GB/s"}, {"_gb_s", "%.2f GB/s"}, {"_tflops", "%.2f TFLOPS"}, {"_gflops", "%.1f GFLOPS"},
    {"tflops", "%.2f TFLOPS"},  {"gbps", "%.2f GB/s"},
};

/* Words of metric keys a reader should not have to decode. */
static const struct {
  const char *key, *say;
} words[] = {
    {"frag", "fragmentation test:"}, {"h2d", "host→device"}, {"d2h", "device→host"}, {"d2d", "device→device"},
    {"iqr", "spread (IQR)"},         {"step1", "step 1"},     {"gpu", "GPU"},        {"cpu", "CPU"},
    {"tf32", "TF32"},                {"bf16", "BF16"},        {"fp32", "FP32"},      {"fp16", "FP16"},
    {"nvtx", "NVTX"},                {"abs", "absolute"},     {"err", "error"},      {"max", "largest"},
    {"min", "smallest"},             {"n", "N"},              {"sm", "SM"},
};

/* "one_stream_ms" → "one stream", "cuda_malloc_us" → "cudaMalloc",
 * "frag_block_bytes" → "fragmentation test: block" (the unit goes to the
 * value, the words become plain English). */
static void label(ui_buf *b, const char *key) {
  char text[64], out[160] = "";
  snprintf(text, sizeof text, "%s", key);
  if (ends_with(text, "_bytes")) text[strlen(text) - 6] = '\0';
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (ends_with(text, units[i].suffix)) text[strlen(text) - strlen(units[i].suffix)] = '\0';
  /* words split at '_' by hand: strtok_r is not in strict C11 (emcc) */
  const char *w[16];
  int nw = 0;
  for (char *c = text; *c && nw < 16;) {
    w[nw++] = c;
    while (*c && *c != '_') c++;
    if (*c) *c++ = '\0';
  }
  for (int i = 0; i < nw; i++) {
    const char *say = w[i];
    if (!strcmp(w[i], "cuda") && i + 1 < nw && (!strcmp(w[i + 1], "malloc") || !strcmp(w[i + 1], "free")))
      say = !strcmp(w[++i], "malloc") ? "cudaMalloc" : "cudaFree";
    for (size_t k = 0; say == w[i] && k < sizeof words / sizeof words[0]; k++)
      if (!strcmp(w[i], words[k].key)) say = words[k].say;
    size_t at = strlen(out);
    snprintf(out + at, sizeof out - at, "%s%s", at ? " " : "", say);
  }
  ui_report_md(b, out[0] ? out : key);
}

static void value(ui_buf *b, const cJSON *item) {
  char buf[32];
  if (cJSON_IsBool(item)) {
    ui_buf_raw(b, cJSON_IsTrue(item) ? "yes" : "no");
  } else if (cJSON_IsString(item)) {
    ui_report_md(b, item->valuestring);
  } else if (cJSON_IsNumber(item)) {
    double v = item->valuedouble;
    if (ends_with(item->string, "_bytes")) {
      ui_buf_raw(b, ui_fmt_value(v, UI_UNIT_BYTES, buf)); /* memory is binary: KiB, MiB, GiB */
      return;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (ends_with(item->string, units[i].suffix)) {
        ui_buf_rawf(b, units[i].fmt, v);
        return;
      }
    ui_buf_raw(b, ui_fmt_value(v, UI_UNIT_PLAIN, buf)); /* never an exponent ("7.7e+02") */
  } else {
    ui_buf_raw(b, "(see the chart)");
  }
}

static void params_line(ui_buf *b, const cJSON *params) {
  const cJSON *p;
  int n = 0;
  if (cJSON_GetArraySize((cJSON *)params) == 0) return;
  ui_buf_raw(b, "Settings: ");
  cJSON_ArrayForEach(p, params) {
    if (!p->string || cJSON_IsObject(p) || cJSON_IsArray(p)) continue;
    ui_buf_raw(b, n++ ? ", " : "");
    ui_report_md(b, p->string);
    ui_buf_raw(b, " = ");
    value(b, p);
  }
  ui_buf_raw(b, ".\n\n");
}

static void metrics_table(ui_buf *b, const cJSON *metrics) {
  const cJSON *m;
  ui_buf_raw(b, "| Measured | Value |\n|---|---|\n");
  cJSON_ArrayForEach(m, metrics) {
    if (!m->string || cJSON_IsObject(m) || cJSON_IsArray(m) || cJSON_IsNull(m)) continue;
    ui_buf_raw(b, "| ");
    label(b, m->string);
    ui_buf_raw(b, " | ");
    value(b, m);
    ui_buf_raw(b, " |\n");
  }
  ui_buf_raw(b, "\n");
}

static void experiment_section(ui_buf *b, const ui_report_input *in, const char *name, int number) {
  const cJSON *env = ui_report_run(in, name), *st = ui_json_obj(env, "stats");
  const char *where = ui_report_section_for(in->lesson, name);
  char src[200];
  double v;
  ui_buf_rawf(b, "## %d. ", number);
  ui_report_md(b, where ? where : name);
  ui_buf_rawf(b, " (`%s`)\n\n", name);
  if (!env) {
    ui_buf_raw(b, "_Not run yet._ ");
    ui_report_run_hint(b, in->lesson, name);
    return;
  }
  ui_buf_raw(b, "Source: **");
  ui_report_md(b, ui_report_source(env, src, sizeof src));
  ui_buf_raw(b, "**");
  ui_report_real_series(b, env);
  ui_buf_rawf(b, " — your last %s run.\n\n", name);
  params_line(b, ui_json_obj(env, "params"));
  metrics_table(b, ui_json_obj(env, "metrics"));
  if (ui_json_num(st, "samples", &v)) {
    ui_buf_rawf(b, "Median of %.0f samples", v);
    if (ui_json_num(st, "warmup", &v)) ui_buf_rawf(b, " after %.0f warm-up runs", v);
    if (ui_json_num(st, "iqr_pct", &v)) ui_buf_rawf(b, ", spread (IQR) %.2f %%", v);
    ui_buf_raw(b, ".\n\n");
  }
  if (ui_json_str(st, "method")) {
    ui_buf_raw(b, "How it was measured: ");
    ui_report_md(b, ui_json_str(st, "method"));
    ui_buf_raw(b, "\n\n");
  }
  ui_report_findings(b, env);
}

void ui_report_generic_body(ui_buf *b, const ui_report_input *in) {
  const char *names[MAX_EXPERIMENTS];
  int n = lesson_experiments(in->lesson, names);
  char src[200];
  ui_report_device_section(b, in->device);
  for (int i = 0; i < n; i++) experiment_section(b, in, names[i], i + 2);
  ui_report_quiz_section(b, in->progress, n + 2);
  const cJSON *envs[MAX_EXPERIMENTS];
  ui_report_sources_start(b, in->device);
  for (int i = 0; i < n; i++) {
    const cJSON *env = envs[i] = ui_report_run(in, names[i]);
    ui_buf_rawf(b, "| %s | ", names[i]);
    if (env) {
      ui_report_md(b, ui_report_source(env, src, sizeof src));
      ui_report_real_series(b, env);
    } else ui_buf_raw(b, "not run yet");
    ui_buf_raw(b, " |\n");
  }
  ui_report_sources_end(b, in->progress);
  ui_report_mixed_note(b, envs, n);
}
