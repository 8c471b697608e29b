/* The lab report (wasm/report/report.c), natively: every section from real
 * simulated envelopes (lab_simulate, as the browser computes them), the
 * hints when a run is missing, the source label of every figure, and
 * Markdown escaping of outside text; the generic report's section per
 * experiment (lesson 2, and any lesson without sections of its own). */
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "registry.h"
#include "suites.h"
#include "report.h"

#define ck_has(text, part) ck_assert_msg(strstr(text, part) != NULL, "missing \"%s\" in:\n%s", part, text)
#define ck_lacks(text, part) ck_assert_msg(strstr(text, part) == NULL, "unexpected \"%s\" in:\n%s", part, text)

static const char LESSON[] =
    "{\"id\":\"01-cuda\",\"title\":\"CUDA intuition\",\"sections\":["
    "{\"id\":\"check\",\"title\":\"Your GPU: two checks\",\"experiments\":[\"device\"]},"
    "{\"id\":\"time\",\"title\":\"Time it honestly\",\"experiments\":[\"timing\"]},"
    "{\"id\":\"mem\",\"title\":\"Memory budget\",\"experiments\":[\"memory\"]}]}";

static const char LIVE_DEVICE[] =
    "{\"driver\":{\"source\":\"nvml\",\"present\":true,\"driver_version\":\"550.54\",\"cuda_version\":\"12.4\","
    "\"devices\":[{\"name\":\"NVIDIA <H100> | 80GB\",\"compute_capability\":\"9.0\"}]},"
    "\"runtime\":{\"status\":\"ok\",\"built_with_cuda\":true,\"runtime_version\":\"13.0\",\"devices\":"
    "[{\"name\":\"NVIDIA <H100> | 80GB\",\"compute_capability\":\"9.0\"}]},"
    "\"verdict\":{\"code\":\"ok\",\"usable\":true,\"simulate\":false,\"summary\":\"usable GPU: NVIDIA H100\","
    "\"explanation\":\"Both views agree.\",\"advice\":\"Run the experiments.\"}}";

static cJSON *lesson, *device_json;

static cJSON *simulate(const char *name) {
  cJSON *env = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find(name), NULL, NULL, &env, &err), 0);
  return env;
}

static char *report(const ui_report_input *in) {
  ui_buf b;
  ui_buf_init(&b);
  ui_report_markdown(&b, in);
  ck_assert(!b.failed);
  char *s = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  return s;
}

static void setup(void) {
  lesson = cJSON_Parse(LESSON);
  device_json = cJSON_Parse(LIVE_DEVICE);
}

static void teardown(void) {
  cJSON_Delete(lesson);
  cJSON_Delete(device_json);
}

/* The learner's last runs, as quiz_app.c collects them: {"NAME": envelope}. */
static cJSON *runs_of(cJSON *timing, cJSON *memory) {
  cJSON *runs = cJSON_CreateObject();
  if (timing) cJSON_AddItemToObject(runs, "timing", timing);
  if (memory) cJSON_AddItemToObject(runs, "memory", memory);
  return runs;
}

START_TEST(report_has_every_section_from_real_runs) {
  cJSON *runs = runs_of(simulate("timing"), simulate("memory"));
  ui_device_state dev = {.views = device_json};
  ui_progress p;
  ui_progress_parse("{\"attempts\":2,\"best\":{\"score\":8,\"total\":9,\"passed\":true,\"date\":\"2026-11-22 10:00 UTC\"},"
                    "\"last\":{\"score\":8,\"total\":9,\"passed\":true,\"offline\":true}}",
                    &p);
  ui_report_input in = {.lesson = lesson, .date = "2026-11-22 15:04 UTC", .version = "0.1.0", .device = &dev,
                        .runs = runs, .progress = &p};
  char *md = report(&in);
  ck_has(md, "# gpulab lab report: CUDA intuition\n");
  ck_has(md, "- Date: 2026-11-22 15:04 UTC");
  ck_has(md, "- gpulab: 0.1.0");
  ck_has(md, "## 1. Device check");
  ck_has(md, "| Answered | yes, via nvml | ok |");
  ck_has(md, "driver 550.54, CUDA 12.4 | runtime 13.0");
  ck_has(md, "**Verdict:** usable GPU: NVIDIA H100 (ok). Experiments run on this GPU for real.");
  ck_has(md, "## 2. Timing: with and without synchronization");
  ck_has(md, "| Host timer, no synchronize | ");
  ck_has(md, "| Host timer, after synchronize | ");
  ck_has(md, "| CUDA events (GPU time) | ");
  ck_has(md, "Source: **simulated (profile: ");
  ck_has(md, "## 3. Memory: the terms that can run out");
  ck_has(md, "your last memory run");
  ck_has(md, "| weights (fp32) | 114 MiB | 4 bytes |"); /* memory is binary: MiB, not MB */
  ck_has(md, "How to fix it:"); /* the memory section hands off the OOM's fixes */
  ck_has(md, "Adam m and v (fp32)");
  ck_has(md, "**Floor: weights + gradients + Adam**");
  ck_has(md, "## 4. Quiz");
  ck_has(md, "- Best attempt: passed, 8 of 9 right");
  ck_has(md, "- Last attempt: passed, 8 of 9 right (scored offline, in the browser)");
  ck_has(md, "## Where every figure comes from");
  ck_has(md, "| Device check | live |");
  ck_has(md, "| Quiz | scored offline in the browser |");
  free(md);
  cJSON_Delete(runs);
}
END_TEST

START_TEST(report_without_runs_says_which_experiment_to_run) {
  cJSON *memory_default = simulate("memory");
  ck_assert_str_eq(ui_report_default_experiment(lesson), "memory");
  ui_device_state dev = {.views = device_json, .simulated = true, .offline = true, .profile_label = "H100 SXM"};
  ui_progress p;
  ui_progress_parse(NULL, &p);
  ui_report_input in = {.lesson = lesson, .date = "2026-11-22 15:04 UTC", .device = &dev,
                        .default_run = memory_default, .progress = &p};
  char *md = report(&in);
  ck_has(md, "version unknown (the server could not be reached)");
  ck_has(md, "**simulated** (profile: H100 SXM) — the gpulab server could not be reached");
  ck_has(md, "_No timing run yet._ Run the **timing** experiment (section \"Time it honestly\")");
  ck_has(md, "the lesson's default settings, computed in your browser");
  ck_has(md, "Run the **memory** experiment (section \"Memory budget\")");
  ck_has(md, "| weights (fp32) |");
  ck_has(md, "_Not taken yet._");
  ck_has(md, "| Device check | simulated (profile: H100 SXM) |");
  ck_has(md, "| Timing | not run yet |");
  ck_has(md, ", lesson default |");
  ck_has(md, "| Quiz | not taken yet |");
  free(md);
  cJSON_Delete(memory_default);
}
END_TEST

START_TEST(report_before_the_device_check_finishes_says_so) {
  ui_device_state dev = {0};
  ui_report_input in = {.lesson = lesson, .date = "x", .device = &dev};
  char *md = report(&in);
  ck_has(md, "had not finished");
  ck_has(md, "| Device check | not finished |");
  ck_has(md, "| Memory | not available |");
  free(md);
}
END_TEST

START_TEST(report_escapes_outside_text_for_markdown) {
  ui_device_state dev = {.views = device_json};
  ui_report_input in = {.lesson = lesson, .date = "2026-11-22", .device = &dev};
  char *md = report(&in);
  ck_has(md, "NVIDIA \\<H100\\> \\| 80GB");
  ck_lacks(md, "<H100>");
  free(md);
}
END_TEST

START_TEST(report_labels_recorded_and_live_sources) {
  char out[200];
  cJSON *rec = cJSON_Parse("{\"backend\":\"recorded\",\"device\":{\"name\":\"A100\"},"
                           "\"recorded\":{\"device\":\"NVIDIA A100-SXM4-80GB\",\"date\":\"2026-01-05\"}}");
  cJSON *live = cJSON_Parse("{\"backend\":\"cuda\",\"device\":{\"name\":\"NVIDIA H100 80GB HBM3\",\"profile\":null}}");
  cJSON *sim = cJSON_Parse("{\"backend\":\"simulated\",\"device\":{\"name\":\"x\",\"profile\":\"t4\"}}");
  ck_assert_str_eq(ui_report_source(rec, out, sizeof out), "recorded on NVIDIA A100-SXM4-80GB (2026-01-05)");
  ck_assert_str_eq(ui_report_source(live, out, sizeof out), "live (NVIDIA H100 80GB HBM3)");
  ck_assert_str_eq(ui_report_source(sim, out, sizeof out), "simulated (profile: t4)");
  ck_assert_str_eq(ui_report_source(NULL, out, sizeof out), "unknown");
  cJSON_Delete(rec);
  cJSON_Delete(live);
  cJSON_Delete(sim);
}
END_TEST

START_TEST(report_timing_section_uses_the_learner_numbers) {
  cJSON *timing = cJSON_Parse("{\"experiment\":\"timing\",\"backend\":\"cuda\",\"device\":{\"name\":\"RTX 4090\"},"
                              "\"params\":{\"size\":1024,\"repeats\":5},\"metrics\":{\"events_ms\":1.5,"
                              "\"host_nosync_ms\":0.02,\"host_sync_ms\":1.52},\"stats\":{\"samples\":9,\"warmup\":3,"
                              "\"iqr_pct\":1.25},\"findings\":[\"Sync *first*.\"]}");
  cJSON *runs = runs_of(timing, NULL);
  ui_report_input in = {.lesson = lesson, .date = "d", .runs = runs};
  char *md = report(&in);
  ck_has(md, "Source: **live (RTX 4090)** — your last timing run.");
  ck_has(md, "Run: 5 matrix multiplies of 1024×1024 per sample; median of 9 samples after 3 warm-up runs, "
             "spread (IQR) 1.25 %.");
  ck_has(md, "| Host timer, no synchronize | 0.020 ms |");
  ck_has(md, "| Host timer, after synchronize | 1.520 ms |");
  ck_has(md, "| CUDA events (GPU time) | 1.500 ms |");
  ck_has(md, "- Sync \\*first\\*.");
  ck_has(md, "| Timing | live (RTX 4090) |");
  free(md);
  cJSON_Delete(runs);
}
END_TEST

/* ---- lesson 2: one section per experiment, from the learner's runs ---------- */

static const char LESSON2[] =
    "{\"id\":\"02-cuda-toolbox\",\"title\":\"CUDA toolbox\",\"sections\":["
    "{\"id\":\"devices\",\"title\":\"Devices\",\"experiments\":[\"placement\"]},"
    "{\"id\":\"allocator\",\"title\":\"The caching allocator\",\"experiments\":[\"allocator\"]},"
    "{\"id\":\"streams\",\"title\":\"Streams and overlap\",\"experiments\":[\"streams\"]},"
    "{\"id\":\"events\",\"title\":\"Events\",\"experiments\":[\"timing\",\"device\"]},"
    "{\"id\":\"pinned\",\"title\":\"Pinned memory\",\"experiments\":[\"transfer\",\"timing\",\"<b>\"]},"
    "{\"id\":\"random\",\"title\":\"Random numbers\",\"experiments\":[]}]}";

static char *report_generic(cJSON *runs, const ui_progress *p) {
  cJSON *l2 = cJSON_Parse(LESSON2);
  ui_device_state dev = {.views = device_json};
  ui_report_input in = {.lesson = l2, .date = "2026-11-22 15:04 UTC", .device = &dev, .runs = runs, .progress = p};
  char *md = report(&in);
  cJSON_Delete(l2);
  return md;
}

START_TEST(report_generic_has_a_section_per_experiment_in_lesson_order) {
  cJSON *runs = cJSON_CreateObject();
  cJSON_AddItemToObject(runs, "timing", simulate("timing"));
  cJSON_AddItemToObject(runs, "transfer", simulate("transfer"));
  ui_progress p;
  ui_progress_parse("{\"attempts\":1,\"best\":{\"score\":7,\"total\":9,\"passed\":true},"
                    "\"last\":{\"score\":7,\"total\":9,\"passed\":true}}",
                    &p);
  char *md = report_generic(runs, &p);
  ck_has(md, "# gpulab lab report: CUDA toolbox\n");
  ck_has(md, "## 1. Device check");
  const char *order[] = {"## 2. Devices (`placement`)", "## 3. The caching allocator (`allocator`)",
                         "## 4. Streams and overlap (`streams`)", "## 5. Events (`timing`)",
                         "## 6. Pinned memory (`transfer`)", "## 7. Quiz"};
  const char *at = md;
  for (int i = 0; i < 6; i++) {
    const char *next = strstr(at, order[i]);
    ck_assert_msg(next != NULL, "missing or out of order: \"%s\" in:\n%s", order[i], md);
    at = next;
  }
  ck_has(md, "_Not run yet._ Run the **allocator** experiment (section \"The caching allocator\")");
  ck_has(md, "Source: **simulated (profile: t4)** — your last timing run.");
  ck_has(md, "| Measured | Value |");
  ck_has(md, "| events | ");
  ck_has(md, "| host→device pinned | ");
  ck_has(md, " GB/s |");
  ck_has(md, "- Best attempt: passed, 7 of 9 right");
  ck_has(md, "| allocator | not run yet |");
  ck_has(md, "| timing | simulated (profile: t4) |");
  ck_has(md, "| Quiz | scored by the gpulab server |");
  ck_lacks(md, "Timing: with and without synchronization");  /* lesson 1's sections */
  ck_lacks(md, "(`device`)");                               /* the device check has its own section */
  ck_lacks(md, "<b>");                                      /* not an experiment name: skipped */
  ck_lacks(md, "## 8.");
  free(md);
  cJSON_Delete(runs);
}
END_TEST

START_TEST(report_generic_prints_each_metric_with_its_unit) {
  cJSON *runs = cJSON_Parse(
      "{\"streams\":{\"experiment\":\"streams\",\"backend\":\"cuda\",\"device\":{\"name\":\"RTX 4090\"},"
      "\"params\":{\"chunks\":8,\"pinned\":false},"
      "\"metrics\":{\"one_stream_ms\":12.5,\"overlap_pct\":40,\"reserved_bytes\":1048576,\"launch_us\":3.25,"
      "\"kernels\":100,\"overlapped\":true,\"note\":\"a *b*\",\"tflops\":51.5,\"per_chunk\":[1,2]},"
      "\"stats\":{\"samples\":9,\"warmup\":2,\"iqr_pct\":1.5,\"method\":\"CUDA events\"},"
      "\"findings\":[\"Overlap saved 5 ms.\"]},"
      "\"allocator\":{\"experiment\":\"graphs\",\"metrics\":{\"x_ms\":1}}}");
  char *md = report_generic(runs, NULL);
  ck_has(md, "Source: **live (RTX 4090)** — your last streams run.");
  ck_has(md, "Settings: chunks = 8, pinned = no.");
  ck_has(md, "| one stream | 12.500 ms |");
  ck_has(md, "| overlap | 40.0 % |");
  ck_has(md, "| reserved | 1 MiB |");
  ck_has(md, "| launch | 3.25 µs |");
  ck_has(md, "| kernels | 100 |");
  ck_has(md, "| overlapped | yes |");
  ck_has(md, "| note | a \\*b\\* |");
  ck_has(md, "| tflops | 51.50 TFLOPS |");
  ck_lacks(md, "per chunk");  /* arrays belong to the chart */
  ck_has(md, "Median of 9 samples after 2 warm-up runs, spread (IQR) 1.50 %.");
  ck_has(md, "How it was measured: CUDA events");
  ck_has(md, "- Overlap saved 5 ms.");
  /* an envelope of another experiment under the allocator's name is not its run */
  ck_has(md, "## 3. The caching allocator (`allocator`)\n\n_Not run yet._");
  ck_has(md, "| streams | live (RTX 4090) |");
  ck_has(md, "_Not taken yet._");
  free(md);
  cJSON_Delete(runs);
}
END_TEST

/* A hand-off: no raw field names, binary units, and a note when the
 * sections come from different profiles. */
START_TEST(report_generic_reads_as_a_hand_off) {
  cJSON *runs = cJSON_CreateObject();
  cJSON_AddItemToObject(runs, "allocator", simulate("allocator"));
  cJSON *other = NULL; /* not the default profile the allocator ran on */
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("timing"), NULL, "h100-sxm", &other, &err), 0);
  cJSON_AddItemToObject(runs, "timing", other);
  char *md = report_generic(runs, NULL);
  ck_has(md, "| fragmentation test: block | ");
  ck_has(md, "| cudaMalloc | ");
  ck_lacks(md, "frag block");
  ck_lacks(md, "cuda malloc");
  ck_lacks(md, " MB |");
  ck_has(md, "these sections come from different device profiles");
  free(md);
  cJSON_Delete(runs);
}
END_TEST

/* With the server gone, the report never claims the simulated GPU: no "for
 * real", no "Nothing to fix" from the modelled machine's advice. */
START_TEST(report_offline_never_claims_a_simulated_gpu) {
  cJSON *env = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("device"), NULL, NULL, &env, &err), 0);
  ui_device_state dev = {.views = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "views"),
                         .simulated = true, .offline = true, .profile_label = "T4"};
  cJSON *timing = simulate("timing");
  cJSON_AddStringToObject(timing, "ran_in", "browser");
  cJSON *runs = runs_of(timing, NULL);
  ui_report_input in = {.lesson = lesson, .date = "d", .device = &dev, .runs = runs};
  char *md = report(&in);
  ck_lacks(md, "for real.");
  ck_lacks(md, "Nothing to fix");
  ck_has(md, "**Simulated:** no real GPU was asked");
  ck_has(md, "simulated in your browser (profile: t4)");
  /* no verdict line that reads as a real GPU ("**Verdict:** usable GPU: …") */
  ck_lacks(md, "**Verdict:**");
  free(md);
  cJSON_Delete(runs);
  cJSON_Delete(env);
}
END_TEST

START_TEST(report_generic_without_runs_lists_every_experiment_to_run) {
  char *md = report_generic(NULL, NULL);
  ck_has(md, "Run the **placement** experiment (section \"Devices\")");
  ck_has(md, "Run the **streams** experiment (section \"Streams and overlap\")");
  ck_has(md, "Run the **transfer** experiment (section \"Pinned memory\")");
  ck_has(md, "| transfer | not run yet |");
  ck_has(md, "| Quiz | not taken yet |");
  free(md);
}
END_TEST

/* A lesson without sections of its own (any but lesson 1, a third one
 * too) gets the generic report, never lesson 1's timing and memory
 * sections, and quotes no experiment at its defaults. */
START_TEST(report_of_a_new_lesson_is_the_generic_one) {
  cJSON *l3 = cJSON_Parse("{\"id\":\"03-multi-gpu\",\"title\":\"Many GPUs\",\"sections\":["
                          "{\"id\":\"copies\",\"title\":\"Copies between GPUs\",\"experiments\":[\"transfer\"]},"
                          "{\"id\":\"mem\",\"title\":\"Memory per GPU\",\"experiments\":[\"memory\"]}]}");
  cJSON *runs = runs_of(NULL, simulate("memory"));
  ui_device_state dev = {.views = device_json};
  ui_report_input in = {.lesson = l3, .date = "2026-11-22", .device = &dev, .runs = runs};
  ck_assert_ptr_null(ui_report_default_experiment(l3));
  char *md = report(&in);
  ck_has(md, "# gpulab lab report: Many GPUs\n");
  ck_has(md, "## 2. Copies between GPUs (`transfer`)");
  ck_has(md, "_Not run yet._ Run the **transfer** experiment (section \"Copies between GPUs\")");
  ck_has(md, "## 3. Memory per GPU (`memory`)");
  ck_has(md, "## 4. Quiz");
  ck_lacks(md, "Timing: with and without synchronization");
  ck_lacks(md, "Memory: the terms that can run out");
  free(md);
  cJSON_Delete(runs);
  cJSON_Delete(l3);
}
END_TEST

START_TEST(report_filename_names_lesson_and_day) {
  char name[128];
  ck_assert_str_eq(ui_report_filename("01-cuda", "2026-11-22 15:04 UTC", name, sizeof name),
                   "gpulab-report-01-cuda-2026-11-22.md");
  ck_assert_str_eq(ui_report_filename("../x", "bad", name, sizeof name), "gpulab-report-lesson-undated.md");
  ck_assert_str_eq(ui_report_filename("a", "20/6/11-22", name, sizeof name), "gpulab-report-a-undated.md");
}
END_TEST

Suite *make_ui_report_suite(void) {
  Suite *s = suite_create("ui_report");
  TCase *tc = tcase_create("report");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, report_has_every_section_from_real_runs);
  tcase_add_test(tc, report_without_runs_says_which_experiment_to_run);
  tcase_add_test(tc, report_before_the_device_check_finishes_says_so);
  tcase_add_test(tc, report_escapes_outside_text_for_markdown);
  tcase_add_test(tc, report_labels_recorded_and_live_sources);
  tcase_add_test(tc, report_timing_section_uses_the_learner_numbers);
  tcase_add_test(tc, report_filename_names_lesson_and_day);
  tcase_add_test(tc, report_of_a_new_lesson_is_the_generic_one);
  tcase_add_test(tc, report_generic_has_a_section_per_experiment_in_lesson_order);
  tcase_add_test(tc, report_generic_prints_each_metric_with_its_unit);
  tcase_add_test(tc, report_generic_without_runs_lists_every_experiment_to_run);
  tcase_add_test(tc, report_generic_reads_as_a_hand_off);
  tcase_add_test(tc, report_offline_never_claims_a_simulated_gpu);
  suite_add_tcase(s, tc);
  return s;
}
