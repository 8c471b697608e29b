/* The lessons state figures; the simulator must agree with them on every
 * profile. Each check reads the sentence from the lesson (so editing it
 * without the simulator, or the simulator without it, fails here) and the
 * figure from a simulated run. Words map to ranges: "a few" 1-10,
 * "several" 2-20, "tens of" 10-100, "hundreds or thousands" 100-10000,
 * "about N" within ±25 % of N. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "exp_test.h"
#include "profiles.h"
#include "suites.h"

static char *lesson(const char *id) {
  char path[128];
  snprintf(path, sizeof path, "lessons/%s/lesson.md", id);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot read %s", path);
  static char buf[1 << 18];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *w = buf; /* sentences wrap and indent: compare with single spaces */
  for (const char *r = buf; *r; r++)
    if (!(*r == ' ' || *r == '\n') || (w > buf && w[-1] != ' ')) *w++ = *r == '\n' ? ' ' : *r;
  *w = '\0';
  return buf;
}

/* The lesson says `phrase` (a figure in words or digits). */
static void says(const char *id, const char *phrase) {
  ck_assert_msg(strstr(lesson(id), phrase) != NULL, "lessons/%s/lesson.md no longer says \"%s\"", id, phrase);
}

/* The figure of `metric` in `experiment` (params) lies in [lo, hi) on every
 * profile of `platform` (-1: of every platform) the experiment applies to. */
static void on_profiles(int platform, const char *experiment, const char *params, const char *metric, double lo,
                        double hi) {
  for (int i = 0; i < lab_profile_count(); i++) {
    if (!test_exp_applies(experiment, i) || (platform >= 0 && (int)lab_profile_at(i)->platform != platform)) continue;
    lab_error err;
    cJSON *env = test_exp_simulate(experiment, params, lab_profile_at(i)->name, &err);
    ck_assert_ptr_nonnull(env);
    double v = test_exp_metric(env, metric);
    ck_assert_msg(v >= lo && v < hi, "%s %s on %s: %g, the lesson's words mean %g to %g", experiment, metric,
                  lab_profile_at(i)->name, v, lo, hi);
    cJSON_Delete(env);
  }
}

static void on_every_profile(const char *experiment, const char *params, const char *metric, double lo, double hi) {
  on_profiles(-1, experiment, params, metric, lo, hi);
}

START_TEST(lesson2_cudamalloc_figure_is_the_simulators) {
  says("02-cuda-toolbox", "about 50 microseconds per call for blocks up to 512 KB");
  on_every_profile("allocator", "{\"block_mib\":1,\"cycles\":20}", "cuda_malloc_us", 50 * 0.8, 50 * 1.25);
  /* …and more for larger ones. */
  lab_error err;
  cJSON *big = test_exp_simulate("allocator", "{\"block_mib\":1024,\"cycles\":20,\"limit_gib\":2}", NULL, &err);
  ck_assert_ptr_nonnull(big);
  ck_assert(test_exp_metric(big, "cuda_malloc_us") > 100);
  cJSON_Delete(big);
}
END_TEST

START_TEST(lesson1_launch_and_copy_costs_are_the_simulators) {
  says("01-cuda-intuition", "Every operation is a kernel launch, a few microseconds of CPU time");
  on_profiles(LAB_PLATFORM_CUDA, "timing", "{\"size\":256,\"repeats\":20}", "launch_us", 1, 10);
  /* …and more elsewhere, as the section on your own GPU says. */
  says("01-cuda-intuition", "about 20 µs of CPU time on a Mac and about 10 on an AMD card");
  on_profiles(LAB_PLATFORM_MPS, "timing", "{\"size\":256,\"repeats\":20}", "launch_us", 20 * 0.75, 20 * 1.25);
  on_profiles(LAB_PLATFORM_ROCM, "timing", "{\"size\":256,\"repeats\":20}", "launch_us", 10 * 0.75, 10 * 1.25);
  on_every_profile("timing", "{\"size\":256,\"repeats\":20,\"view\":\"cuda\"}", "launch_us", 1, 10);
  says("01-cuda-intuition", "Each copy has a fixed cost** of several microseconds");
  on_every_profile("transfer", NULL, "per_copy_overhead_us", 2, 20);
  says("02-cuda-toolbox", "On an NVIDIA GPU every kernel launch costs the CPU a few microseconds");
  on_profiles(LAB_PLATFORM_CUDA, "graphs", "{\"sweep\":false}", "eager_launch_per_kernel_us", 1, 10);
}
END_TEST

START_TEST(lesson1_bandwidth_orders_are_the_simulators) {
  says("01-cuda-intuition", "tens of GB/s at best, against hundreds or thousands of GB/s inside GPU memory");
  on_every_profile("transfer", NULL, "h2d_pinned_gbps", 5, 100); /* "tens" at best: a Gen3 T4 reaches ~10 */
  for (int i = 0; i < lab_profile_count(); i++) {
    double bw = lab_profile_at(i)->mem_bw_gbps;
    ck_assert_msg(bw >= 100 && bw < 10000, "%s memory %g GB/s", lab_profile_at(i)->name, bw);
  }
  says("01-cuda-intuition", "4096×4096 matrix it is about 137 billion operations");
  ck_assert(fabs(2.0 * 4096 * 4096 * 4096 / 137e9 - 1) < 0.01);
}
END_TEST

Suite *make_lesson_figures_suite(void) {
  Suite *s = suite_create("lesson_figures");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, lesson2_cudamalloc_figure_is_the_simulators);
  tcase_add_test(tc, lesson1_launch_and_copy_costs_are_the_simulators);
  tcase_add_test(tc, lesson1_bandwidth_orders_are_the_simulators);
  suite_add_tcase(s, tc);
  return s;
}
