/* `allocator`: parameter bounds and the limit check, the simulated
 * envelope's shape, the caching allocator's physics on every built-in
 * profile (cache far cheaper than the driver, cudaFree waits for a busy
 * device, reuse after step 1, empty_cache() down to what is allocated,
 * fragmentation needing new memory), an out-of-memory as a result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocator.h"
#include "envelope.h"
#include "exp_test.h"
#include "profiles.h"
#include "suites.h"

#define MIB (1024.0 * 1024.0)

START_TEST(allocator_rejects_a_walk_over_the_limit) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("allocator", "{\"layers\":32,\"weight_mib\":1024}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "weight_mib");
  ck_assert_ptr_nonnull(strstr(err.message, "limit_gib"));
  ck_assert_ptr_null(test_exp_simulate("allocator", "{\"frag_mib\":256,\"frag_blocks\":64}", NULL, &err));
  ck_assert_str_eq(err.param, "frag_mib");
  ck_assert_ptr_null(test_exp_simulate("allocator", "{\"block_mib\":1024,\"limit_gib\":0.5}", NULL, &err));
  ck_assert_str_eq(err.param, "block_mib");
  /* The same walk fits when the limit is raised (the 8 GiB maximum). */
  cJSON *env = test_exp_simulate("allocator", "{\"layers\":8,\"weight_mib\":256,\"limit_gib\":8}", NULL, &err);
  ck_assert_ptr_nonnull(env);
  cJSON_Delete(env);
}
END_TEST

START_TEST(allocator_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("allocator", "{\"steps\":2,\"layers\":4,\"cycles\":20}", "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  const char *keys[] = {"cuda_malloc_us", "cuda_free_us", "cuda_free_busy_us", "cache_alloc_free_us",
                        "cache_speedup", "peak_allocated_bytes", "peak_reserved_bytes", "cuda_malloc_calls_step1",
                        "before_empty_reserved_bytes", "after_empty_reserved_bytes", "empty_cache_released_bytes",
                        "frag_free_in_cache_bytes", "frag_largest_free_bytes", "frag_request_bytes",
                        "frag_reserved_after_bytes", "block_bytes"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert_msg(test_exp_metric(env, keys[i]) > 0, "%s", keys[i]);
  test_exp_metric(env, "cuda_malloc_calls_later_steps");
  /* start, weights, 2 steps × (4 forward + 4 backward), empty_cache, everything freed */
  int n = 2 + 2 * 2 * 4 + 2;
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "allocated")), n);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "reserved")), n);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "device_used")), n);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "cuda_malloc")), 20);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "cache")), 20);
  cJSON *ev = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "events");
  ck_assert_int_eq(cJSON_GetArraySize(ev), n);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ev, n - 2), "label")->valuestring,
                   "empty_cache()");
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(env, "stats");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(stats, "median_of")->valuestring, "cuda_malloc_us");
  ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(stats, "samples")->valueint, 20);
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(env, "validated")); /* simulated: not checked */
  cJSON_Delete(env);
}
END_TEST

START_TEST(allocator_cache_beats_the_driver_and_cudafree_waits_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("allocator", NULL, p->name, &err);
    ck_assert_ptr_nonnull(env);
    double cache = test_exp_metric(env, "cache_alloc_free_us");
    ck_assert(cache * 10 < test_exp_metric(env, "cuda_malloc_us") + test_exp_metric(env, "cuda_free_us"));
    ck_assert(test_exp_metric(env, "cache_speedup") > 10);
    /* cudaFree behind a 500 µs kernel waits for most of it. */
    ck_assert(test_exp_metric(env, "cuda_free_busy_us") > 0.9 * LAB_ALLOC_BUSY_US);
    ck_assert(test_exp_metric(env, "cuda_free_busy_us") > 5 * test_exp_metric(env, "cuda_free_us"));
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(allocator_bigger_blocks_cost_the_driver_more) {
  lab_error err;
  cJSON *a = test_exp_simulate("allocator", "{\"block_mib\":2}", "h100-sxm", &err);
  cJSON *b = test_exp_simulate("allocator", "{\"block_mib\":1024}", "h100-sxm", &err);
  ck_assert(test_exp_metric(b, "cuda_malloc_us") > 2 * test_exp_metric(a, "cuda_malloc_us"));
  ck_assert(test_exp_metric(b, "cuda_free_us") > test_exp_metric(a, "cuda_free_us"));
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

START_TEST(allocator_steps_reuse_the_cache_and_empty_cache_keeps_live_tensors_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("allocator", "{\"steps\":4}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    /* 8 activations + 8 gradients, each its own segment; none after step 1. */
    ck_assert_int_eq((int)test_exp_metric(env, "cuda_malloc_calls_step1"), 16);
    ck_assert_int_eq((int)test_exp_metric(env, "cuda_malloc_calls_later_steps"), 0);
    double w = 8 * 32 * MIB, a = 8 * 24 * MIB;
    ck_assert(test_exp_metric(env, "peak_allocated_bytes") == 2 * w + a);
    ck_assert(test_exp_metric(env, "peak_reserved_bytes") == 2 * w + a);
    /* Before: weights + gradients allocated, their segments and the activations' reserved. */
    ck_assert(test_exp_metric(env, "before_empty_allocated_bytes") == 2 * w);
    ck_assert(test_exp_metric(env, "before_empty_reserved_bytes") == 2 * w + a);
    /* After: reserved falls to what is allocated; allocated does not move. */
    ck_assert(test_exp_metric(env, "after_empty_allocated_bytes") == 2 * w);
    ck_assert(test_exp_metric(env, "after_empty_reserved_bytes") == 2 * w);
    ck_assert(test_exp_metric(env, "empty_cache_released_bytes") == a);
    ck_assert(test_exp_metric(env, "after_empty_device_used_bytes") < test_exp_metric(env, "before_empty_device_used_bytes"));
    /* Reserved never drops below allocated, and the driver sees the reserved segments. */
    const cJSON *al = test_exp_series(env, "allocated");
    for (int k = 0; k < cJSON_GetArraySize(al); k++) {
      ck_assert(test_exp_y(env, "reserved", k) >= test_exp_y(env, "allocated", k));
      /* nvidia-smi's view: the reserved segments plus the CUDA context, never less */
      ck_assert(fabs(test_exp_y(env, "device_used", k) - test_exp_y(env, "reserved", k) -
                     test_exp_y(env, "device_used", 0)) < 1e-6);
      ck_assert(test_exp_y(env, "device_used", 0) > 0);
    }
    ck_assert(test_exp_y(env, "reserved", cJSON_GetArraySize(al) - 1) == 0);
    cJSON_Delete(env);
  }
}
END_TEST

/* Activations larger than the gradients: step 1's gradients are carved from
 * freed activation segments, so step 2's activations need new segments. */
START_TEST(allocator_split_blocks_make_later_steps_call_cudamalloc) {
  lab_error err;
  cJSON *env = test_exp_simulate("allocator", "{\"act_mib\":48}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert(test_exp_metric(env, "cuda_malloc_calls_later_steps") > 0);
  ck_assert(test_exp_metric(env, "peak_reserved_bytes") > test_exp_metric(env, "peak_allocated_bytes"));
  ck_assert(test_exp_finding_has(env, "split for other tensors"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(allocator_fragmentation_needs_new_memory_although_the_cache_has_enough) {
  for (int i = 0; i < lab_profile_count(); i++) {
    lab_error err;
    cJSON *env = test_exp_simulate("allocator", NULL, lab_profile_at(i)->name, &err);
    ck_assert_ptr_nonnull(env);
    /* 10 blocks of 4 MiB in two 20 MiB segments; 5 freed, none adjacent. */
    ck_assert(test_exp_metric(env, "frag_free_in_cache_bytes") == 20 * MIB);
    ck_assert(test_exp_metric(env, "frag_largest_free_bytes") == 4 * MIB);
    ck_assert_int_eq((int)test_exp_metric(env, "frag_free_pieces"), 5);
    ck_assert(test_exp_metric(env, "frag_request_bytes") == 8 * MIB);
    ck_assert(test_exp_metric(env, "frag_reserved_before_bytes") == 40 * MIB);
    ck_assert(test_exp_metric(env, "frag_reserved_after_bytes") == 60 * MIB);
    ck_assert_int_eq((int)test_exp_metric(env, "frag_new_segments"), 1);
    /* Every segment still holds a live block: empty_cache() returns nothing. */
    ck_assert(test_exp_metric(env, "frag_reserved_after_empty_bytes") == 60 * MIB);
    ck_assert(test_exp_metric(env, "frag_allocated_after_empty_bytes") == 28 * MIB);
    cJSON_Delete(env);
  }
  /* Blocks over 10 MiB get segments of their own: freed ones go back. */
  lab_error err;
  cJSON *env = test_exp_simulate("allocator", "{\"frag_mib\":32,\"frag_blocks\":6}", "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert(test_exp_metric(env, "frag_request_bytes") == 64 * MIB);
  ck_assert(test_exp_metric(env, "frag_reserved_after_bytes") == 256 * MIB);
  ck_assert(test_exp_metric(env, "frag_reserved_after_empty_bytes") == 160 * MIB);
  ck_assert(test_exp_finding_has(env, "empty_cache() returned all of them"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(allocator_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("allocator", NULL, "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  char want[160];
  snprintf(want, sizeof want, "cudaMalloc of a 16.0 MiB block took %.1f µs and cudaFree %.1f µs",
           test_exp_metric(env, "cuda_malloc_us"), test_exp_metric(env, "cuda_free_us"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  ck_assert(test_exp_finding_has(env, "cudaFree synchronizes the device"));
  ck_assert(test_exp_finding_has(env, "called 16 times in step 1 and 0 times after it"));
  ck_assert(test_exp_finding_has(env, "In step 3 allocated swung between 512 MiB and 704 MiB while reserved held at 704 MiB"));
  ck_assert(test_exp_finding_has(env, "empty_cache() gave back 192 MiB: reserved fell from 704 MiB to 512 MiB"));
  ck_assert(test_exp_finding_has(env, "20.0 MiB free in 5 pieces, the largest 4.00 MiB; a request for 8.00 MiB"));
  cJSON_Delete(env);
}
END_TEST

/* A device with little memory: the walk stops, gives everything back and
 * the envelope says where it ran out. */
typedef struct tiny {
  uint64_t cap, used;
} tiny;
static int tiny_reserve(void *ctx, uint64_t bytes, uintptr_t *addr) {
  tiny *t = ctx;
  if (t->used + bytes > t->cap) return -1;
  *addr = 4096 + t->used;
  t->used += bytes;
  return 0;
}
static void tiny_release(void *ctx, uintptr_t addr, uint64_t bytes) {
  (void)addr;
  ((tiny *)ctx)->used -= bytes;
}
static int tiny_info(void *ctx, uint64_t *f, uint64_t *t) {
  *t = ((tiny *)ctx)->cap;
  *f = *t - ((tiny *)ctx)->used;
  return 0;
}

START_TEST(allocator_device_oom_is_a_result_and_frees_everything) {
  lab_params p;
  lab_error err;
  const lab_experiment *e = lab_experiment_find("allocator");
  lab_params_init(&p, e->params, e->n_params);
  tiny t = {.cap = (uint64_t)(300 * MIB), .used = 0};
  lab_pool_device dev = {.be = {.ctx = &t, .reserve = tiny_reserve, .release = tiny_release}, .ctx = &t,
                          .info = tiny_info, .check = NULL};
  lab_allocator_measure *m = calloc(1, sizeof *m);
  ck_assert_int_eq(lab_allocator_walk(&p, &dev, m, &err), 0);
  ck_assert_int_eq(m->oom, 1);
  ck_assert_str_eq(m->oom_where, "step 1 forward");
  ck_assert(t.used == 0);
  ck_assert_str_eq(m->pt[m->n_points - 1].label, "everything freed");
  m->cycles = 10;
  m->busy_samples = 1;
  cJSON *env = lab_allocator_envelope(&p, m, "cuda", "tiny", NULL);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  ck_assert(test_exp_finding_has(env, "ran out of memory at \"step 1 forward\""));
  cJSON_Delete(env);
  free(m);
}
END_TEST

START_TEST(allocator_simulation_is_deterministic_and_has_a_spread) {
  lab_error err;
  cJSON *a = test_exp_simulate("allocator", "{\"cycles\":30}", "rtx-4090", &err);
  cJSON *b = test_exp_simulate("allocator", "{\"cycles\":30}", "rtx-4090", &err);
  char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
  ck_assert_str_eq(ta, tb);
  double lo = 1e30, hi = 0;
  for (int i = 0; i < 30; i++) {
    double y = test_exp_y(a, "cuda_malloc", i);
    lo = y < lo ? y : lo;
    hi = y > hi ? y : hi;
  }
  ck_assert(hi > lo);
  free(ta);
  free(tb);
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

TEST_EXPERIMENT_SUITE(allocator);

TEST_EXPERIMENT_SUITE(allocator) {
  Suite *s = suite_create("allocator");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, allocator_rejects_a_walk_over_the_limit);
  tcase_add_test(tc, allocator_simulated_envelope_has_its_shape);
  tcase_add_test(tc, allocator_cache_beats_the_driver_and_cudafree_waits_on_every_profile);
  tcase_add_test(tc, allocator_bigger_blocks_cost_the_driver_more);
  tcase_add_test(tc, allocator_steps_reuse_the_cache_and_empty_cache_keeps_live_tensors_on_every_profile);
  tcase_add_test(tc, allocator_split_blocks_make_later_steps_call_cudamalloc);
  tcase_add_test(tc, allocator_fragmentation_needs_new_memory_although_the_cache_has_enough);
  tcase_add_test(tc, allocator_findings_quote_the_measured_numbers);
  tcase_add_test(tc, allocator_device_oom_is_a_result_and_frees_everything);
  tcase_add_test(tc, allocator_simulation_is_deterministic_and_has_a_spread);
  suite_add_tcase(s, tc);
  return s;
}
