/* `graphs`: parameter bounds, the simulated envelope's shape, the CPU
 * reference of the chain, and the launch-overhead physics (a graph cuts the
 * per-kernel cost of tiny kernels, not of long ones) on every profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "envelope.h"
#include "exp_test.h"
#include "graphs.h"
#include "profiles.h"
#include "suites.h"

static double stat_num(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "stats"), key);
  ck_assert_msg(cJSON_IsNumber(v), "stats.%s is missing", key);
  return v->valuedouble;
}

START_TEST(graphs_rejects_a_word_for_sweep) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("graphs", "{\"sweep\":\"yes\"}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "sweep");
}
END_TEST

START_TEST(graphs_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("graphs", NULL, "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  const char *keys[] = {"eager_total_us",  "graph_total_us", "eager_per_kernel_us", "graph_per_kernel_us",
                        "graph_speedup",   "eager_launch_us", "eager_launch_per_kernel_us", "graph_launch_us",
                        "eager_gpu_us",    "graph_gpu_us",   "capture_us",          "instantiate_us",
                        "one_off_us",      "saved_per_replay_us", "payback_replays", "no_gain_from_elements",
                        "sweep_small_speedup", "sweep_large_speedup"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert(test_exp_metric(env, keys[i]) > 0);
  const char *sweeps[] = {"sweep_eager", "sweep_graph", "sweep_body"};
  for (int i = 0; i < 3; i++) ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, sweeps[i])), LAB_GRAPHS_SWEEP_POINTS);
  ck_assert_int_ge(cJSON_GetArraySize(test_exp_series(env, "cost_eager")), 10);
  /* 12 launches + 12 kernels + a synchronize, then one graph launch, 12 nodes and a synchronize. */
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "timeline")),
                   3 * LAB_GRAPHS_TL_KERNELS + 3);
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(env, "stats");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(stats, "median_of")->valuestring, "graph_per_kernel_us");
  ck_assert_int_eq((int)stat_num(env, "warmup"), LAB_GRAPHS_WARMUP);
  ck_assert(stat_num(env, "iqr_pct") > 0); /* the samples have a spread */
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(env, "validated")); /* nothing was run to check */
  cJSON_Delete(env);
}
END_TEST

START_TEST(graphs_sweep_off_leaves_the_sweep_out) {
  lab_error err;
  cJSON *env = test_exp_simulate("graphs", "{\"sweep\":false,\"kernels\":10}", "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  ck_assert_ptr_null(test_exp_series(env, "sweep_eager"));
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"),
                                                      "no_gain_from_elements"));
  /* ten kernels: all ten drawn per mode */
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "timeline")), 3 * 10 + 3);
  cJSON_Delete(env);
}
END_TEST

/* The physics the GPU check asserts: with >= 100 tiny kernels the graph's
 * per-kernel time is below eager launch's, and the host launches far less. */
START_TEST(graphs_cut_the_per_kernel_cost_of_tiny_kernels_on_every_profile) {
  const char *cases[] = {"{\"kernels\":100,\"elements\":1024,\"sweep\":false}",
                         "{\"kernels\":10000,\"elements\":32,\"sweep\":false}"};
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("graphs", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    for (int c = 0; c < 2; c++) {
      lab_error err;
      cJSON *env = test_exp_simulate("graphs", cases[c], p->name, &err);
      ck_assert_ptr_nonnull(env);
      double e = test_exp_metric(env, "eager_per_kernel_us"), g = test_exp_metric(env, "graph_per_kernel_us");
      ck_assert_msg(g < 0.8 * e, "%s %s: graph %.2f µs vs eager %.2f µs per kernel", p->name, cases[c], g, e);
      /* one by one, each kernel costs at least a launch; the host pays one launch per kernel */
      ck_assert(e >= 0.9 * p->launch_us);
      ck_assert(test_exp_metric(env, "eager_launch_per_kernel_us") > 0.9 * p->launch_us);
      ck_assert(test_exp_metric(env, "graph_launch_us") < 0.1 * test_exp_metric(env, "eager_launch_us"));
      /* eagerly the GPU waits for launches: its span is longer than the graph's */
      ck_assert(test_exp_metric(env, "eager_gpu_us") > test_exp_metric(env, "graph_gpu_us"));
      ck_assert(test_exp_metric(env, "graph_speedup") > 1.25);
      cJSON_Delete(env);
    }
  }
}
END_TEST

START_TEST(graphs_do_not_help_long_kernels_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("graphs", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("graphs", "{\"kernels\":200}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    int last = LAB_GRAPHS_SWEEP_POINTS - 1;
    double e0 = test_exp_y(env, "sweep_eager", 0), g0 = test_exp_y(env, "sweep_graph", 0);
    double el = test_exp_y(env, "sweep_eager", last), gl = test_exp_y(env, "sweep_graph", last);
    ck_assert_msg(g0 < 0.8 * e0, "%s: smallest kernels %.2f vs %.2f", p->name, g0, e0);
    ck_assert_msg(fabs(el - gl) < 0.05 * el, "%s: largest kernels %.2f vs %.2f", p->name, el, gl);
    /* the largest kernels run far longer than a launch */
    ck_assert(test_exp_y(env, "sweep_body", last) > 5 * p->launch_us);
    /* the gain fades as kernels grow, and the point it falls under 10 % is named */
    for (int k = 1; k <= last; k++)
      ck_assert(test_exp_y(env, "sweep_eager", k) / test_exp_y(env, "sweep_graph", k) <= /* give or take the jitter */
                1.08 * test_exp_y(env, "sweep_eager", k - 1) / test_exp_y(env, "sweep_graph", k - 1));
    double from = test_exp_metric(env, "no_gain_from_elements");
    ck_assert(from > 1024 && from <= lab_graphs_sweep_elements(last));
    ck_assert(test_exp_metric(env, "sweep_large_speedup") < 1.05);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(graphs_capture_pays_back_after_the_stated_replays) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("graphs", i)) continue; /* no such thing on that GPU */
    lab_error err;
    cJSON *env = test_exp_simulate("graphs", "{\"sweep\":false}", lab_profile_at(i)->name, &err);
    ck_assert_ptr_nonnull(env);
    double one_off = test_exp_metric(env, "one_off_us"), saved = test_exp_metric(env, "saved_per_replay_us");
    double r = test_exp_metric(env, "payback_replays");
    ck_assert(one_off > test_exp_metric(env, "graph_total_us")); /* capturing costs more than one replay */
    ck_assert(saved > 0);
    ck_assert(r * saved >= one_off && (r - 1) * saved < one_off);
    /* the cumulative cost curves cross there: the graph is dearer for one run, cheaper after r */
    const cJSON *ce = test_exp_series(env, "cost_eager"), *cg = test_exp_series(env, "cost_graph"), *pe;
    int k = 0;
    cJSON_ArrayForEach(pe, ce) {
      double x = cJSON_GetArrayItem(pe, 0)->valuedouble, ye = cJSON_GetArrayItem(pe, 1)->valuedouble;
      double yg = cJSON_GetArrayItem(cJSON_GetArrayItem(cg, k++), 1)->valuedouble;
      if (x < r) ck_assert(yg > ye);
      else ck_assert(yg <= ye);
    }
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(graphs_timeline_shows_one_launch_for_the_whole_graph) {
  lab_error err;
  cJSON *env = test_exp_simulate("graphs", "{\"sweep\":false}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  const cJSON *e;
  double launches = 0, glaunch = -1, eager_end = 0, graph_first = -1, graph_end = 0, sync_end = 0;
  int n_launch = 0, n_nodes = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
    const char *label = cJSON_GetObjectItemCaseSensitive(e, "label")->valuestring;
    double s = cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble;
    double t = cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble;
    ck_assert(t >= s);
    if (!strcmp(lane, "cpu") && !strncmp(label, "launch kernel", 13)) launches += t - s, n_launch++;
    else if (!strncmp(label, "cudaGraphLaunch", 15)) glaunch = t - s;
    else if (!strncmp(label, "kernel", 6)) eager_end = t;
    else if (!strncmp(label, "graph node", 10)) {
      if (graph_first < 0) graph_first = s;
      graph_end = t, n_nodes++;
    } else if (!strcmp(label, "synchronize after the graph")) sync_end = t;
  }
  ck_assert_int_eq(n_launch, LAB_GRAPHS_TL_KERNELS);
  ck_assert_int_eq(n_nodes, LAB_GRAPHS_TL_KERNELS);
  ck_assert(glaunch > 0 && glaunch < launches / 4);
  ck_assert(graph_first > eager_end); /* the graph part comes after the eager one */
  ck_assert(sync_end >= graph_end);
  cJSON_Delete(env);
}
END_TEST

START_TEST(graphs_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("graphs", NULL, "rtx-4090", &err);
  ck_assert_ptr_nonnull(env);
  char want[160];
  snprintf(want, sizeof want, "the 1000 kernels took %.2f ms, %.2f µs each",
           test_exp_metric(env, "eager_total_us") / 1e3, test_exp_metric(env, "eager_per_kernel_us"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "pays for itself after %.0f replays", test_exp_metric(env, "payback_replays"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "From %.0f elements per kernel", test_exp_metric(env, "no_gain_from_elements"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  cJSON_Delete(env);
}
END_TEST

START_TEST(graphs_simulation_is_deterministic_and_fast) {
  lab_error err;
  clock_t c0 = clock();
  cJSON *a = test_exp_simulate("graphs", "{\"kernels\":10000,\"samples\":30}", "a100-sxm", &err);
  double ms = 1e3 * (double)(clock() - c0) / CLOCKS_PER_SEC;
  cJSON *b = test_exp_simulate("graphs", "{\"kernels\":10000,\"samples\":30}", "a100-sxm", &err);
  char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
  ck_assert_str_eq(ta, tb);
  ck_assert_msg(ms < 400, "the largest simulation took %.0f ms", ms); /* 100 ms natively; sanitizers are slower */
  free(ta);
  free(tb);
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

START_TEST(graphs_cpu_reference_follows_the_chain) {
  float x = 1.5f, a = lab_graphs_coef_a();
  for (int k = 0; k < 3; k++) x = fmaf(x, a, lab_graphs_coef_b(k));
  ck_assert(lab_graphs_reference(1.5f, 3) == x);
  ck_assert(lab_graphs_reference(1.5f, 0) == 1.5f);
  /* a < 1 keeps the longest chain bounded and finite */
  float far = lab_graphs_reference(4.0f, 10000);
  ck_assert(isfinite(far) && fabsf(far) < 4.0f);
  ck_assert_int_eq(lab_graphs_sweep_elements(0), 1024);
  ck_assert_int_eq(lab_graphs_sweep_elements(LAB_GRAPHS_SWEEP_POINTS - 1), 1 << 24);
}
END_TEST

TEST_EXPERIMENT_SUITE(graphs);

TEST_EXPERIMENT_SUITE(graphs) {
  Suite *s = suite_create("graphs");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, graphs_rejects_a_word_for_sweep);
  tcase_add_test(tc, graphs_simulated_envelope_has_its_shape);
  tcase_add_test(tc, graphs_sweep_off_leaves_the_sweep_out);
  tcase_add_test(tc, graphs_cut_the_per_kernel_cost_of_tiny_kernels_on_every_profile);
  tcase_add_test(tc, graphs_do_not_help_long_kernels_on_every_profile);
  tcase_add_test(tc, graphs_capture_pays_back_after_the_stated_replays);
  tcase_add_test(tc, graphs_timeline_shows_one_launch_for_the_whole_graph);
  tcase_add_test(tc, graphs_findings_quote_the_measured_numbers);
  tcase_add_test(tc, graphs_simulation_is_deterministic_and_fast);
  tcase_add_test(tc, graphs_cpu_reference_follows_the_chain);
  suite_add_tcase(s, tc);
  return s;
}
