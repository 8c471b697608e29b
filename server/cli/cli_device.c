/* `gpulab device`: lesson 1's very first check, as a command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cjson_compat.h"
#include "cli.h"
#include "hooks.h"
#include "runner.h"

static void print_gpus(const char *indent, const lab_gpu_info *dev, int n) {
  for (int i = 0; i < n && i < LAB_MAX_GPUS; i++) {
    const lab_gpu_info *g = &dev[i];
    printf("%sGPU %d: %s", indent, i, g->name);
    if (g->cc_major) printf(", compute capability %d.%d, %d SMs", g->cc_major, g->cc_minor, g->sm_count);
    printf(", %.1f GB total", (double)g->mem_total_bytes / 1e9);
    if (g->mem_free_known) printf(", %.1f GB free", (double)g->mem_free_bytes / 1e9);
    printf("\n");
  }
}

static void print_text(const lab_driver_view *drv, const lab_runtime_view *rt) {
  char v1[16], v2[16];
  lab_verdict v;
  lab_device_verdict(drv, rt, &v);
  printf("Driver view (what nvidia-smi / NVML sees)\n");
  if (drv->present) {
    printf("  driver %s via %s, supports CUDA up to %s, %d GPU%s\n", drv->driver_version,
           drv->source == LAB_DRV_NVML ? "NVML" : "nvidia-smi",
           lab_cuda_version_text(drv->cuda_version, v1) ? v1 : "?", drv->device_count,
           drv->device_count == 1 ? "" : "s");
    print_gpus("  ", drv->dev, drv->device_count);
  } else {
    printf("  no driver answered: %s\n", drv->error);
  }
  printf("Runtime view (what a CUDA program can use)\n");
  if (rt->status == LAB_RT_NOT_BUILT) {
    printf("  this gpulab was built without CUDA\n");
  } else {
    printf("  CUDA runtime %s, driver API %s\n", lab_cuda_version_text(rt->runtime_version, v1) ? v1 : "?",
           lab_cuda_version_text(rt->driver_api_version, v2) ? v2 : "none");
    if (rt->status == LAB_RT_OK) print_gpus("  ", rt->dev, rt->device_count);
    else printf("  %s: %s\n", rt->error_name, rt->error_message);
  }
  printf("\nVerdict: %s\n  %s\n  What to do: %s\n", v.summary, v.explanation, v.advice);
}

/* With GPULAB_TEST_HOOKS=1 and GPULAB_SELF_REPORT=1, what the check cost,
 * on stderr (tests/cli/device_cost.test.mjs): the shared objects this
 * process mapped (/proc/self/maps), whether the GPU worker ran, and the
 * peak resident memory of this process and of its children (getrusage;
 * the worker, once reaped, among them). */
static void self_report(int worker_ran) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4352], last[4352] = "";
  while (f && fgets(line, sizeof line, f)) {
    const char *path = strchr(line, '/');
    if (!path || !strstr(path, ".so") || !strcmp(path, last)) continue;
    snprintf(last, sizeof last, "%s", path);
    fprintf(stderr, "gpulab self: maps %s", path);
  }
  if (f) fclose(f);
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  fprintf(stderr, "gpulab self: worker_ran %d maxrss_kib %ld children_maxrss_kib %ld\n", worker_ran, self.ru_maxrss,
          kids.ru_maxrss);
}

int srv_cmd_device(int argc, char **argv) {
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else return srv_cli_usage("device takes only --json");
  }
  srv_supervisor *sup = srv_supervisor_for_self();
  srv_runner r;
  if (!sup || srv_runner_init(&r, sup) != 0) {
    srv_supervisor_free(sup);
    return 1;
  }
  lab_driver_view drv;
  lab_runtime_view rt;
  srv_runner_views(&r, &drv, &rt);
  int worker_ran = srv_supervisor_pid(sup) != 0 || srv_supervisor_restarts(sup) > 0;
  srv_runner_free(&r);
  srv_supervisor_free(sup);
  if (srv_test_hooks_enabled() && getenv("GPULAB_SELF_REPORT")) self_report(worker_ran);
  if (!json) {
    print_text(&drv, &rt);
    return 0;
  }
  cJSON *o = lab_device_json(&drv, &rt);
  char *text = cJSON_Print(o);
  cJSON_Delete(o);
  if (!text) return 1;
  puts(text);
  cJSON_free(text);
  return 0;
}
