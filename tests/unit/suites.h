/* Every Check suite of the unit tests; check_all.c runs them all. */
#ifndef TESTS_SUITES_H
#define TESTS_SUITES_H

#include <check.h>

/* One suite per experiment: tests/unit/check_STEM.c defines
 * `TEST_EXPERIMENT_SUITE(STEM) { … }` after declaring it the same way, and
 * check_all.c lists every one from the table in lab/face/experiments.h (this
 * header does not include it: a new table line rebuilds the list, not
 * every test). */
#define TEST_EXPERIMENT_SUITE(stem) Suite *make_##stem##_suite(void)

/* What every experiment must satisfy, walked over the table. */
Suite *make_experiments_suite(void);
Suite *make_advice_suite(void);
Suite *make_sim_method_suite(void);

Suite *make_params_suite(void);
Suite *make_json_suite(void);
Suite *make_utf8_suite(void);
Suite *make_text_suite(void);
Suite *make_conn_limit_suite(void);
Suite *make_csp_suite(void);
Suite *make_openapi_suite(void);
Suite *make_envelope_suite(void);
Suite *make_calibrate_suite(void);
Suite *make_compare_suite(void);
Suite *make_profiles_suite(void);
Suite *make_plan_suite(void);
Suite *make_lesson_figures_suite(void);
Suite *make_quiz_suite(void);
Suite *make_quiz_seal_suite(void);

Suite *make_stream_sim_suite(void);
Suite *make_ui_result_precision_suite(void);
Suite *make_ui_result_profile_suite(void);
Suite *make_ui_result_graphs_suite(void);
Suite *make_ui_result_allocator_suite(void);
Suite *make_ui_result_memory_suite(void);

Suite *make_store_suite(void);
Suite *make_session_suite(void);
Suite *make_config_suite(void);
Suite *make_throttle_suite(void);
Suite *make_cluster_suite(void);
Suite *make_subprocess_suite(void);

Suite *make_ui_html_suite(void);
Suite *make_ui_device_suite(void);
Suite *make_ui_lesson_suite(void);
Suite *make_ui_app_suite(void);
Suite *make_ui_quiz_suite(void);
Suite *make_ui_report_suite(void);
Suite *make_ui_own_run_suite(void);
Suite *make_ui_chart_suite(void);
Suite *make_ui_experiment_suite(void);
Suite *make_ui_class_suite(void);
Suite *make_queue_suite(void);
Suite *make_limits_suite(void);
Suite *make_cpu_runs_suite(void);
Suite *make_runner_suite(void);
Suite *make_measure_suite(void);
Suite *make_metrics_suite(void);
Suite *make_ui_result_streams_suite(void);
Suite *make_explain_suite(void);
Suite *make_doctor_suite(void);
Suite *make_doctor_real_suite(void);
Suite *make_explain_corpus_suite(void);
Suite *make_explain_cost_suite(void);
Suite *make_doctor_bounds_suite(void);
Suite *make_ui_explain_suite(void);
Suite *make_ui_plan_suite(void);
Suite *make_ui_doctor_suite(void);
Suite *make_trace_export_suite(void);
Suite *make_trace_roundtrip_suite(void);

#endif
