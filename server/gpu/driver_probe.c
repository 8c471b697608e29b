/* NVML through dlopen, with nvidia-smi as the fallback. Each failure is
 * kept in the view's error text, because "why the driver check failed" is
 * what the lesson explains. When neither is installed and no NVIDIA device
 * node exists, the view says so (none_installed): the runtime view is then
 * known without starting the GPU process (runner.c). */
#include "driver_probe.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

#include "clock.h"
#include "subprocess.h"

typedef struct {
  unsigned long long total, free, used;
} nvml_memory;

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_str_fn)(char *, unsigned);
typedef int (*nvml_int_fn)(int *);
typedef int (*nvml_uint_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_name_fn)(void *, char *, unsigned);
typedef int (*nvml_mem_fn)(void *, nvml_memory *);
typedef const char *(*nvml_errstr_fn)(int);

/* dlsym returns void*; POSIX guarantees the conversion to a function pointer. */
#define NVML_SYM(lib, name, type) ((type)(size_t)dlsym(lib, name))

/* -1 with *missing set when the library is not there at all. */
static int probe_nvml(lab_driver_view *v, int *missing) {
  const char *path = getenv("GPULAB_NVML_LIB");
  void *lib = dlopen(path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(v->error, sizeof v->error, "NVML is not installed (libnvidia-ml.so.1 not found)");
    *missing = 1;
    return -1;
  }
  nvml_void_fn init = NVML_SYM(lib, "nvmlInit_v2", nvml_void_fn);
  nvml_void_fn shutdown = NVML_SYM(lib, "nvmlShutdown", nvml_void_fn);
  nvml_str_fn driver = NVML_SYM(lib, "nvmlSystemGetDriverVersion", nvml_str_fn);
  nvml_int_fn cuda = NVML_SYM(lib, "nvmlSystemGetCudaDriverVersion_v2", nvml_int_fn);
  nvml_uint_fn count = NVML_SYM(lib, "nvmlDeviceGetCount_v2", nvml_uint_fn);
  nvml_handle_fn handle = NVML_SYM(lib, "nvmlDeviceGetHandleByIndex_v2", nvml_handle_fn);
  nvml_name_fn name = NVML_SYM(lib, "nvmlDeviceGetName", nvml_name_fn);
  nvml_mem_fn mem = NVML_SYM(lib, "nvmlDeviceGetMemoryInfo", nvml_mem_fn);
  nvml_errstr_fn errstr = NVML_SYM(lib, "nvmlErrorString", nvml_errstr_fn);
  int rc = -1;
  if (!init || !shutdown || !driver || !count || !handle || !name || !mem) {
    snprintf(v->error, sizeof v->error, "NVML library is incomplete (missing symbols)");
    goto done;
  }
  int e = init();
  if (e != 0) {
    snprintf(v->error, sizeof v->error, "NVML could not start: %s", errstr ? errstr(e) : "unknown error");
    goto done;
  }
  v->source = LAB_DRV_NVML;
  v->present = true;
  driver(v->driver_version, sizeof v->driver_version);
  if (cuda) cuda(&v->cuda_version);
  unsigned n = 0;
  if (count(&n) == 0) {
    for (unsigned i = 0; i < n && v->device_count < LAB_MAX_GPUS; i++) {
      void *h = NULL;
      if (handle(i, &h) != 0) continue;
      lab_gpu_info *g = &v->dev[v->device_count++];
      name(h, g->name, sizeof g->name);
      nvml_memory m;
      if (mem(h, &m) == 0) {
        g->mem_total_bytes = m.total;
        g->mem_free_bytes = m.free;
        g->mem_free_known = true;
      }
    }
  }
  shutdown();
  rc = 0;
done:
  dlclose(lib);
  return rc;
}

/* nvidia-smi answers in well under a second; one that hangs (a wedged
 * driver does that) is killed at this deadline, so the probe always ends. */
#define SMI_DEADLINE_S 5.0

/* Runs argv, captures at most cap-1 bytes of stdout until SMI_DEADLINE_S;
 * returns the exit status, -2 when the deadline killed it, or -1 (could not
 * start, or killed by a signal). */
static int capture(char *const argv[], char *out, size_t cap) {
  int fds[2];
  out[0] = 0;
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid;
  srv_spawn_opts o = {.path = argv[0], .argv = argv, .stdout_fd = fds[1], .quiet_stderr = 1};
  int started = srv_spawn(&o, &pid) == 0;
  close(fds[1]);
  if (!started) {
    close(fds[0]);
    return errno == ENOENT ? 127 : -1;
  }
  double until = lab_clock_s() + SMI_DEADLINE_S;
  size_t used = 0;
  char sink[256];
  for (;;) {
    double left = until - lab_clock_s();
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    int r = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break; /* the deadline: srv_spawn_wait kills it */
    ssize_t got = read(fds[0], used + 1 < cap ? out + used : sink, used + 1 < cap ? cap - 1 - used : sizeof sink);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (used + 1 < cap) used += (size_t)got;
  }
  out[used] = 0;
  close(fds[0]);
  double left = until - lab_clock_s();
  int rc = srv_spawn_wait(pid, left > 0 ? left : 0);
  return rc == -2 ? -2 : rc > 128 ? -1 : rc;
}

static void trim(char *s) {
  char *start = s;
  while (*start == ' ') start++;
  memmove(s, start, strlen(start) + 1);
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\r')) s[--n] = 0;
}

int srv_parse_smi_csv(const char *csv, lab_driver_view *out) {
  char line[512];
  int parsed = 0;
  while (csv && *csv && out->device_count < LAB_MAX_GPUS) {
    size_t n = strcspn(csv, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), csv);
    csv += n + (csv[n] == '\n');
    char *field[5];
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(line, ",", &save); tok && k < 5; tok = strtok_r(NULL, ",", &save))
      field[k++] = tok;
    if (k != 5) continue;
    for (int i = 0; i < 5; i++) trim(field[i]);
    char *end1, *end2;
    double total_mib = strtod(field[1], &end1), free_mib = strtod(field[2], &end2);
    if (*end1 || *end2 || !field[0][0]) continue;
    lab_gpu_info *g = &out->dev[out->device_count++];
    snprintf(g->name, sizeof g->name, "%s", field[0]);
    g->mem_total_bytes = (uint64_t)(total_mib * 1048576.0);
    g->mem_free_bytes = (uint64_t)(free_mib * 1048576.0);
    g->mem_free_known = true;
    snprintf(g->bus_id, sizeof g->bus_id, "%s", field[4]);
    snprintf(out->driver_version, sizeof out->driver_version, "%s", field[3]);
    parsed++;
  }
  return parsed;
}

int srv_parse_smi_cuda_version(const char *banner) {
  const char *p = banner ? strstr(banner, "CUDA Version:") : NULL;
  int major = 0, minor = 0;
  if (p && sscanf(p, "CUDA Version: %d.%d", &major, &minor) == 2) return major * 1000 + minor * 10;
  return 0;
}

/* -1 with *missing set when there is no nvidia-smi to run. */
static int probe_smi(lab_driver_view *v, int *missing) {
  const char *cmd = getenv("GPULAB_NVIDIA_SMI");
  if (!cmd) cmd = "nvidia-smi";
  char *out = malloc(16384);
  if (!out) return -1;
  char *query[] = {(char *)cmd, "--query-gpu=name,memory.total,memory.free,driver_version,pci.bus_id",
                   "--format=csv,noheader,nounits", NULL};
  int rc = capture(query, out, 16384);
  if (rc == -2) {
    snprintf(v->error + strlen(v->error), sizeof v->error - strlen(v->error),
             "; nvidia-smi did not answer within %.0f s and was stopped", SMI_DEADLINE_S);
    free(out);
    return -1;
  }
  if (rc == 127 || rc < 0) {
    snprintf(v->error + strlen(v->error), sizeof v->error - strlen(v->error), "; nvidia-smi was not found");
    *missing = rc == 127;
    free(out);
    return -1;
  }
  if (rc != 0) {
    trim(out);
    snprintf(v->error + strlen(v->error), sizeof v->error - strlen(v->error),
             "; nvidia-smi failed (exit %d): %.80s", rc, out);
    free(out);
    return -1;
  }
  v->source = LAB_DRV_SMI;
  v->present = true;
  v->device_count = 0;
  srv_parse_smi_csv(out, v);
  char *banner[] = {(char *)cmd, NULL};
  if (capture(banner, out, 16384) == 0) v->cuda_version = srv_parse_smi_cuda_version(out);
  free(out);
  return 0;
}

/* An NVIDIA device node: /dev/nvidiactl, /dev/nvidia0…, or WSL's /dev/dxg,
 * which the driver makes; none means no driver is loaded here. */
static int nvidia_nodes(void) {
  if (access("/dev/dxg", F_OK) == 0) return 1;
  DIR *d = opendir("/dev");
  if (!d) return 1; /* cannot tell: say there may be one */
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) found = !strncmp(e->d_name, "nvidia", 6);
  closedir(d);
  return found;
}

void srv_driver_probe(lab_driver_view *out) {
  int nvml_missing = 0, smi_missing = 0;
  memset(out, 0, sizeof *out);
  if (probe_nvml(out, &nvml_missing) == 0) return;
  if (probe_smi(out, &smi_missing) == 0) {
    out->error[0] = 0;
    return;
  }
  out->source = LAB_DRV_NONE;
  out->present = false;
  out->none_installed = nvml_missing && smi_missing && !nvidia_nodes();
}
