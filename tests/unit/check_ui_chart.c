/* The SVG charts and result renderers: axis arithmetic (nice and log ticks),
 * well-formed and escaped SVG, every experiment's result drawn from a real
 * simulated envelope of every profile, and tables holding every point. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossover.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "chart.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))
#define ck_lacks(hay, needle) ck_assert_msg(strstr((hay), (needle)) == NULL, "unexpected \"%s\"", (needle))

START_TEST(nice_step_is_one_two_or_five_times_a_power_of_ten) {
  ck_assert_double_eq_tol(ui_nice_step(10, 6), 2, 1e-12);
  ck_assert_double_eq_tol(ui_nice_step(1, 5), 0.5, 1e-12);
  ck_assert_double_eq_tol(ui_nice_step(700, 8), 100, 1e-9);
  ck_assert_double_eq_tol(ui_nice_step(0.03, 4), 0.01, 1e-12);
}
END_TEST

START_TEST(linear_axis_covers_the_data_with_round_ticks) {
  ui_axis a;
  ck_assert(ui_axis_fit(&a, UI_SCALE_LINEAR, 0.3, 9.7, 6, true));
  ck_assert_double_eq(a.lo, 0);
  ck_assert_double_eq(a.hi, 10);
  ck_assert_int_eq(a.n, 6);
  for (int i = 0; i < a.n; i++) ck_assert_double_eq_tol(a.tick[i], 2.0 * i, 1e-9);
  ck_assert_double_eq_tol(ui_axis_frac(&a, 5), 0.5, 1e-12);
  /* one value still gets a range */
  ck_assert(ui_axis_fit(&a, UI_SCALE_LINEAR, 3, 3, 5, false));
  ck_assert(a.lo < 3 && a.hi > 3);
}
END_TEST

START_TEST(log2_axis_for_copy_sizes_ticks_at_powers_of_sixteen) {
  ui_axis a;
  char t[32];
  static const char *const want[] = {"4 KiB", "64 KiB", "1 MiB", "16 MiB", "256 MiB"};
  ck_assert(ui_axis_fit(&a, UI_SCALE_LOG2, 4096, 268435456, 7, false));
  ck_assert_int_eq(a.n, 5);
  for (int i = 0; i < 5; i++) ck_assert_str_eq(ui_fmt_tick(a.tick[i], UI_UNIT_BYTES, t), want[i]);
  ck_assert_double_eq_tol(ui_axis_frac(&a, 1048576), 0.5, 1e-12);
}
END_TEST

/* multi_gpu's memory axis read "8000M" (8e9 bytes as a plain number): a
 * linear axis of bytes is round in the unit it prints, and a plain figure
 * keeps to three digits. */
START_TEST(linear_bytes_axis_prints_binary_units_not_8000M) {
  ui_axis a;
  char t[32];
  static const char *const want[] = {"0", "2 GiB", "4 GiB", "6 GiB", "8 GiB"};
  ck_assert(ui_axis_fit_bytes(&a, 1.3e9, 8e9, 6, true));
  ck_assert_int_eq(a.n, 5);
  for (int i = 0; i < 5; i++) ck_assert_str_eq(ui_fmt_tick(a.tick[i], UI_UNIT_BYTES, t), want[i]);
  ck_assert_double_eq_tol(ui_axis_frac(&a, 4.0 * 1073741824), 0.5, 1e-12);
  ck_assert(ui_axis_fit_bytes(&a, 0, 300e6, 6, true)); /* below a GiB: MiB ticks */
  ck_assert_str_eq(ui_fmt_tick(a.tick[1], UI_UNIT_BYTES, t), "100 MiB");
  ck_assert_str_eq(ui_fmt_tick(a.tick[a.n - 1], UI_UNIT_BYTES, t), "300 MiB");
  ck_assert_str_eq(ui_fmt_tick(8e9, UI_UNIT_PLAIN, t), "8G");
  ck_assert_str_eq(ui_fmt_tick(2.5e6, UI_UNIT_PLAIN, t), "2.5M");
}
END_TEST

START_TEST(log10_axis_spans_whole_decades_and_labels_time_units) {
  ui_axis a;
  char t[32];
  ck_assert(ui_axis_fit(&a, UI_SCALE_LOG10, 0.0016, 36.8, 8, false));
  ck_assert_double_eq_tol(a.lo, 0.001, 1e-15);
  ck_assert_double_eq_tol(a.hi, 100, 1e-9);
  ck_assert_int_eq(a.n, 6);
  ck_assert_str_eq(ui_fmt_tick(a.tick[0], UI_UNIT_MS, t), "1 µs");
  ck_assert_str_eq(ui_fmt_tick(a.tick[3], UI_UNIT_MS, t), "1 ms");
  ck_assert_str_eq(ui_fmt_tick(1500, UI_UNIT_MS, t), "1.5 s");
  ck_assert_str_eq(ui_fmt_tick(2500, UI_UNIT_US, t), "2.5 ms");
  /* many decades: every other one, still within the target */
  ck_assert(ui_axis_fit(&a, UI_SCALE_LOG10, 1e-6, 1e6, 7, false));
  ck_assert_int_le(a.n, 7);
}
END_TEST

START_TEST(log_axis_ignores_values_it_cannot_draw) {
  ui_axis a;
  ck_assert(!ui_axis_fit(&a, UI_SCALE_LOG10, -5, 0, 6, false));
  ck_assert(!ui_axis_fit(&a, UI_SCALE_LINEAR, NAN, 1, 6, false));
  ck_assert(ui_axis_fit(&a, UI_SCALE_LOG10, 1, 1000, 6, false));
  ck_assert(isnan(ui_axis_frac(&a, 0)));
  ck_assert(isnan(ui_axis_frac(&a, -1)));
  ck_assert(isnan(ui_axis_frac(&a, INFINITY)));
}
END_TEST

START_TEST(svg_is_well_formed_and_escapes_data) {
  double x[] = {1, 2, 4}, y[] = {3, NAN, 5};
  ui_series_xy s = {"<script>alert(1)</script> & \"quotes\"", 3, x, y};
  ui_mark m = {2, "<b>mark</b>"};
  ui_line_chart c = {.summary = "a <summary> & more", .x_title = "x <unit>", .y_title = "y & z",
                     .x_scale = UI_SCALE_LOG2, .y_scale = UI_SCALE_LINEAR, .series = &s, .n_series = 1, .marks = &m,
                     .n_marks = 1};
  ui_bar bars[2] = {{"<i>a</i>", 1}, {"b", 0.001}};
  ui_bar_chart bc = {.summary = "<bars>", .value_title = "ms", .unit = UI_UNIT_MS, .bars = bars, .n = 2};
  ui_span spans[2] = {{"cpu", "<launch>", 0, 5, false}, {"GPU 0, stream 0", "k&r", 5, 100, true}};
  ui_timeline_chart tc = {.summary = "t", .spans = spans, .n = 2, .marks = &m, .n_marks = 1};
  const char *cats[] = {"<1>", "2", "4"};
  ui_column_chart cc = {.summary = "s", .x_title = "<batch>", .y_title = "GB", .categories = cats, .n_cat = 3,
                        .parts = &s, .n_parts = 1, .limits = &m, .n_limits = 1, .highlight = 1,
                        .highlight_label = "<you>"};
  const char *labels[] = {s.label};
  ui_buf b;
  ui_buf_init(&b);
  ui_chart_lines(&b, &c);
  ui_chart_bars(&b, &bc);
  ui_chart_timeline(&b, &tc);
  ui_chart_columns(&b, &cc);
  ui_chart_legend(&b, labels, 1);
  ui_table_xy(&b, "<cap>", "x", UI_UNIT_PLAIN, UI_UNIT_PLAIN, &s, 1);
  ui_table_bars(&b, "<cap>", "v", UI_UNIT_MS, bars, 2);
  ui_table_spans(&b, "<cap>", spans, 2);
  const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
  ck_assert_msg(why == NULL, "not well formed: %s", why);
  ck_assert_ptr_null(strstr(out, "<script"));
  ck_assert_ptr_null(strstr(out, "<b>"));
  ck_assert_ptr_null(strstr(out, "<launch"));
  ck_assert_ptr_null(strstr(out, "<you"));
  ck_has(out, "&lt;script&gt;");
  ck_has(out, "role=\"img\" aria-label=\"a &lt;summary&gt; &amp; more\"");
  ck_has(out, "<title>a &lt;summary&gt; &amp; more</title>");
  /* the NaN point splits the line instead of drawing nonsense */
  ck_assert_ptr_null(strstr(out, "nan"));
  ui_buf_free(&b);
}
END_TEST

/* Where an axis ends is what a reader looks for: crossover's sweep to 1024
 * shows "1024" (it dropped it for "512" before), a timeline its last tick. */
START_TEST(last_x_tick_is_always_labelled) {
  double x[] = {16, 32, 64, 128, 256, 512, 1024}, y[] = {1, 2, 3, 4, 5, 6, 7};
  ui_series_xy s = {"t", 7, x, y};
  ui_line_chart c = {.summary = "s", .x_scale = UI_SCALE_LOG2, .y_scale = UI_SCALE_LINEAR, .series = &s,
                     .n_series = 1};
  ui_buf b;
  ui_buf_init(&b);
  ui_chart_lines(&b, &c);
  ck_has(ui_buf_str(&b), ">1024</text>");
  ck_has(ui_buf_str(&b), ">16</text>");
  ui_buf_free(&b);
  ui_span spans[2] = {{"cpu", "a", 0, 5900, false}, {"GPU 0, stream 0", "b", 10, 5950, false}};
  ui_timeline_chart tc = {.summary = "t", .spans = spans, .n = 2};
  ui_buf_init(&b);
  ui_chart_timeline(&b, &tc);
  ck_has(ui_buf_str(&b), ">6 ms</text>");
  ck_has(ui_buf_str(&b), ">0</text>"); /* zero needs no unit */
  ui_buf_free(&b);
}
END_TEST

/* An all-zero series (FP32 flushes no gradient to zero) is drawn on 0..1,
 * not on a -1..1 axis that suggests values below zero. */
START_TEST(all_zero_series_gets_an_axis_from_zero) {
  ui_axis a;
  ck_assert(ui_axis_fit(&a, UI_SCALE_LINEAR, 0, 0, 6, false));
  ck_assert_double_eq(a.lo, 0);
  ck_assert_double_eq(a.hi, 1);
}
END_TEST

/* Small sizes keep the real CPU part of crossover quick. */
static cJSON *simulate(const char *name, const char *profile) {
  cJSON *params = strcmp(name, "crossover") == 0 ? cJSON_Parse("{\"max_size\":64,\"samples\":1}") : NULL;
  cJSON *env = NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  int rc = lab_simulate(lab_experiment_find(name), params, profile, &env, &err);
  cJSON_Delete(params);
  ck_assert_msg(rc == 0, "%s on %s: %s", name, profile, err.message);
  return env;
}

/* A figure in exponent notation ("7.7e+02", "2.4e-07"), which a learner
 * should never read; NULL when there is none. */
static const char *exponent_in(const char *s) {
  for (const char *p = s; *p; p++)
    if (p > s && isdigit((unsigned char)p[-1]) && (*p == 'e' || *p == 'E') && (p[1] == '+' || p[1] == '-') &&
        isdigit((unsigned char)p[2]))
      return p - 1;
  return NULL;
}

/* Every tick of multi_gpu's charts, on every profile that has a second
 * GPU: bytes in binary units, never a plain figure of more than three
 * digits before its suffix ("8000M"). */
START_TEST(multi_gpu_memory_axis_says_its_unit) {
  int drawn = 0;
  for (int p = 0; p < lab_profile_count(); p++) {
    if (!lab_experiment_applies(lab_experiment_find("multi_gpu"), lab_profile_at(p))) continue;
    cJSON *env = simulate("multi_gpu", lab_profile_at(p)->name);
    ui_buf b;
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *html = ui_buf_str(&b), *svg = strstr(html, "GPU 0&#39;s memory");
    ck_assert_msg(svg != NULL, "%s: the memory chart", lab_profile_at(p)->name);
    ck_assert_msg(strstr(svg, "GiB</text>") || strstr(svg, "MiB</text>"), "%s: the memory axis names its unit",
                  lab_profile_at(p)->name);
    for (const char *q = strstr(html, "class=\"tick\""); q; q = strstr(q + 1, "class=\"tick\"")) {
      const char *txt = strchr(q, '>') + 1;
      int digits = 0;
      while (isdigit((unsigned char)txt[digits])) digits++;
      ck_assert_msg(digits <= 3 || txt[digits] == '<', "%s: tick \"%.12s\" has more than three figures before its unit",
                    lab_profile_at(p)->name, txt);
    }
    ck_assert_ptr_null(exponent_in(html));
    drawn++;
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
  ck_assert_int_gt(drawn, 3);
}
END_TEST

START_TEST(every_experiment_renders_from_every_profile) {
  for (int p = 0; p < lab_profile_count(); p++) {
    const char *profile = lab_profile_at(p)->name;
    for (int i = 0; i < lab_experiment_count(); i++) {
      const char *name = lab_experiment_at(i)->name;
      if (!lab_experiment_applies(lab_experiment_at(i), lab_profile_at(p))) continue; /* it answers not_applicable */
      cJSON *env = simulate(name, profile), *f;
      ui_buf b;
      ui_buf_init(&b);
      ui_render_result(&b, env, true, NULL);
      const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
      ck_assert_msg(!b.failed, "%s/%s: out of memory", name, profile);
      ck_assert_msg(why == NULL, "%s/%s: %s", name, profile, why);
      ck_has(out, "simulated — profile ");
      ck_has(out, "(in your browser)");
      ck_has(out, "How it was measured:");
      /* the method (field names and all) is folded away from the learner's first read */
      ck_has(out, "<details class=\"exp-method\"><summary>How it was measured:");
      const char *e = exponent_in(out);
      ck_assert_msg(e == NULL, "%s/%s: a figure in exponent notation: %.40s", name, profile, e ? e : "");
      if (strcmp(name, "device") == 0) {
        ck_has(out, "verdict");
      } else {
        ck_has(out, "role=\"img\"");
        ck_has(out, "Show the numbers");
        ck_has(out, "<table");
        /* every finding is listed (escaped like the renderer escapes it) */
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(env, "findings")) {
          ui_buf esc;
          ui_buf_init(&esc);
          ui_buf_text(&esc, f->valuestring);
          ck_has(out, ui_buf_str(&esc));
          ui_buf_free(&esc);
        }
      }
      ui_buf_free(&b);
      cJSON_Delete(env);
    }
  }
}
END_TEST

/* The spread of a noisy real CPU line (crossover's was 770 %) reads as a
 * number, not "7.7e+02 %"; a tiny value has no exponent either. */
START_TEST(figures_for_people_have_no_exponent) {
  cJSON *env = simulate("timing", "t4");
  cJSON *st = cJSON_GetObjectItemCaseSensitive(env, "stats");
  cJSON_DeleteItemFromObjectCaseSensitive(st, "iqr_pct");
  cJSON_AddNumberToObject(st, "iqr_pct", 770.4);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "spread (IQR) 770 % of the median");
  ck_assert_ptr_null(exponent_in(ui_buf_str(&b)));
  ui_buf_free(&b);
  cJSON_Delete(env);
  char t[32];
  ck_assert_str_eq(ui_fmt_value(2.4e-7, UI_UNIT_PLAIN, t), "0.00000024");
  ck_assert_str_eq(ui_fmt_value(0.00012, UI_UNIT_PLAIN, t), "0.00012");
  ck_assert_str_eq(ui_fmt_value(0.5, UI_UNIT_PLAIN, t), "0.5");
}
END_TEST

/* No chart label collides with another or leaves its chart, at phone and
 * laptop width, for every experiment on every profile. */
START_TEST(chart_labels_never_overlap_or_clip) {
  static const int widths[] = {390, 1280};
  for (int p = 0; p < lab_profile_count(); p++) {
    const char *profile = lab_profile_at(p)->name;
    for (int i = 0; i < lab_experiment_count(); i++) {
      const char *name = lab_experiment_at(i)->name;
      if (!lab_experiment_applies(lab_experiment_at(i), lab_profile_at(p))) continue; /* it answers not_applicable */
      cJSON *env = simulate(name, profile);
      ui_buf b;
      ui_buf_init(&b);
      ui_render_result(&b, env, true, NULL);
      for (int w = 0; w < 2; w++) {
        if (getenv("UI_LABELS_ALL")) fprintf(stderr, "== %s/%s\n", name, profile);
        const char *why = test_ui_svg_label_problem(ui_buf_str(&b), widths[w]);
        ck_assert_msg(why == NULL, "%s/%s: %s", name, profile, why);
      }
      ui_buf_free(&b);
      cJSON_Delete(env);
    }
  }
}
END_TEST

/* Timelines show what the text teaches: one training step with its
 * loss.item() wait marked, NVTX ranges named on the profile's CPU lane, the
 * graphs chart's two phases named. */
START_TEST(timelines_show_what_the_text_teaches) {
  cJSON *env = simulate("train_step", "t4");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b), *tl = strstr(out, "One step: launches on the CPU");
  ck_assert_ptr_nonnull(tl);
  ck_has(tl, "loss.item() called"); /* the mark may wrap onto two lines */
  const char *svg_end = strstr(tl, "</svg>");
  int launches = 0;
  for (const char *p = strstr(tl, "<title>launch sgemm forward"); p && p < svg_end; p = strstr(p + 1, "<title>launch sgemm forward"))
    launches++;
  ck_assert_int_eq(launches, 1); /* one step, not five */
  ui_buf_free(&b);
  cJSON_Delete(env);

  env = simulate("profile", "t4");
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "<text class=\"span-label\" ");
  ck_has(ui_buf_str(&b), ">data load</text>");
  ui_buf_free(&b);
  cJSON_Delete(env);

  env = simulate("graphs", "t4");
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "phase 1:");
  ck_has(ui_buf_str(&b), "phase 2:");
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

START_TEST(source_label_says_where_the_figures_come_from) {
  char buf[200];
  cJSON *env = simulate("timing", "t4");
  ck_assert_str_eq(ui_result_source(env, true, buf, sizeof buf), "simulated — profile T4 (in your browser)");
  ck_assert_str_eq(ui_result_source(env, false, buf, sizeof buf), "simulated — profile T4 (on the server)");
  cJSON_ReplaceItemInObject(env, "backend", cJSON_CreateString("cuda"));
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(env, "device"), "name", cJSON_CreateString("NVIDIA H100 80GB HBM3"));
  ck_assert_str_eq(ui_result_source(env, false, buf, sizeof buf), "live on NVIDIA H100 80GB HBM3");
  cJSON_ReplaceItemInObject(env, "backend", cJSON_CreateString("recorded"));
  cJSON_AddItemToObject(env, "recorded", cJSON_Parse("{\"device\":\"NVIDIA A100-SXM4-80GB\",\"date\":\"2026-11-02\"}"));
  ck_assert_str_eq(ui_result_source(env, true, buf, sizeof buf), "recorded on NVIDIA A100-SXM4-80GB, 2026-11-02");
  cJSON_Delete(env);
  /* The device check the server ran on its machine with no GPU: live, but
   * never "live on this machine's GPU". */
  env = cJSON_Parse("{\"experiment\":\"device\",\"backend\":\"cuda\",\"device\":{\"name\":null,\"profile\":null}}");
  ck_assert_str_eq(ui_result_source(env, false, buf, sizeof buf),
                   "checked live on the server's machine (no usable GPU found)");
  cJSON_Delete(env);
}
END_TEST

/* A simulated run's real lines are named one by one with where they ran:
 * crossover's CPU line (measured), training's loss (computed). */
START_TEST(each_real_series_is_labelled_by_its_own_source) {
  static const struct {
    const char *name, *in_browser, *on_server;
  } cases[] = {{"crossover", "measured in your browser", "measured on the server's CPU"},
               {"train_step", "computed in your browser", "computed on the server's CPU"},
               {"precision", "computed in your browser", "computed on the server's CPU"}};
  for (int k = 0; k < 3; k++) {
    cJSON *env = simulate(cases[k].name, "t4");
    for (int where = 0; where < 2; where++) {
      ui_buf b;
      ui_buf_init(&b);
      ui_render_result(&b, env, where == 0, NULL);
      const char *out = ui_buf_str(&b);
      ck_has(out, where == 0 ? cases[k].in_browser : cases[k].on_server);
      ck_has(out, "Every other line is simulated from the device profile.");
      ui_buf_free(&b);
    }
    cJSON_Delete(env);
  }
  /* a run with no real series says nothing of the kind */
  cJSON *env = simulate("timing", "t4");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_assert_ptr_null(strstr(ui_buf_str(&b), "exp-series-sources"));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

static int occurrences(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* The precision run has nine computed lines: one badge says where they
 * ran, and every line is still named after it. */
START_TEST(one_badge_per_kind_of_real_series) {
  cJSON *env = simulate("precision", "t4"), *s;
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  ck_assert_int_eq(occurrences(out, "computed in your browser"), 1);
  const char *list = strstr(out, "exp-series-sources"), *end = list ? strstr(list, "</ul>") : NULL;
  ck_assert_ptr_nonnull(end);
  int named = 0;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
    const cJSON *src = cJSON_GetObjectItem(s, "source"), *label = cJSON_GetObjectItem(s, "label");
    if (!cJSON_IsString(src) || strcmp(src->valuestring, "computed") != 0) continue;
    const char *at = strstr(list, label->valuestring);
    ck_assert_msg(at && at < end, "computed line %s is not named", label->valuestring);
    named++;
  }
  ck_assert_int_ge(named, 2);
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

/* Recorded runs (measured on a real GPU earlier) never wear the simulated badge. */
START_TEST(recorded_runs_have_their_own_badge) {
  cJSON *env = simulate("timing", "t4");
  cJSON_ReplaceItemInObject(env, "backend", cJSON_CreateString("recorded"));
  cJSON_AddItemToObject(env, "recorded", cJSON_Parse("{\"device\":\"NVIDIA A100-SXM4-80GB\",\"date\":\"2026-11-02\"}"));
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "<span class=\"badge badge-rec\">recorded on NVIDIA A100-SXM4-80GB");
  ck_assert_ptr_null(strstr(ui_buf_str(&b), "badge-sim"));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

/* A learner's own run with the measurement kit (backend pytorch) says whose
 * it is and how it was measured; kept as a recording it says it came from
 * the kit, never passing for gpulab's own kernels. */
START_TEST(kit_runs_say_whose_they_are) {
  cJSON *env = simulate("timing", "t4");
  cJSON_ReplaceItemInObject(env, "backend", cJSON_CreateString("pytorch"));
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(env, "device"), "name", cJSON_CreateString("Tesla T4"));
  cJSON_AddItemToObject(env, "measured_with",
                        cJSON_Parse("{\"kit\":\"1.0\",\"torch\":\"2.5.1+cu121\",\"platform\":\"Colab\",\"date\":\"2026-11-20\"}"));
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "<span class=\"badge badge-own\">your run: Tesla T4, PyTorch 2.5.1+cu121, Colab");
  ck_assert_ptr_null(strstr(ui_buf_str(&b), "badge-sim"));
  ui_buf_free(&b);
  cJSON_ReplaceItemInObject(env, "backend", cJSON_CreateString("recorded"));
  cJSON_AddItemToObject(env, "recorded", cJSON_Parse("{\"device\":\"NVIDIA H100 80GB HBM3\",\"date\":\"2026-11-21\"}"));
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "recorded with the measurement kit, PyTorch 2.5.1+cu121, on NVIDIA H100 80GB HBM3 on Colab, 2026-11-21");
  ck_assert_ptr_null(strstr(ui_buf_str(&b), "recorded on NVIDIA"));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

/* crossover in the browser once the server's BLAS line has joined (as
 * experiment_run.c adds it): the headline names the CPU it compared with,
 * and each CPU line is badged by where it ran. */
START_TEST(crossover_headline_names_the_cpu_it_compared_with) {
  cJSON *env = simulate("crossover", "t4"), *s, *server = NULL;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
    if (strcmp(cJSON_GetObjectItem(s, "id")->valuestring, "cpu") == 0) server = cJSON_Duplicate(s, 1);
  }
  ck_assert_ptr_nonnull(server);
  cJSON_ReplaceItemInObject(server, "id", cJSON_CreateString("cpu_server"));
  cJSON_ReplaceItemInObject(server, "label", cJSON_CreateString("Server CPU sgemm (OpenBLAS 0.3.21, 2 threads)"));
  cJSON_AddStringToObject(server, "ran_on", "server");
  cJSON *pt;
  cJSON_ArrayForEach(pt, cJSON_GetObjectItem(server, "points")) cJSON_GetArrayItem(pt, 1)->valuedouble /= 100;
  cJSON_AddItemToArray(cJSON_GetObjectItem(env, "series"), server);
  ck_assert_int_eq(lab_crossover_judge(env), 0);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  ck_has(out, "<p class=\"exp-headline\" data-cpu=\"cpu_server\">Who was faster at each size, against the best "
              "CPU here (Server CPU sgemm (OpenBLAS 0.3.21, 2 threads)): the CPU at N = 16");
  ck_has(out, "measured on the server's CPU</span> Server CPU sgemm");
  ck_has(out, "measured in your browser</span> CPU sgemm");
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

START_TEST(text_alternative_holds_every_point) {
  static const char *const names[] = {"transfer", "crossover", "train_step"};
  for (int k = 0; k < 3; k++) {
    cJSON *env = simulate(names[k], "h100-sxm"), *s, *pt;
    ui_buf b;
    char t[32], cell[48];
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *out = ui_buf_str(&b);
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
      cJSON_ArrayForEach(pt, cJSON_GetObjectItem(s, "points")) {
        snprintf(cell, sizeof cell, "<td>%s</td>", ui_fmt_value(cJSON_GetArrayItem(pt, 1)->valuedouble, UI_UNIT_PLAIN, t));
        ck_assert_msg(strstr(out, cell) != NULL, "%s: series %s has no cell %s", names[k],
                      cJSON_GetObjectItem(s, "id")->valuestring, cell);
      }
    }
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(memory_result_shows_the_oom_and_its_fixes) {
  cJSON *params = cJSON_Parse("{\"params_m\":6740}"), *env = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("memory"), params, "t4", &env, &err), 0);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  /* simulated, the run has the T4's whole memory: the device is the limit */
  ck_has(ui_buf_str(&b), "Out of memory: this step does not fit on the device");
  ck_has(ui_buf_str(&b), "How to fix it:");
  ck_has(ui_buf_str(&b), "The memory one step needs: it does not fit in the device&#39;s free memory");
  ui_buf_free(&b);
  cJSON_Delete(env);
  cJSON_Delete(params);
}
END_TEST

/* The default run fits, then overflows on purpose: the chart's title must
 * not say "it fits" alone above an "Out of memory" box; plain words, not
 * "budget_gib cap", in the title, the mark and the box. */
START_TEST(memory_title_agrees_with_its_outcome) {
  cJSON *env = simulate("memory", "t4");
  const cJSON *oom = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "details"), "oom");
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(oom, "deliberate")));
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  ck_has(out, "Out of memory — on purpose, safely caught");
  ck_has(out, "it fits in the device&#39;s free memory; one more allocation, too big on purpose, does not (below)");
  ck_lacks(out, "budget_gib cap</");
  ck_lacks(out, "budget_gib cap:");
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

START_TEST(placement_result_names_the_stray_field) {
  cJSON *params = cJSON_Parse("{\"move_labels\":false}"), *env = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("placement"), params, "t4", &env, &err), 0);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_has(ui_buf_str(&b), "Preflight stopped the step:");
  ck_has(ui_buf_str(&b), "labels");
  ck_has(ui_buf_str(&b), "stray");
  ui_buf_free(&b);
  cJSON_Delete(env);
  cJSON_Delete(params);
}
END_TEST

Suite *make_ui_chart_suite(void) {
  Suite *s = suite_create("ui_chart");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, nice_step_is_one_two_or_five_times_a_power_of_ten);
  tcase_add_test(tc, linear_axis_covers_the_data_with_round_ticks);
  tcase_add_test(tc, log2_axis_for_copy_sizes_ticks_at_powers_of_sixteen);
  tcase_add_test(tc, log10_axis_spans_whole_decades_and_labels_time_units);
  tcase_add_test(tc, log_axis_ignores_values_it_cannot_draw);
  tcase_add_test(tc, svg_is_well_formed_and_escapes_data);
  tcase_add_test(tc, last_x_tick_is_always_labelled);
  tcase_add_test(tc, all_zero_series_gets_an_axis_from_zero);
  tcase_add_test(tc, linear_bytes_axis_prints_binary_units_not_8000M);
  tcase_add_test(tc, multi_gpu_memory_axis_says_its_unit);
  tcase_add_test(tc, every_experiment_renders_from_every_profile);
  tcase_add_test(tc, figures_for_people_have_no_exponent);
  tcase_add_test(tc, memory_title_agrees_with_its_outcome);
  tcase_add_test(tc, source_label_says_where_the_figures_come_from);
  tcase_add_test(tc, chart_labels_never_overlap_or_clip);
  tcase_add_test(tc, timelines_show_what_the_text_teaches);
  tcase_add_test(tc, text_alternative_holds_every_point);
  tcase_add_test(tc, each_real_series_is_labelled_by_its_own_source);
  tcase_add_test(tc, one_badge_per_kind_of_real_series);
  tcase_add_test(tc, recorded_runs_have_their_own_badge);
  tcase_add_test(tc, kit_runs_say_whose_they_are);
  tcase_add_test(tc, crossover_headline_names_the_cpu_it_compared_with);
  tcase_add_test(tc, memory_result_shows_the_oom_and_its_fixes);
  tcase_add_test(tc, placement_result_names_the_stray_field);
  suite_add_tcase(s, tc);
  return s;
}
