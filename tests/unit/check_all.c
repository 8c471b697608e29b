/* The one runner for every unit suite. Exit status is the failure count
 * (capped), and Check prints "N%: Checks: N, Failures: N, Errors: N". */
#include <stdlib.h>

#include "experiments.h"
#include "suites.h"

#define TEST_X_SUITE_DECL(stem, gpu, cpu, needs) TEST_EXPERIMENT_SUITE(stem);
LAB_EXPERIMENTS(TEST_X_SUITE_DECL)
#undef TEST_X_SUITE_DECL

int main(void) {
  Suite *(*const suites[])(void) = {
#define TEST_X_SUITE(stem, gpu, cpu, needs) make_##stem##_suite,
      LAB_EXPERIMENTS(TEST_X_SUITE)
#undef TEST_X_SUITE
      make_experiments_suite,
      make_advice_suite,
      make_sim_method_suite,
      make_params_suite,
      make_json_suite,
      make_utf8_suite,
      make_text_suite,
      make_conn_limit_suite,
      make_csp_suite,
      make_openapi_suite,
      make_envelope_suite,
      make_calibrate_suite,
      make_compare_suite,
      make_profiles_suite,
      make_plan_suite,
      make_lesson_figures_suite,
      make_quiz_suite,
      make_quiz_seal_suite,
      make_ui_html_suite,
      make_ui_device_suite,
      make_ui_lesson_suite,
      make_ui_app_suite,
      make_ui_quiz_suite,
      make_ui_report_suite,
      make_ui_own_run_suite,
      make_ui_chart_suite,
      make_ui_experiment_suite,
      make_ui_class_suite,
      make_queue_suite,
      make_limits_suite,
      make_cpu_runs_suite,
      make_runner_suite,
      make_measure_suite,
      make_metrics_suite,
      make_stream_sim_suite,
      make_ui_result_precision_suite,
      make_ui_result_profile_suite,
      make_ui_result_graphs_suite,
      make_ui_result_allocator_suite,
      make_ui_result_memory_suite,
      make_store_suite,
      make_session_suite,
      make_config_suite,
      make_cluster_suite,
      make_subprocess_suite,
      make_ui_result_streams_suite,
      make_throttle_suite,
      make_explain_suite,
      make_explain_corpus_suite,
      make_explain_cost_suite,
      make_doctor_bounds_suite,
      make_ui_explain_suite,
      make_ui_plan_suite,
      make_ui_doctor_suite,
      make_trace_export_suite,
      make_trace_roundtrip_suite,
      make_doctor_suite,
      make_doctor_real_suite,
  };
  SRunner *sr = srunner_create(NULL);
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) srunner_add_suite(sr, suites[i]());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed > 100 ? 100 : failed;
}
