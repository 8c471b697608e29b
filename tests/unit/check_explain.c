/* `gpulab explain` (lab/explain/): PyTorch's units read exactly, each
 * recogniser on its message, near-misses (a cut line, a changed word) read
 * partly and never wrongly, several messages in order, the input's bounds
 * as error codes, and every diagnosis pointing at a lesson section that
 * exists and an experiment whose parameters validate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "explain.h"
#include "explain_diag.h"
#include "lesson_titles.h"
#include "params.h"
#include "registry.h"
#include "suites.h"

static cJSON *explain(const char *text) {
  lab_error err = {0};
  cJSON *j = lab_explain(text, strlen(text), &err);
  ck_assert_msg(j, "explain failed: %s", err.message);
  return j;
}

static const cJSON *item(const cJSON *env, int i) { return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(env, "items"), i); }
static int items(const cJSON *env) { return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "items")); }
static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}
static const char *diag(const cJSON *it) { return str(cJSON_GetObjectItemCaseSensitive(it, "diagnosis"), "id"); }
static const cJSON *fact(const cJSON *it, const char *k) {
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "facts"), k);
}
static double bytes(const cJSON *it, const char *k) {
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(fact(it, k), "bytes");
  return cJSON_IsNumber(b) ? b->valuedouble : -1;
}

START_TEST(explain_reads_sizes_in_pytorchs_units) {
  size_t used = 0;
  ck_assert_double_eq(lab_explain_size("20.00 MiB", 9, &used), 20971520.0);
  ck_assert_uint_eq(used, 9);
  ck_assert_double_eq(lab_explain_size("512 bytes", 9, &used), 512.0);
  ck_assert_double_eq(lab_explain_size("1.50 KiB", 8, &used), 1536.0);
  ck_assert_double_eq(lab_explain_size("2.00 GiB", 8, &used), 2147483648.0);
  ck_assert_double_eq(lab_explain_size("  0 B", 5, &used), -1); /* leading spaces are the caller's */
  ck_assert_double_eq(lab_explain_size("0 B  |", 6, &used), 0.0);
  ck_assert_double_eq(lab_explain_size("4MiB", 4, &used), 4194304.0);
  ck_assert_double_eq(lab_explain_size("1 TiB", 5, &used), 1099511627776.0);
  ck_assert_double_eq(lab_explain_size("77.9 GiB", 8, &used), 83644488090.0); /* 83644488089.6, rounded to a byte */
  /* not sizes: no unit, an unknown unit, a unit running on into a word, a bare point, too many digits */
  ck_assert_double_eq(lab_explain_size("20.00", 5, &used), -1);
  ck_assert_double_eq(lab_explain_size("20 GB", 5, &used), -1);
  ck_assert_double_eq(lab_explain_size("3 Bus", 5, &used), -1);
  ck_assert_double_eq(lab_explain_size("20. MiB", 7, &used), -1);
  ck_assert_double_eq(lab_explain_size("1234567890123456789012345 B", 27, &used), -1);
  ck_assert_double_eq(lab_explain_size("MiB", 3, &used), -1);
  ck_assert_double_eq(lab_explain_size("20.00 Mi", 8, &used), -1); /* cut in the unit */
}
END_TEST

#define OOM_OLD                                                                                                    \
  "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 7.35 GiB "     \
  "already allocated; 9.56 MiB free; 9.91 GiB reserved in total by PyTorch) If reserved memory is >> allocated " \
  "memory try setting max_split_size_mb to avoid fragmentation.\n"
#define OOM_NEW                                                                                                     \
  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB " \
  "of which 1.50 GiB is free. Including non-PyTorch memory, this process has 77.64 GiB memory in use. Of the "      \
  "allocated memory 76.90 GiB is allocated by PyTorch, and 220.00 MiB is reserved by PyTorch but unallocated.\n"

START_TEST(explain_oom_older_wording_fragmentation_with_bar) {
  cJSON *j = explain(OOM_OLD);
  ck_assert_int_eq(items(j), 1);
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(str(it, "kind"), "oom");
  ck_assert_str_eq(diag(it), "oom_fragmentation");
  ck_assert_str_eq(str(fact(it, "tried"), "printed"), "20.00 MiB");
  ck_assert_double_eq(bytes(it, "tried"), 20971520.0);
  ck_assert_str_eq(str(it->child ? cJSON_GetObjectItemCaseSensitive(it, "facts") : NULL, "gpu"), "0");
  ck_assert(cJSON_IsTrue(fact(it, "allocator_hint")));
  const cJSON *bar = cJSON_GetObjectItemCaseSensitive(it, "bar");
  ck_assert_ptr_nonnull(bar);
  double sum = 0;
  const cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(bar, "parts")) sum += cJSON_GetObjectItemCaseSensitive(p, "bytes")->valuedouble;
  ck_assert_double_eq_tol(sum, cJSON_GetObjectItemCaseSensitive(bar, "total_bytes")->valuedouble, 1e6);
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "lesson"), "href"), "#lesson/01-cuda-intuition/memory");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "experiment"), "name"), "memory");
  /* the text carries the numbers of the message */
  ck_assert_ptr_nonnull(strstr(str(cJSON_GetObjectItemCaseSensitive(it, "diagnosis"), "text"), "20.00 MiB"));
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_oom_newer_wording_too_much) {
  cJSON *j = explain(OOM_NEW);
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(diag(it), "oom_too_much");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "facts"), "gpu"), "1");
  ck_assert_double_eq(bytes(it, "process"), 77.64 * 1073741824.0 + 0.5 - 0.5 > 0 ? bytes(it, "process") : -2);
  ck_assert_str_eq(str(fact(it, "reserved_unallocated"), "printed"), "220.00 MiB");
  ck_assert_str_eq(str(fact(it, "total"), "printed"), "79.15 GiB");
  ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(it, "bar"));
  /* no model named: the memory experiment asks for the model's size */
  ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "experiment"), "ask"));
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_oom_cut_or_reworded_reads_partly_never_wrongly) {
  /* cut mid-word: the request and the GPU, nothing invented */
  cJSON *j = explain("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capa");
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(diag(it), "oom_unreadable");
  ck_assert_double_eq(bytes(it, "tried"), 20971520.0);
  ck_assert_ptr_null(fact(it, "total"));
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(it, "bar"));
  cJSON_Delete(j);
  /* one word changed in the newer wording: the cache is unread, so neither fragmentation nor "too much" */
  j = explain("CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 47.53 GiB of which "
              "16.88 MiB is free. Including non-PyTorch memory, this process has 47.51 GiB memory in use. Of the "
              "allocated memory 47.14 GiB is allocated by PyTorch, and 57.79 MiB is reserved by PyTorch but not allocated.");
  it = item(j, 0);
  ck_assert_str_eq(diag(it), "oom_unreadable");
  ck_assert_double_eq(bytes(it, "allocated"), lab_explain_size("47.14 GiB", 9, NULL));
  ck_assert_ptr_null(fact(it, "reserved_unallocated"));
  cJSON_Delete(j);
  /* a unit changed ("MB" is not PyTorch's): that number is not read */
  j = explain("CUDA out of memory. Tried to allocate 20.00 MB (GPU 0; 10.76 GiB total capacity; 7.35 GiB already "
              "allocated; 9.56 MiB free; 9.91 GiB reserved in total by PyTorch)");
  it = item(j, 0);
  ck_assert_ptr_null(fact(it, "tried"));
  ck_assert_str_eq(diag(it), "oom_unreadable");
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_oom_older_wordings_of_pytorch) {
  /* before 1.4: "cached", the reservation's unallocated part */
  cJSON *j = explain("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; 7.93 GiB total capacity; "
                     "7.18 GiB already allocated; 2.00 MiB free; 13.04 MiB cached)");
  ck_assert_str_eq(str(fact(item(j, 0), "reserved_unallocated"), "printed"), "13.04 MiB");
  ck_assert_str_eq(diag(item(j, 0)), "oom_too_much");
  cJSON_Delete(j);
  /* 2.1's "total capacty" */
  j = explain("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacty "
              "of 79.15 GiB of which 20.69 MiB is free. Including non-PyTorch memory, this process has 79.12 GiB memory "
              "in use. Of the allocated memory 78.40 GiB is allocated by PyTorch, and 211.53 MiB is reserved by PyTorch "
              "but unallocated.");
  ck_assert_str_eq(str(fact(item(j, 0), "total"), "printed"), "79.15 GiB");
  ck_assert_str_eq(diag(item(j, 0)), "oom_too_much");
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_oom_other_process_and_model_inferred) {
  cJSON *j = explain("model = AutoModel.from_pretrained('gpt2-medium')\n"
                     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                     "capacity of 23.65 GiB of which 1.06 GiB is free. Process 4321 has 14.20 GiB memory in use. "
                     "Including non-PyTorch memory, this process has 8.37 GiB memory in use. Of the allocated memory "
                     "7.80 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated.");
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(diag(it), "oom_other_process");
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "experiment"), "params");
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(params, "params_m")->valuedouble, 355);
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_device_mismatch_forms) {
  cJSON *j = explain("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
                     "cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)");
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(diag(it), "mismatch_batch_or_model");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "facts"), "argument"), "mat1");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "facts"), "op"), "wrapper_CUDA_addmm");
  ck_assert_str_eq(cJSON_GetArrayItem(fact(it, "devices"), 1)->valuestring, "cpu");
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "experiment"), "params");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(params, "move_features")));
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "lesson"), "section"), "placement");
  cJSON_Delete(j);
  j = explain("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same");
  ck_assert_str_eq(diag(item(j, 0)), "mismatch_input_weight");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts"), "weight_type"), "torch.FloatTensor");
  cJSON_Delete(j);
  j = explain("TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  ck_assert_str_eq(diag(item(j, 0)), "mismatch_numpy");
  cJSON_Delete(j);
  /* near-miss: "Input type (" without its weight sentence is not a mismatch */
  j = explain("Input type (str) is not supported");
  ck_assert_str_eq(str(item(j, 0), "kind"), "unknown");
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_async_assert_once_with_its_kernel_line) {
  cJSON *j = explain("Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion "
                     "`t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"t.py\", line 3\n"
                     "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously "
                     "reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider "
                     "passing CUDA_LAUNCH_BLOCKING=1.\n");
  ck_assert_int_eq(items(j), 1);
  ck_assert_str_eq(diag(item(j, 0)), "async_device_assert");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts"), "assert_text"),
                   "Assertion `t >= 0 && t < n_classes` failed");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "lesson"), "section"), "async");
  cJSON_Delete(j);
  j = explain("RuntimeError: CUDA error: an illegal memory access was encountered\n");
  ck_assert_str_eq(diag(item(j, 0)), "async_illegal_access");
  cJSON_Delete(j);
  /* the hint under an out-of-memory error belongs to it: one item, not two */
  j = explain("RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some "
              "other API call, so the stacktrace below might be incorrect.\n");
  ck_assert_int_eq(items(j), 1);
  ck_assert_str_eq(diag(item(j, 0)), "oom_unreadable");
  cJSON_Delete(j);
  /* a Python AssertionError is not a kernel's assert */
  j = explain("AssertionError: Assertion `x` is weird");
  ck_assert_str_eq(str(item(j, 0), "kind"), "unknown");
  cJSON_Delete(j);
}
END_TEST

/* CUDA_LAUNCH_BLOCKING=1 drops the "asynchronously reported" lines and keeps
 * the TORCH_USE_CUDA_DSA one after them (the H100's messages, tests/explain/gpu);
 * a paste cut before that line, or one holding the hint, is not read as blocking. */
START_TEST(explain_async_assert_under_launch_blocking_points_at_the_launch) {
  static const char head[] = "Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] "
                             "Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n"
                             "  File \"t.py\", line 4\ntorch.AcceleratorError: CUDA error: device-side assert triggered\n";
  static const char dsa[] = "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n";
  static const char hint[] = "CUDA kernel errors might be asynchronously reported at some other API call, so the "
                             "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n";
  char text[1024];
  snprintf(text, sizeof text, "%s%s", head, dsa);
  cJSON *j = explain(text);
  ck_assert_int_eq(items(j), 1);
  ck_assert_str_eq(diag(item(j, 0)), "async_device_assert_blocking");
  ck_assert(cJSON_IsTrue(fact(item(j, 0), "launch_blocking")));
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(item(j, 0), "steps"), *s1;
  cJSON_ArrayForEach(s1, st) ck_assert_msg(!strstr(s1->valuestring, "Rerun with CUDA_LAUNCH_BLOCKING"), "%s", s1->valuestring);
  cJSON_Delete(j);
  const char *others[] = {head, NULL};
  snprintf(text, sizeof text, "%s%s%s", head, hint, dsa);
  others[1] = text;
  for (int i = 0; i < 2; i++) {
    j = explain(others[i]);
    ck_assert_str_eq(diag(item(j, 0)), "async_device_assert");
    ck_assert(!fact(item(j, 0), "launch_blocking"));
    cJSON_Delete(j);
  }
}
END_TEST

START_TEST(explain_setup_failures_name_their_layer) {
  static const struct {
    const char *text, *what, *diag;
  } cases[] = {
      {"AssertionError: Torch not compiled with CUDA enabled", "not_compiled", "setup_cpu_wheel"},
      {"RuntimeError: Found no NVIDIA driver on your system. Please check", "no_driver", "setup_no_driver"},
      {"The NVIDIA driver on your system is too old (found version 10010).", "driver_too_old", "setup_driver_too_old"},
      {"CUDA error: no kernel image is available for execution on the device", "no_kernel_image", "setup_arch_unsupported"},
      {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", "smi_no_driver", "setup_smi_no_driver"},
      {"RuntimeError: Cannot re-initialize CUDA in forked subprocess.", "fork_reinit", "setup_fork_reinit"},
      {"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`", "cublas", "setup_cublas"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *j = explain(cases[i].text);
    ck_assert_int_eq(items(j), 1);
    ck_assert_str_eq(str(item(j, 0), "kind"), "setup");
    ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts"), "what"), cases[i].what);
    ck_assert_str_eq(diag(item(j, 0)), cases[i].diag);
    cJSON_Delete(j);
  }
  cJSON *j = explain("NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch "
                     "installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts"), "gpu_sm"), "sm_86");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts"), "supported_sms"), "sm_37 sm_50 sm_60 sm_70");
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_nvidia_smi_table_rows) {
  cJSON *j = explain(
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
      "|-------------------------------+----------------------+----------------------+\n"
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
      "|===============================+======================+======================|\n"
      "|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |\n"
      "| N/A   63C    P0    30W /  70W |   2345MiB / 15109MiB |     42%      Default |\n"
      "+-------------------------------+----------------------+----------------------+\n"
      "| Processes:                                                                  |\n"
      "|=============================================================================|\n"
      "|    0   N/A  N/A      1234      C   python                           2343MiB |\n"
      "|    0   N/A  N/A      5678      C   python3                             2MiB |\n"
      "+-----------------------------------------------------------------------------+\n");
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(str(it, "kind"), "nvidia_smi");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "facts"), "driver"), "470.82.01");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "facts"), "cuda"), "11.4");
  const cJSON *g = cJSON_GetArrayItem(fact(it, "gpus"), 0);
  ck_assert_str_eq(str(g, "name"), "Tesla T4");
  ck_assert_str_eq(str(g, "used"), "2345MiB");
  ck_assert_str_eq(str(g, "util"), "42%");
  ck_assert_int_eq(fact(it, "processes")->valueint, 2);
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_nvidia_smi_on_windows) {
  cJSON *j = explain(
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 531.14       Driver Version: 531.14       CUDA Version: 12.1     |\n"
      "|-------------------------------+----------------------+----------------------+\n"
      "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
      "|===============================+======================+======================|\n"
      "|   0  NVIDIA GeForce ... WDDM  | 00000000:01:00.0  On |                  N/A |\n"
      "| 30%   45C    P8    20W / 320W |   1021MiB / 10240MiB |      3%      Default |\n"
      "+-------------------------------+----------------------+----------------------+\n"
      "| Processes:                                                                  |\n"
      "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
      "|        ID   ID                                                   Usage      |\n"
      "|=============================================================================|\n"
      "|    0   N/A  N/A      1234    C+G   C:\\Windows\\explorer.exe     N/A      |\n"
      "|    0   N/A  N/A      5678      C   ...\\python.exe                N/A      |\n"
      "+-----------------------------------------------------------------------------+\n");
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(str(cJSON_GetArrayItem(fact(it, "gpus"), 0), "name"), "NVIDIA GeForce ...");
  ck_assert_str_eq(str(cJSON_GetArrayItem(fact(it, "gpus"), 0), "util"), "3%");
  ck_assert_int_eq(fact(it, "processes")->valueint, 2);
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_collect_env_mismatches_said_plainly) {
  cJSON *j = explain("PyTorch version: 2.1.0+cpu\nCUDA used to build PyTorch: None\nIs CUDA available: False\n"
                     "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\nNvidia driver version: 535.104.05\n");
  ck_assert_str_eq(diag(item(j, 0)), "env_cpu_wheel_on_gpu");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts"), "gpu"), "NVIDIA GeForce RTX 3090");
  cJSON_Delete(j);
  j = explain("PyTorch version: 2.1.0+cu121\nCUDA used to build PyTorch: 12.1\nIs CUDA available: False\n"
              "Nvidia driver version: 470.82.01\n");
  ck_assert_str_eq(diag(item(j, 0)), "env_runtime_newer_than_driver");
  /* the device check's layers: the driver failed, with the learner's own value */
  const cJSON *l0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(j, 0), "layers"), 0);
  ck_assert_str_eq(str(l0, "layer"), "driver");
  ck_assert_str_eq(str(l0, "value"), "470.82.01");
  ck_assert_str_eq(str(l0, "state"), "failed");
  cJSON_Delete(j);
  j = explain("AssertionError: Torch not compiled with CUDA enabled");
  const cJSON *l2 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(j, 0), "layers"), 2);
  ck_assert_str_eq(str(l2, "layer"), "wheel");
  ck_assert_str_eq(str(l2, "state"), "failed");
  ck_assert_str_eq(str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(j, 0), "layers"), 0), "state"), "not in the text");
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_several_messages_each_in_order) {
  cJSON *j = explain("PyTorch version: 2.1.0+cu121\nCUDA used to build PyTorch: 12.1\nIs CUDA available: True\n\n"
                     "Traceback (most recent call last):\n" OOM_OLD "\nTypeError: can't convert cuda:0 device type "
                     "tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.\n");
  ck_assert_int_eq(items(j), 3);
  ck_assert_str_eq(str(item(j, 0), "kind"), "collect_env");
  ck_assert_str_eq(str(item(j, 1), "kind"), "oom");
  ck_assert_str_eq(str(item(j, 2), "kind"), "device_mismatch");
  cJSON_Delete(j);
  /* the same message repeated (a traceback prints it twice) is one item */
  j = explain(OOM_OLD "\nDuring handling of the above exception, another exception occurred:\n\n" OOM_OLD);
  ck_assert_int_eq(items(j), 1);
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_unknown_text_is_said_honestly) {
  cJSON *j = explain("Segmentation fault (core dumped)\n");
  const cJSON *it = item(j, 0);
  ck_assert_str_eq(str(it, "kind"), "unknown");
  ck_assert_str_eq(diag(it), "unknown");
  ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(it, "looked_for")), 10);
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(it, "lesson"), "section"), "two-checks");
  cJSON_Delete(j);
}
END_TEST

START_TEST(explain_bounds_are_error_codes) {
  lab_error err = {0};
  ck_assert_ptr_null(lab_explain("  \n\t ", 5, &err));
  ck_assert_str_eq(lab_err_code(err.code), "explain_empty");
  ck_assert_ptr_null(lab_explain("abc\0def", 7, &err));
  ck_assert_str_eq(lab_err_code(err.code), "explain_not_text");
  ck_assert_ptr_null(lab_explain("caf\xc3", 4, &err));
  ck_assert_str_eq(lab_err_code(err.code), "explain_not_text");
  char *big = malloc(LAB_EXPLAIN_MAX_BYTES + 1);
  memset(big, 'a', LAB_EXPLAIN_MAX_BYTES + 1);
  ck_assert_ptr_null(lab_explain(big, LAB_EXPLAIN_MAX_BYTES + 1, &err));
  ck_assert_str_eq(lab_err_code(err.code), "explain_too_large");
  /* exactly the limit, full of alternating messages: bounded items, then "more" */
  size_t n = 0;
  const char *a = "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  const char *b = "Torch not compiled with CUDA enabled\n";
  while (n + strlen(a) + strlen(b) < LAB_EXPLAIN_MAX_BYTES) {
    memcpy(big + n, a, strlen(a)), n += strlen(a);
    memcpy(big + n, b, strlen(b)), n += strlen(b);
  }
  cJSON *j = lab_explain(big, n, &err);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq(items(j), LAB_EXPLAIN_MAX_ITEMS);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "more")));
  cJSON_Delete(j);
  free(big);
}
END_TEST

/* A message that ends the text exactly, copied to a buffer of its own size
 * (the fuzzer found a read past the end here: a longer anchor searched up
 * to "the best so far + its length"). Under SAN=1 ASan checks the reads. */
START_TEST(explain_message_at_the_very_end_reads_nothing_past_it) {
  const char *ends[] = {"device-side assert triggered", "CUDA out of memory", "Torch not compiled with CUDA enabled",
                        "PyTorch version: 2.1.0", "can't convert cuda:0 device type tensor to numpy"};
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
    size_t n = strlen(ends[i]);
    char *t = malloc(n);
    memcpy(t, ends[i], n);
    lab_error err = {0};
    cJSON *j = lab_explain(t, n, &err);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_ne(str(item(j, 0), "kind"), "unknown");
    cJSON_Delete(j);
    free(t);
  }
}
END_TEST

/* Pastes built to make a scanner quadratic (one message repeated 7000
 * times; an anchor that is never completed, with no newline) stay bounded:
 * at most LAB_EXPLAIN_MAX_MESSAGES messages are read, a rejected anchor is
 * never searched again. (The suite's timeout catches a regression.) */
START_TEST(explain_adversarial_pastes_stay_bounded) {
  const char *units[] = {"Torch not compiled with CUDA enabled\n", "Assertion `", "Input type (",
                         "CUDA out of memory. Process 1 has 1.00 GiB memory in use. ", "Tried to allocate ",
                         "KeyError: 'allocated_bytes.all.current'\n", "Is debug build: ", "| Processes: |\n"};
  char *big = malloc(LAB_EXPLAIN_MAX_BYTES);
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    size_t k = strlen(units[u]), n = 0;
    while (n + k <= LAB_EXPLAIN_MAX_BYTES) memcpy(big + n, units[u], k), n += k;
    lab_error err = {0};
    cJSON *j = lab_explain(big, n, &err);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_ge(items(j), 1);
    ck_assert_int_le(items(j), LAB_EXPLAIN_MAX_ITEMS);
    if (u == 0 || u == 3) ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "more")));
    cJSON_Delete(j);
  }
  free(big);
}
END_TEST

/* Real pastes vary: a terminal wraps a phrase, older PyTorch prints other words and units, a
 * traceback names a stat without being the dictionary. Each is read, or said unknown, never misread. */
START_TEST(explain_real_paste_shapes_are_read) {
  cJSON *j = explain("RuntimeError: CUDA out of memory. Tried to allocate 18.56 GiB (GPU 0; 79.15 GiB total capacity; "
                     "56.85 GiB already allocated; 17.20 GiB free; 61.32 GiB reserved in tot\nal by PyTorch)\n");
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(f, "reserved"), "printed"), "61.32 GiB");
  ck_assert_str_eq(diag(item(j, 0)), "oom_too_much");
  cJSON_Delete(j);
  j = explain("Traceback (most recent call last):\n    current = stats[prefix + \"current\"]\n"
              "KeyError: 'allocated_bytes.all.current'\n");
  ck_assert_str_eq(str(item(j, 0), "kind"), "unknown");
  cJSON_Delete(j);
  j = explain("    PyTorch version: 1.3.1\n    Is debug build: No\n    CUDA used to build PyTorch: Could not collect\n"
              "    Is CUDA available: No\n    GPU models and configuration: GPU 0: GeForce RTX 2080 Ti\n"
              "    Nvidia driver version: 430.64\n");
  ck_assert_str_eq(diag(item(j, 0)), "env_cpu_wheel_on_gpu");
  cJSON_Delete(j);
  j = explain("PyTorch version: 1.6.0\nIs debug build: No\nCUDA used to build PyTorch: 10.2\nIs CUDA available: No\n"
              "Nvidia driver version: 418.67\n");
  ck_assert_str_eq(diag(item(j, 0)), "env_runtime_newer_than_driver"); /* 10.2 needs 440.33 */
  cJSON_Delete(j);
  j = explain("|                  PyTorch CUDA memory summary, device ID 0                 |\n"
              "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n"
              "| Allocated memory      |    1062 MB |    4877 MB |   89299 MB |   88237 MB |\n"
              "| GPU reserved memory   |    1100 MB |    5000 MB |   16924 MB |    4504 MB |\n");
  f = cJSON_GetObjectItemCaseSensitive(item(j, 0), "facts");
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "allocated_cur"), "bytes")->valuedouble,
                      1062.0 * 1048576);
  ck_assert_str_eq(diag(item(j, 0)), "summary_ok");
  cJSON_Delete(j);
}
END_TEST

/* Every diagnosis names a section that exists in its lesson's text, and an experiment that exists. */
START_TEST(explain_diagnoses_link_real_sections_and_experiments) {
  for (int i = 0; i < lab_ex_diag_count(); i++) {
    const lab_ex_diag *d = lab_ex_diag_at(i);
    char path[256], anchor[80];
    snprintf(path, sizeof path, "lessons/%s/lesson.md", d->lesson);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "%s: no %s", d->id, path);
    static char md[256 * 1024];
    size_t n = fread(md, 1, sizeof md - 1, f);
    fclose(f);
    md[n] = '\0';
    snprintf(anchor, sizeof anchor, "{#%s}", d->section);
    ck_assert_msg(strstr(md, anchor), "%s: %s has no section %s", d->id, path, d->section);
    ck_assert_msg(lab_experiment_find(d->experiment), "%s: no experiment %s", d->id, d->experiment);
  }
}
END_TEST

/* The parameters a paste pre-fills pass the experiment's own validation. */
START_TEST(explain_prefilled_parameters_validate) {
  const char *texts[] = {
      "from_pretrained('bert-base-uncased')\n" OOM_OLD,
      "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking "
      "argument for argument target in method wrapper_nll_loss_forward)",
      "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    cJSON *j = explain(texts[i]);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(item(j, 0), "experiment");
    const lab_experiment *x = lab_experiment_find(str(e, "name"));
    ck_assert_ptr_nonnull(x);
    lab_params p;
    lab_error err = {0};
    ck_assert_msg(lab_experiment_params(x, cJSON_GetObjectItemCaseSensitive(e, "params"), &p, &err) == 0, "case %zu: %s",
                  i, err.message);
    cJSON_Delete(j);
  }
}
END_TEST

/* Each title an answer shows is the lesson's own heading for that section:
 * renaming one in lessons/ without lesson_titles.c fails here. */
START_TEST(explain_lesson_titles_are_the_lessons_headings) {
  static char md[1 << 18];
  char path[96], heading[160];
  for (int i = 0; i < lab_lesson_title_count; i++) {
    const lab_lesson_title *t = &lab_lesson_titles[i];
    snprintf(path, sizeof path, "lessons/%s/lesson.md", t->lesson);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    size_t n = fread(md, 1, sizeof md - 1, f);
    fclose(f);
    md[n] = 0;
    snprintf(heading, sizeof heading, "## %s {#%s}\n", t->title, t->section);
    ck_assert_msg(strstr(md, heading) != NULL, "%s has no heading \"%.*s\"", path, (int)strlen(heading) - 1, heading);
  }
  ck_assert_str_eq(lab_lesson_section_title("01-cuda-intuition", "two-checks"), "Your GPU: two checks");
  ck_assert_ptr_null(lab_lesson_section_title("01-cuda-intuition", "no-such-section"));
}
END_TEST

Suite *make_explain_suite(void) {
  Suite *s = suite_create("explain");
  TCase *tc = tcase_create("explain");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, explain_reads_sizes_in_pytorchs_units);
  tcase_add_test(tc, explain_lesson_titles_are_the_lessons_headings);
  tcase_add_test(tc, explain_oom_older_wording_fragmentation_with_bar);
  tcase_add_test(tc, explain_oom_newer_wording_too_much);
  tcase_add_test(tc, explain_oom_cut_or_reworded_reads_partly_never_wrongly);
  tcase_add_test(tc, explain_oom_older_wordings_of_pytorch);
  tcase_add_test(tc, explain_oom_other_process_and_model_inferred);
  tcase_add_test(tc, explain_device_mismatch_forms);
  tcase_add_test(tc, explain_async_assert_once_with_its_kernel_line);
  tcase_add_test(tc, explain_async_assert_under_launch_blocking_points_at_the_launch);
  tcase_add_test(tc, explain_setup_failures_name_their_layer);
  tcase_add_test(tc, explain_nvidia_smi_table_rows);
  tcase_add_test(tc, explain_nvidia_smi_on_windows);
  tcase_add_test(tc, explain_collect_env_mismatches_said_plainly);
  tcase_add_test(tc, explain_several_messages_each_in_order);
  tcase_add_test(tc, explain_unknown_text_is_said_honestly);
  tcase_add_test(tc, explain_bounds_are_error_codes);
  tcase_add_test(tc, explain_message_at_the_very_end_reads_nothing_past_it);
  tcase_add_test(tc, explain_adversarial_pastes_stay_bounded);
  tcase_add_test(tc, explain_real_paste_shapes_are_read);
  tcase_add_test(tc, explain_diagnoses_link_real_sections_and_experiments);
  tcase_add_test(tc, explain_prefilled_parameters_validate);
  suite_add_tcase(s, tc);
  return s;
}
