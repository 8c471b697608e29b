/* memory: the budget arithmetic, the caching allocator's rules (reuse,
 * merge, limit, device OOM), the walk's allocated/reserved story, the
 * deliberate OOM and its fixes, and free memory coming back on every profile. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caching_alloc.h"
#include "cjson_compat.h"
#include "envelope.h"
#include "exp_test.h"
#include "memory.h"
#include "suites.h"

#define MIB (1024ull * 1024ull)

static cJSON *sim(const char *json, const char *profile) {
  lab_error err;
  memset(&err, 0, sizeof err);
  cJSON *env = test_exp_simulate("memory", json, profile, &err);
  ck_assert_msg(env != NULL, "simulate failed: %s", err.message);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  return env;
}

static const cJSON *details(const cJSON *env, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), key);
}

/* A fake device of `cap` bytes for the allocator tests. */
typedef struct fake {
  uint64_t cap, used;
  uintptr_t next;
} fake;

static int fake_reserve(void *ctx, uint64_t bytes, uintptr_t *addr) {
  fake *f = ctx;
  if (f->used + bytes > f->cap) return -1;
  f->used += bytes;
  *addr = f->next;
  f->next += bytes;
  return 0;
}

static void fake_release(void *ctx, uintptr_t addr, uint64_t bytes) {
  (void)addr;
  ((fake *)ctx)->used -= bytes;
}

static lab_pool *new_pool(fake *f, uint64_t limit) {
  lab_pool *a = malloc(sizeof *a);
  ck_assert_ptr_nonnull(a);
  lab_pool_init(a, (lab_pool_backend){.ctx = f, .reserve = fake_reserve, .release = fake_release}, limit);
  return a;
}

START_TEST(memory_floor_is_16_bytes_per_param) {
  lab_mem_budget b;
  lab_memory_budget(124e6, 8, 1024, 768, 12, &b);
  ck_assert_uint_eq(b.weights, 496000000u);
  ck_assert_uint_eq(b.gradients, 496000000u);
  ck_assert_uint_eq(b.optimizer, 992000000u);
  ck_assert_uint_eq(b.activations, 8ull * 1024 * 768 * 12 * LAB_MEM_ACT_VALUES * LAB_MEM_ACT_BYTES);
  ck_assert_uint_eq(b.total, b.weights + b.gradients + b.optimizer + b.activations);
}
END_TEST

START_TEST(memory_max_batch_fits_and_one_more_does_not) {
  uint64_t usable = 10ull << 30;
  long n = lab_memory_max_batch(124e6, 1024, 768, 12, usable);
  ck_assert_int_gt(n, 0);
  lab_mem_budget b;
  lab_memory_budget(124e6, n, 1024, 768, 12, &b);
  ck_assert(b.total <= usable);
  lab_memory_budget(124e6, n + 1, 1024, 768, 12, &b);
  ck_assert(b.total > usable);
  ck_assert_int_eq(lab_memory_max_batch(1e12, 1024, 768, 12, usable), 0);
}
END_TEST

START_TEST(pool_reuses_cached_space_before_reserving) {
  fake f = {.cap = 1ull << 30, .next = 4096};
  lab_pool *a = new_pool(&f, 0);
  int id;
  uintptr_t addr, addr2;
  ck_assert_int_eq(lab_pool_alloc(a, 30 * MIB, &id, &addr), 0);
  ck_assert_uint_eq(a->reserved_bytes, 30 * MIB);
  lab_pool_free(a, id);
  ck_assert_uint_eq(a->allocated_bytes, 0);
  ck_assert_uint_eq(a->reserved_bytes, 30 * MIB); /* cached, not returned */
  ck_assert_int_eq(lab_pool_alloc(a, 20 * MIB, &id, &addr2), 0);
  ck_assert_int_eq(a->reserve_calls, 1);
  ck_assert(addr2 == addr);
  lab_pool_release_all(a);
  ck_assert_uint_eq(f.used, 0);
  free(a);
}
END_TEST

START_TEST(pool_small_requests_share_a_segment_and_merge_back) {
  fake f = {.cap = 1ull << 30, .next = 4096};
  lab_pool *a = new_pool(&f, 0);
  int ids[3];
  uintptr_t addr[3];
  for (int i = 0; i < 3; i++) ck_assert_int_eq(lab_pool_alloc(a, 1000, &ids[i], &addr[i]), 0);
  ck_assert_int_eq(a->reserve_calls, 1);
  ck_assert_uint_eq(a->reserved_bytes, lab_pool_segment_size(1000));
  ck_assert_uint_eq(a->allocated_bytes, 3 * 1024); /* rounded up to 512 */
  ck_assert(addr[1] == addr[0] + 1024);
  lab_pool_free(a, ids[1]);
  ck_assert_uint_eq(lab_pool_empty_cache(a), 0); /* part of the segment is still in use */
  lab_pool_free(a, ids[0]);
  lab_pool_free(a, ids[2]);
  ck_assert_uint_eq(lab_pool_empty_cache(a), 2 * MIB);
  ck_assert_uint_eq(a->reserved_bytes, 0);
  free(a);
}
END_TEST

START_TEST(pool_refuses_past_its_limit_and_when_the_device_is_full) {
  fake f = {.cap = 64 * MIB, .next = 4096};
  lab_pool *a = new_pool(&f, 100 * MIB);
  int id;
  uintptr_t addr;
  ck_assert_int_eq(lab_pool_alloc(a, 200 * MIB, &id, &addr), -1);
  ck_assert_int_eq(a->last_oom, LAB_POOL_OOM_LIMIT);
  ck_assert_int_eq(lab_pool_alloc(a, 80 * MIB, &id, &addr), -1);
  ck_assert_int_eq(a->last_oom, LAB_POOL_OOM_DEVICE);
  ck_assert_uint_eq(a->reserved_bytes, 0);
  ck_assert_int_eq(lab_pool_alloc(a, 40 * MIB, &id, &addr), 0);
  lab_pool_release_all(a);
  ck_assert_uint_eq(f.used, 0);
  free(a);
}
END_TEST

START_TEST(memory_reserved_stays_after_free_until_empty_cache) {
  cJSON *env = sim(NULL, "t4");
  const cJSON *steps = details(env, "steps");
  int freed = -1, emptied = -1;
  for (int i = 0; i < cJSON_GetArraySize(steps); i++) {
    const char *l = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(steps, i), "label")->valuestring;
    if (strncmp(l, "backward", 8) == 0) freed = i;
    if (strncmp(l, "empty_cache", 11) == 0) emptied = i;
  }
  ck_assert_int_ge(freed, 1);
  ck_assert_int_eq(emptied, freed + 1);
#define STEP(i, k) cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(steps, i), k)->valuedouble
  ck_assert(STEP(freed, "allocated_bytes") < STEP(freed - 1, "allocated_bytes"));
  ck_assert(STEP(freed, "reserved_bytes") == STEP(freed - 1, "reserved_bytes"));
  ck_assert(STEP(emptied, "reserved_bytes") < STEP(freed, "reserved_bytes"));
  ck_assert(STEP(freed, "device_used_bytes") >= STEP(freed, "reserved_bytes"));
#undef STEP
  ck_assert(test_exp_finding_has(env, "stayed reserved"));
  /* nvidia-smi's view starts at the CUDA context, not at 0 */
  ck_assert(test_exp_y(env, "device_used", 0) > 0);
  ck_assert(test_exp_finding_has(env, "the CUDA context"));
  ck_assert_ptr_nonnull(test_exp_series(env, "allocated"));
  ck_assert_ptr_nonnull(test_exp_series(env, "reserved"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(memory_deliberate_oom_is_caught_and_lists_the_fixes) {
  cJSON *env = sim(NULL, NULL);
  ck_assert_int_eq((int)test_exp_metric(env, "oom"), 1);
  ck_assert(test_exp_metric(env, "oom_requested_bytes") > 0);
  const cJSON *oom = details(env, "oom");
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(oom, "deliberate")));
  /* simulated: the over-ask is more than the device has free */
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(oom, "kind")->valuestring, "device");
  const cJSON *fixes = cJSON_GetObjectItemCaseSensitive(oom, "fixes");
  char all[2048] = "";
  const cJSON *f;
  cJSON_ArrayForEach(f, fixes) strncat(all, f->valuestring, sizeof all - strlen(all) - 1);
  /* the model fits: nothing to fix, and no batch advice that would contradict it */
  ck_assert_ptr_nonnull(strstr(all, "Nothing to fix in this model"));
  ck_assert_ptr_null(strstr(all, "Smaller batch"));
  cJSON_Delete(env);
}
END_TEST

/* A real run of 30M parameters at batch 32 on an A100: the step fits the
 * device but not the 1 GiB budget_gib cap. One verdict, tied to that cap, in
 * GiB, and fixes computed from the numbers (the batch that fits, the budget
 * that would do). */
START_TEST(memory_one_verdict_tied_to_the_budget_that_caused_it) {
  cJSON *env = test_exp_memory_capped("{\"params_m\":30,\"batch\":32}", "a100-sxm");
  ck_assert_int_eq((int)test_exp_metric(env, "fits"), 0);
  ck_assert_int_eq((int)test_exp_metric(env, "fits_device"), 1);
  ck_assert_int_eq((int)test_exp_metric(env, "limit_is_budget"), 1);
  ck_assert(test_exp_metric(env, "limit_bytes") == 1073741824.0);
  const cJSON *oom = details(env, "oom");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(oom, "deliberate")));
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(oom, "limit")->valuestring, "budget");
  const char *msg = cJSON_GetObjectItemCaseSensitive(oom, "message")->valuestring;
  ck_assert_ptr_nonnull(strstr(msg, "per-layer tensors of"));
  ck_assert_ptr_nonnull(strstr(msg, "budget_gib cap"));
  char all[4096] = "";
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(oom, "fixes")) strncat(all, f->valuestring, sizeof all - strlen(all) - 1);
  char want[96];
  snprintf(want, sizeof want, "Smaller batch: %.0f instead of 32 fits", test_exp_metric(env, "max_batch"));
  ck_assert_msg(strstr(all, want) != NULL, "%s in %s", want, all);
  ck_assert_ptr_nonnull(strstr(all, "Gradient accumulation"));
  ck_assert_ptr_nonnull(strstr(all, "raise budget_gib"));
  ck_assert_ptr_null(strstr(all, "floor alone"));
  /* The chart keeps the GPU's own free memory as its capacity line and
   * draws the cap beside it (the H100 lease drew the 1 GiB cap instead). */
  ck_assert(test_exp_y(env, "capacity", 0) * 1073741824.0 == test_exp_metric(env, "usable_bytes"));
  ck_assert(test_exp_y(env, "limit", 0) * 1073741824.0 == test_exp_metric(env, "limit_bytes"));
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "limit")),
                   cJSON_GetArraySize(test_exp_series(env, "capacity")));
  ck_assert_ptr_null(strstr(all, " GB")); /* memory is binary: GiB, never GB */
  ck_assert(test_exp_finding_has(env, "it does not fit"));
  ck_assert(test_exp_finding_has(env, "the run's budget_gib cap"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(memory_a_model_over_the_budget_fails_at_its_weights) {
  cJSON *env = test_exp_memory_capped("{\"params_m\":1000,\"budget_gib\":1}", NULL);
  const cJSON *oom = details(env, "oom");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(oom, "deliberate")));
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(oom, "step")->valuestring, "weights");
  const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(oom, "fixes"), 0);
  ck_assert_ptr_nonnull(strstr(first->valuestring, "floor alone"));
  /* the floor is the problem: no batch advice follows */
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(oom, "fixes"))
    ck_assert_ptr_null(strstr(f->valuestring, "Smaller batch"));
  ck_assert_int_eq((int)test_exp_metric(env, "free_restored"), 1);
  cJSON_Delete(env);
}
END_TEST

/* Simulated, a run has the profile's whole memory: 1,000 M parameters run
 * out on a T4 at the card's capacity, whatever budget_gib says, and fit an
 * H100; the same step that overflows a 1 GiB cap on a real run fits. */
START_TEST(memory_simulated_oom_comes_from_the_profile_capacity) {
  cJSON *env = sim("{\"params_m\":1000,\"budget_gib\":0.125,\"force_oom\":false}", "t4");
  const cJSON *oom = details(env, "oom");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(oom, "deliberate")));
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(oom, "kind")->valuestring, "device");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(oom, "limit")->valuestring, "device");
  ck_assert_int_eq((int)test_exp_metric(env, "limit_is_budget"), 0);
  ck_assert_int_eq((int)test_exp_metric(env, "fits_device"), 0);
  ck_assert(test_exp_finding_has(env, "budget_gib caps only real runs"));
  cJSON_Delete(env);
  env = sim("{\"params_m\":1000,\"budget_gib\":0.125,\"force_oom\":false}", "h100-sxm");
  ck_assert_int_eq((int)test_exp_metric(env, "oom"), 0);
  ck_assert_int_eq((int)test_exp_metric(env, "fits"), 1);
  cJSON_Delete(env);
  env = sim("{\"params_m\":30,\"batch\":32,\"force_oom\":false}", "t4");
  ck_assert_int_eq((int)test_exp_metric(env, "fits"), 1);
  cJSON_Delete(env);
}
END_TEST

START_TEST(memory_without_force_oom_a_fitting_model_has_no_oom) {
  cJSON *env = sim("{\"force_oom\":false}", NULL);
  ck_assert_int_eq((int)test_exp_metric(env, "oom"), 0);
  ck_assert(cJSON_IsNull(details(env, "oom")));
  cJSON_Delete(env);
}
END_TEST

START_TEST(memory_free_memory_returns_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *prof = lab_profile_at(i);
    cJSON *env = sim("{\"budget_gib\":8,\"params_m\":200}", prof->name);
    ck_assert_int_eq((int)test_exp_metric(env, "free_restored"), 1);
    ck_assert(test_exp_metric(env, "free_after_bytes") == test_exp_metric(env, "free_before_bytes"));
    ck_assert(test_exp_metric(env, "free_before_bytes") == (double)(prof->memory_bytes - prof->context_bytes));
    ck_assert(test_exp_metric(env, "peak_reserved_bytes") >= test_exp_metric(env, "peak_allocated_bytes"));
    ck_assert(test_exp_metric(env, "peak_reserved_bytes") <= test_exp_metric(env, "budget_bytes"));
    ck_assert(test_exp_finding_has(env, "all of it came back"));
    /* stacked terms and the capacity line share their x values */
    ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "activations")),
                     cJSON_GetArraySize(test_exp_series(env, "capacity")));
    ck_assert(test_exp_y(env, "capacity", 0) * 1073741824.0 == test_exp_metric(env, "usable_bytes"));
    ck_assert_ptr_null(test_exp_series(env, "limit")); /* uncapped: the device is the limit */
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(memory_bigger_gpus_fit_bigger_batches) {
  /* a bigger budget on the same GPU is the same question under the run's limit */
  cJSON *t4 = sim("{\"params_m\":124,\"seq_len\":1024,\"hidden\":768,\"layers\":12,\"budget_gib\":4}", "t4");
  cJSON *h100 = sim("{\"params_m\":124,\"seq_len\":1024,\"hidden\":768,\"layers\":12,\"budget_gib\":8}", "h100-sxm");
  ck_assert(test_exp_metric(h100, "max_batch") > test_exp_metric(t4, "max_batch"));
  char want[64];
  snprintf(want, sizeof want, "largest batch that fits is about %.0f", test_exp_metric(t4, "max_batch"));
  ck_assert(test_exp_finding_has(t4, want));
  cJSON_Delete(t4);
  cJSON_Delete(h100);
}
END_TEST

TEST_EXPERIMENT_SUITE(memory);

TEST_EXPERIMENT_SUITE(memory) {
  Suite *s = suite_create("memory");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, memory_floor_is_16_bytes_per_param);
  tcase_add_test(tc, memory_max_batch_fits_and_one_more_does_not);
  tcase_add_test(tc, pool_reuses_cached_space_before_reserving);
  tcase_add_test(tc, pool_small_requests_share_a_segment_and_merge_back);
  tcase_add_test(tc, pool_refuses_past_its_limit_and_when_the_device_is_full);
  tcase_add_test(tc, memory_reserved_stays_after_free_until_empty_cache);
  tcase_add_test(tc, memory_deliberate_oom_is_caught_and_lists_the_fixes);
  tcase_add_test(tc, memory_one_verdict_tied_to_the_budget_that_caused_it);
  tcase_add_test(tc, memory_a_model_over_the_budget_fails_at_its_weights);
  tcase_add_test(tc, memory_simulated_oom_comes_from_the_profile_capacity);
  tcase_add_test(tc, memory_without_force_oom_a_fitting_model_has_no_oom);
  tcase_add_test(tc, memory_free_memory_returns_on_every_profile);
  tcase_add_test(tc, memory_bigger_gpus_fit_bigger_batches);
  suite_add_tcase(s, tc);
  return s;
}
