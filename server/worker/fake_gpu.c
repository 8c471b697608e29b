/* The test-only fake GPU (see fake_gpu.h): the worker answers as if it had
 * one device and runs the simulator after a fixed sleep, so a run takes a
 * known time in the queue tests. Never active without GPULAB_TEST_HOOKS=1. */
#include "fake_gpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "hooks.h"
#include "registry.h"

long srv_fake_gpu_ms(void) {
  if (!srv_test_hooks_enabled()) return -1;
  const char *v = getenv("GPULAB_FAKE_GPU_MS");
  if (!v || !*v) return -1;
  char *end = NULL;
  errno = 0;
  long ms = strtol(v, &end, 10);
  if (errno || *end || ms < 0 || ms > 600000) return -1;
  return ms;
}

void srv_fake_gpu_runtime_view(lab_runtime_view *rt) {
  lab_driver_view drv;
  lab_device_simulate_views(lab_profile_find("h100-sxm"), &drv, rt);
  rt->status = LAB_RT_OK;
  rt->device_count = 1;
  snprintf(rt->dev[0].name, sizeof rt->dev[0].name, "%s", SRV_FAKE_GPU_NAME);
}

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int srv_fake_gpu_run(const lab_experiment *e, const lab_params *p, cJSON **out, lab_error *err) {
  *out = NULL;
  long ms = srv_fake_gpu_ms();
  /* GPULAB_FAKE_GPU_HANG=NAME: runs of that experiment never end, so the
   * deadline and the worker's replacement can be tested. */
  const char *hang = getenv("GPULAB_FAKE_GPU_HANG");
  if (hang && strcmp(hang, e->name) == 0)
    for (;;) sleep_ms(1000);
  if (ms > 0) sleep_ms(ms);
  /* GPULAB_FAKE_GPU_FAIL=CODE: every run fails with that error (cuda_error:
   * a GPU that looks usable but breaks each run), for worker-health tests. */
  const char *fail = getenv("GPULAB_FAKE_GPU_FAIL");
  lab_err code = fail && *fail ? lab_err_from_code(fail) : LAB_OK;
  if (code != LAB_OK)
    return lab_fail(err, code, NULL, "the fake GPU fails every run with %s (GPULAB_FAKE_GPU_FAIL)", lab_err_code(code));
  if (lab_simulate_checked(e, p, "h100-sxm", out, err) != 0) return -1;
  cJSON *dev = cJSON_GetObjectItemCaseSensitive(*out, "device");
  cJSON *name = cJSON_CreateString(SRV_FAKE_GPU_NAME);
  if (!dev || !name || !cJSON_ReplaceItemInObjectCaseSensitive(dev, "name", name)) {
    cJSON_Delete(name);
    cJSON_Delete(*out);
    *out = NULL;
    return lab_fail(err, LAB_E_INTERNAL, NULL, "the fake GPU could not label its envelope");
  }
  return 0;
}

void srv_fake_gpu_log(double run_id) {
  const char *path = getenv("GPULAB_FAKE_GPU_LOG");
  if (srv_fake_gpu_ms() < 0 || !path || !*path) return;
  char line[64];
  int n = snprintf(line, sizeof line, "%.0f %d\n", run_id, (int)getpid());
  /* One short write with O_APPEND: lines from several workers never mix. */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) != n) { /* a test log: nothing to do about it */
  }
  close(fd);
}
