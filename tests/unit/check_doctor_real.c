/* `gpulab doctor` on twelve real torch.profiler traces made by other
 * people (tests/doctor/real/, README.md there gives each one's source and
 * what a correct reading must and must not say, from the trace's own
 * events as facts.py prints them) and on three from gpulab's first GPU
 * lease, an H100 (tests/doctor/gpu/): the cold starts get the cold-start
 * finding naming the runtime call, the rank whose collective waited gets
 * the stream-wait finding naming it, CUPTI's range-profiler ops are GPU
 * work, an AMD device's numbers are not a compute capability, FP32 matmuls
 * on the CUDA cores are not tensor-core work, and no trace without the
 * evidence gets the launch-bound sentence. Each check reads the answer's
 * finding ids, facts and words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cjson_compat.h"
#include "doctor.h"
#include "doctor_test.h"
#include "suites.h"

#define GZ_MAX (64u << 20)

static cJSON *doctor_gz_in(const char *dir, const char *name) {
  char path[256];
  snprintf(path, sizeof path, "tests/doctor/%s/%s.json.gz", dir, name);
  gzFile f = gzopen(path, "rb");
  ck_assert_msg(f, "cannot open %s (run from the repository root)", path);
  size_t cap = 1u << 20, n = 0;
  char *b = malloc(cap);
  for (int got; (got = gzread(f, b + n, (unsigned)(cap - n))) > 0;) {
    n += (size_t)got;
    if (n == cap) {
      ck_assert_msg(cap < GZ_MAX, "%s is over %u bytes unpacked", path, GZ_MAX);
      b = realloc(b, cap *= 2);
    }
  }
  gzclose(f);
  lab_error err = {0};
  cJSON *j = lab_doctor_read(b, n, &err);
  free(b);
  ck_assert_msg(j, "doctor failed on %s: %s", name, err.message);
  return j;
}

static cJSON *doctor_gz(const char *name) { return doctor_gz_in("real", name); }

static const char *sfact(const cJSON *f, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), k);
  return cJSON_IsString(v) ? v->valuestring : "";
}

/* Whether any finding's words hold `words`. */
static int says(const cJSON *env, const char *words) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(f, "text");
    if (cJSON_IsString(t) && strstr(t->valuestring, words)) return 1;
  }
  return 0;
}

static const char launch_sentence[] = "cannot queue kernels fast enough";

/* The launch-bound verdict in neither form. */
static void no_launch_verdict(const cJSON *env, const char *name) {
  ck_assert_msg(!doctor_test_finding(env, "launch_bound"), "%s: launch_bound without its evidence", name);
  ck_assert_msg(!says(env, launch_sentence), "%s: the launch-bound sentence without its evidence", name);
}

START_TEST(doctor_real_cold_starts_name_the_runtime_call_and_the_warm_up) {
  static const struct {
    const char *trace, *call;
  } cold[] = {{"hta-simple-add-cold-a100", "cudaDeviceGetStreamPriorityRange"},
              {"hta-alexnet-cold-two-streams-a100", "cudaDeviceGetStreamPriorityRange"},
              {"hta-mi250-rocm62-minitoy", "hipLaunchKernel"}};
  for (size_t i = 0; i < sizeof cold / sizeof cold[0]; i++) {
    cJSON *env = doctor_gz(cold[i].trace);
    const cJSON *f = doctor_test_finding(env, "cold_start");
    ck_assert_msg(f, "%s: no cold_start finding", cold[i].trace);
    ck_assert_str_eq(sfact(f, "call"), cold[i].call);
    ck_assert_msg(strstr(cJSON_GetObjectItemCaseSensitive(f, "text")->valuestring, "torch.profiler.schedule"),
                  "%s: the cold start without the warm-up advice", cold[i].trace);
    ck_assert_msg(doctor_test_finding(env, "device"), "%s: no device finding", cold[i].trace);
    ck_assert_msg(!doctor_test_finding(env, "stream_wait"), "%s: a stream wait in a cold start", cold[i].trace);
    no_launch_verdict(env, cold[i].trace);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(doctor_real_the_mi250_is_read_as_an_amd_gpu_on_its_working_step) {
  cJSON *env = doctor_gz("hta-mi250-rocm62-minitoy");
  ck_assert_str_eq(sfact(doctor_test_finding(env, "cold_start"), "step"), "ProfilerStep#1"); /* not the 0.05 ms ProfilerStep#2 */
  ck_assert_msg(!says(env, "compute capability"), "an AMD GPU's gfx family called a compute capability");
  ck_assert_str_eq(sfact(doctor_test_finding(env, "device"), "gfx_family"), "9.0");
  ck_assert_msg(!says(env, "nvidia-smi"), "CUDA-only advice on an AMD trace");
  cJSON_Delete(env);
}
END_TEST

START_TEST(doctor_real_a_collective_that_waited_is_a_stream_wait) {
  cJSON *env = doctor_gz("hta-sampled-rank0-of-128");
  const cJSON *f = doctor_test_finding(env, "stream_wait");
  ck_assert_msg(f, "no stream_wait finding");
  ck_assert_msg(strstr(sfact(f, "waited_on"), "ncclKernel_SendRecv"), "waited on %s", sfact(f, "waited_on"));
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), "collective")));
  ck_assert_msg(!doctor_test_finding(env, "gpu_idle"), "the collective's wait blamed on the host");
  no_launch_verdict(env, "hta-sampled-rank0-of-128");
  cJSON_Delete(env);
}
END_TEST

START_TEST(doctor_real_range_profiler_ops_are_gpu_work_with_inflated_times) {
  cJSON *env = doctor_gz("hta-cupti-profiler-range-a100");
  ck_assert_msg(!doctor_test_finding(env, "cpu_only"), "cuda_profiler_range ops read as a CPU-only trace");
  const cJSON *t = doctor_test_finding(env, "gpu_time");
  ck_assert_msg(t && strstr(cJSON_GetObjectItemCaseSensitive(t, "text")->valuestring, "range profiler"),
                "the replaying profiler not said");
  ck_assert(doctor_test_finding(env, "device"));
  no_launch_verdict(env, "hta-cupti-profiler-range-a100");
  cJSON_Delete(env);
}
END_TEST

START_TEST(doctor_real_no_launch_verdict_without_its_evidence) {
  static const char *const traces[] = {"hta-nccl-two-ranks-a100", "hta-event-sync-a100", "hta-event-sync-multi-stream-a100",
                                       "hta-inference-old-categories-rank1", "hta-triton-cuda-driver-a100",
                                       "kineto-tb-resnet50-v100-workers0"};
  for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
    cJSON *env = doctor_gz(traces[i]);
    ck_assert_msg(doctor_test_finding(env, "gpu_time"), "%s: its GPU work not read", traces[i]);
    no_launch_verdict(env, traces[i]);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(doctor_real_the_data_loader_and_pageable_copies_are_named) {
  cJSON *env = doctor_gz("kineto-tb-resnet50-v100-workers0");
  ck_assert_str_eq(sfact(doctor_test_finding(env, "gpu_idle"), "host"), "data_loader");
  ck_assert(doctor_test_finding(env, "host_to_device"));
  ck_assert_str_eq(sfact(doctor_test_finding(env, "device"), "device"), "Tesla V100-DGXS-32GB");
  cJSON_Delete(env);
  env = doctor_gz("hta-alexnet-cold-two-streams-a100");
  ck_assert(doctor_test_finding(env, "host_to_device"));
  cJSON_Delete(env);
}
END_TEST

/* The host operator in the largest gap, checked against the trace's own
 * events (facts.py; README.md): nccl rank 0's 15.72 ms gap at 9.159 ms into
 * ProfilerStep#4 holds one aten::unflatten_dense_tensors of 15.25 ms inside
 * DistributedDataParallel.forward; event-sync's first 2.81 ms, aten::ones
 * with aten::empty inside; alexnet's cold gap is the first aten::to. Where
 * no operator covers the gap (three streams, the old categories, the
 * compiled region's 13.3 s) it stays time the trace does not record. */
START_TEST(doctor_real_the_host_operator_in_a_gap_is_named) {
  static const struct {
    const char *trace, *id, *op, *inner, *region;
  } named[] = {{"hta-nccl-two-ranks-a100", "gpu_idle", "aten::unflatten_dense_tensors", NULL, "DistributedDataParallel.forward"},
               {"hta-event-sync-a100", "gpu_idle", "aten::ones", "aten::empty", NULL},
               {"hta-alexnet-cold-two-streams-a100", "cold_start", "aten::to", "cudaDeviceGetStreamPriorityRange", "[param|cuda]"},
               {"hta-mi250-rocm62-minitoy", "cold_start", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                "hipLaunchKernel", NULL}};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    cJSON *env = doctor_gz(named[i].trace);
    const cJSON *f = doctor_test_finding(env, named[i].id);
    ck_assert_msg(f, "%s: no %s", named[i].trace, named[i].id);
    ck_assert_str_eq(sfact(f, "host_op"), named[i].op);
    ck_assert_str_eq(sfact(f, "host_op_inner"), named[i].inner ? named[i].inner : "");
    ck_assert_str_eq(sfact(f, "host_region"), named[i].region ? named[i].region : "");
    if (!strcmp(named[i].id, "gpu_idle")) {
      ck_assert_str_eq(sfact(f, "host"), "host_op");
      ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(f, "certainty")->valuestring, "likely");
    }
    no_launch_verdict(env, named[i].trace);
    cJSON_Delete(env);
  }
  cJSON *env = doctor_gz("hta-nccl-two-ranks-a100");
  const cJSON *facts = cJSON_GetObjectItemCaseSensitive(doctor_test_finding(env, "gpu_idle"), "facts");
  ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(facts, "host_op_ms")->valuedouble, 15.254, 1e-9);
  ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(facts, "host_op_gap_pct")->valuedouble, 97.0, 1e-9);
  cJSON_Delete(env);
  static const char *const unnamed[] = {"hta-event-sync-multi-stream-a100", "hta-inference-old-categories-rank1",
                                        "hta-triton-cuda-driver-a100"};
  for (size_t i = 0; i < sizeof unnamed / sizeof unnamed[0]; i++) {
    env = doctor_gz(unnamed[i]);
    const cJSON *f = doctor_test_finding(env, "gpu_idle");
    ck_assert_str_eq(sfact(f, "host"), "not_recorded");
    ck_assert_str_eq(sfact(f, "host_op"), "");
    cJSON_Delete(env);
  }
}
END_TEST

/* gpulab's own CPU traces (tests/doctor/ours, written by Debian's torch
 * 1.13 through tests/doctor/torch_cpu_ops.py; README.md there lists the
 * events checked): each CPU-only reading names the step's longest call. */
START_TEST(doctor_ours_cpu_traces_name_the_longest_host_call) {
  static const struct {
    const char *trace, *step, *op, *inner;
    double steps, ms, pct;
  } ours[] = {
      /* a Dataset sleeping 1 ms an item: __next__ at ts 101 for 23050 us of ProfilerStep#1's 24009 */
      {"cpu-slow-loader-item", "ProfilerStep#1", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", NULL, 3,
       23.05, 96.0},
      /* no schedule: no ProfilerStep; the first __next__ (ts 1548, 34552 us) holds the loader's start */
      {"cpu-step-no-schedule", "the whole trace", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", NULL, 0,
       34.552, 48.4},
      /* with the schedule: ProfilerStep#3's AddmmBackward0 (4552 us) with its aten::mm inside */
      {"cpu-step-schedule", "ProfilerStep#3", "autograd::engine::evaluate_function: AddmmBackward0", "aten::mm", 3, 4.552,
       90.4}};
  for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
    cJSON *env = doctor_gz_in("ours", ours[i].trace);
    const cJSON *f = doctor_test_finding(env, "cpu_only"), *facts = cJSON_GetObjectItemCaseSensitive(f, "facts");
    ck_assert_msg(f, "%s: not read as a CPU-only trace", ours[i].trace);
    ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "trace"), "profiler_steps")->valuedouble,
                        ours[i].steps);
    ck_assert_str_eq(sfact(f, "step"), ours[i].step);
    ck_assert_str_eq(sfact(f, "host_op"), ours[i].op);
    ck_assert_str_eq(sfact(f, "host_op_inner"), ours[i].inner ? ours[i].inner : "");
    ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(facts, "host_op_ms")->valuedouble, ours[i].ms, 1e-9);
    ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(facts, "host_op_step_pct")->valuedouble, ours[i].pct, 1e-9);
    ck_assert_msg(says(env, ours[i].op), "%s: the call not in the words", ours[i].trace);
    ck_assert_msg(!doctor_test_finding(env, "gpu_idle"), "%s: a GPU finding on a CPU trace", ours[i].trace);
    cJSON_Delete(env);
  }
}
END_TEST

static double nfact(const cJSON *f, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), k);
  ck_assert_msg(cJSON_IsNumber(v), "no number %s", k);
  return v->valuedouble;
}

/* The first GPU lease's traces (tests/doctor/gpu, an H100 with PyTorch
 * 2.11; README.md there), each reading checked against the trace's own
 * events (tests/doctor/real/facts.py): the cold step's 262.27 ms gap holds
 * the context's cudaDeviceGetStreamPriorityRange for 122.09 ms (47 %; the
 * rest is the model's weights initialised on the CPU); the warm step waits
 * 10.19 ms of its 10.50 ms gap in DataLoader __next__; the kit's step in
 * aten::randn for 3.45 ms; 12 pageable copies of 90386472 bytes in the cold
 * trace (the model's weights and 3 batches), 6 of 6303744 in the others;
 * every matmul kernel is sm80_xmma_..._ffma or cutlass_80_simt_sgemm: FP32
 * on the CUDA cores, none on tensor cores; a third of the warm trace's GPU
 * time is AdamW's multi_tensor_apply kernels (2248 of 6909 us). */
START_TEST(doctor_gpu_the_h100_lease_traces_are_read_as_their_events_say) {
  static const struct {
    const char *trace, *id, *step, *host, *what;
    double gap_ms, what_ms, copies, bytes, elementwise_min;
  } h100[] = {
      {"nvidia-h100-80gb-hbm3-train-cold", "cold_start", "ProfilerStep#0", "cold_start", "cudaDeviceGetStreamPriorityRange",
       262.265, 122.094, 12, 90386472, 5},
      {"nvidia-h100-80gb-hbm3-train-warm", "gpu_idle", "ProfilerStep#4", "data_loader",
       "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10.504, 10.187, 6, 6303744, 30},
      {"nvidia-h100-80gb-hbm3-kit-profile", "gpu_idle", "ProfilerStep#1", "host_op", "aten::randn", 3.838, 3.447, 6,
       6303744, 5}};
  for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++) {
    cJSON *env = doctor_gz_in("gpu", h100[i].trace);
    const cJSON *f = doctor_test_finding(env, h100[i].id);
    ck_assert_msg(f, "%s: no %s finding", h100[i].trace, h100[i].id);
    ck_assert_str_eq(sfact(f, "step"), h100[i].step);
    ck_assert_str_eq(sfact(f, "host"), h100[i].host);
    ck_assert_double_eq_tol(nfact(f, "largest_gap_ms"), h100[i].gap_ms, 1e-9);
    int cold = !strcmp(h100[i].id, "cold_start");
    ck_assert_str_eq(sfact(f, cold ? "call" : "host_op"), h100[i].what);
    ck_assert_double_eq_tol(nfact(f, cold ? "call_ms" : "host_op_ms"), h100[i].what_ms, 1e-9);
    if (cold) ck_assert_msg(says(env, "for 122.09 ms of it (47%)"), "the call's share of the gap not said");
    else ck_assert_msg(!doctor_test_finding(env, "cold_start"), "%s: a warm step read as cold", h100[i].trace);
    const cJSON *c = doctor_test_finding(env, "host_to_device"), *t = doctor_test_finding(env, "gpu_time");
    ck_assert_msg(c && t, "%s: no host_to_device or gpu_time", h100[i].trace);
    ck_assert_double_eq(nfact(c, "pageable_copies"), h100[i].copies);
    ck_assert_double_eq(nfact(c, "pageable_bytes"), h100[i].bytes);
    ck_assert_double_eq(nfact(c, "pinned_copies"), 0);
    ck_assert_double_eq(nfact(t, "tensor_core_matmul_pct"), 0);
    ck_assert_msg(says(env, "allow_tf32"), "%s: FP32 matmuls without the TF32 advice", h100[i].trace);
    ck_assert_double_ge(nfact(t, "elementwise_pct"), h100[i].elementwise_min);
    ck_assert_str_eq(sfact(doctor_test_finding(env, "device"), "device"), "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(sfact(doctor_test_finding(env, "device"), "compute_capability"), "9.0");
    no_launch_verdict(env, h100[i].trace);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(doctor_real_a_cpu_only_rank_says_nothing_of_a_gpu) {
  cJSON *env = doctor_gz("hta-cpu-only-gloo-rank34");
  ck_assert(doctor_test_finding(env, "cpu_only"));
  static const char *const gpu_ids[] = {"gpu_idle", "stream_wait", "cold_start", "launch_bound", "gpu_time", "host_to_device"};
  for (size_t i = 0; i < sizeof gpu_ids / sizeof gpu_ids[0]; i++)
    ck_assert_msg(!doctor_test_finding(env, gpu_ids[i]), "a CPU-only trace got %s", gpu_ids[i]);
  cJSON_Delete(env);
}
END_TEST

Suite *make_doctor_real_suite(void) {
  Suite *s = suite_create("doctor_real");
  TCase *tc = tcase_create("real");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, doctor_real_cold_starts_name_the_runtime_call_and_the_warm_up);
  tcase_add_test(tc, doctor_real_the_mi250_is_read_as_an_amd_gpu_on_its_working_step);
  tcase_add_test(tc, doctor_real_a_collective_that_waited_is_a_stream_wait);
  tcase_add_test(tc, doctor_real_range_profiler_ops_are_gpu_work_with_inflated_times);
  tcase_add_test(tc, doctor_real_no_launch_verdict_without_its_evidence);
  tcase_add_test(tc, doctor_real_the_data_loader_and_pageable_copies_are_named);
  tcase_add_test(tc, doctor_real_a_cpu_only_rank_says_nothing_of_a_gpu);
  tcase_add_test(tc, doctor_real_the_host_operator_in_a_gap_is_named);
  tcase_add_test(tc, doctor_ours_cpu_traces_name_the_longest_host_call);
  tcase_add_test(tc, doctor_gpu_the_h100_lease_traces_are_read_as_their_events_say);
  suite_add_tcase(s, tc);
  return s;
}
