/* `gpulab worker --store URI [--gpu N] [--grace S]`: a long-lived GPU worker
 * of a class's shared queue (gpu_worker.h), for a GPU machine or a Slurm
 * job. It registers itself with its host, its devices and
 * CUDA_VISIBLE_DEVICES, takes runs until SIGTERM or SIGINT, then lets the
 * run in progress finish for --grace seconds, hands it back otherwise, and
 * exits 0. The store's URI may come from GPULAB_STORE instead of the
 * command line (where `ps` would show its password). It reads the class's
 * deadline again every second: a change (another server's --update-class)
 * holds for the runs it claims after it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "class.h"
#include "cli.h"
#include "config.h"
#include "gpu_worker.h"
#include "runner.h"
#include "settings_watch.h"

#define OPEN_TRIES_S 30 /* a store not reachable at start is tried this long */

static volatile sig_atomic_t stop_requested;
static _Atomic long deadline_s; /* the class's, as last read: set here, read by the claim loop */

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* Sleeps up to s seconds, less when a stop is asked. */
static void nap(double s) {
  for (double t = 0; t < s && !stop_requested; t += 0.1) usleep(100 * 1000);
}

static srv_store *open_store(const char *uri, const char *where) {
  lab_error err = {0};
  srv_store *st = NULL;
  for (int waited = 0; !stop_requested; waited++) {
    if (srv_store_open_spec(uri, &st, &err) == 0) {
      printf("gpulab worker: class database %s: %s\n", where, srv_store_transport(st));
      fflush(stdout);
      return st;
    }
    /* a fault in --store itself (a password, TLS) is not cured by waiting */
    if (err.code != LAB_E_STORE_UNAVAILABLE || err.param[0] || waited >= OPEN_TRIES_S) break;
    if (waited == 0) fprintf(stderr, "gpulab worker: %s; retrying for %d s\n", err.message, OPEN_TRIES_S);
    nap(1);
  }
  if (!stop_requested) fprintf(stderr, "gpulab worker: cannot open the class store %s: %s\n", where, err.message);
  return NULL;
}

/* The class's settings (its deadline): waits for a server to create it. */
static int read_class(srv_store *st, const char *where, srv_class_config *cfg) {
  for (int n = 0; !stop_requested; n++) {
    lab_error err = {0};
    int exists = 0;
    if (srv_class_read(st, cfg, &exists, &err) == 0 && exists) return 0;
    if (err.code != LAB_OK && err.code != LAB_E_STORE_UNAVAILABLE && err.code != LAB_E_STORE_BUSY) {
      fprintf(stderr, "gpulab worker: %s\n", err.message);
      return -1;
    }
    if (n == 0)
      fprintf(stderr, "gpulab worker: waiting for a class in %s (the first gpulab serve on it creates it)\n", where);
    nap(1);
  }
  return -1;
}

static double deadline_now(void *arg) {
  (void)arg;
  return (double)deadline_s;
}

/* Takes up a deadline changed in the store; a store that cannot be read
 * keeps the one in use until the next look. */
static void follow_deadline(srv_store *st, int64_t worker_id) {
  static srv_class_config now; /* large: off the stack */
  lab_error err = {0};
  int exists = 0;
  if (srv_class_read(st, &now, &exists, &err) != 0 || !exists || now.deadline_s == deadline_s) return;
  fprintf(stderr,
          "gpulab worker %lld: class limit limits.deadline_s changed in the store from %ld to %ld s: it holds for "
          "the runs claimed from now on (a run on the GPU keeps the deadline it started with)\n",
          (long long)worker_id, (long)deadline_s, now.deadline_s);
  deadline_s = now.deadline_s;
}

/* This worker as it registers: kind, host, --gpu, CUDA_VISIBLE_DEVICES, its Slurm job. */
static void describe(srv_store_worker *who, int gpu) {
  const char *visible = getenv("CUDA_VISIBLE_DEVICES"), *job = getenv("SLURM_JOB_ID");
  memset(who, 0, sizeof *who);
  snprintf(who->kind, sizeof who->kind, "%s", job ? "slurm" : "worker");
  gethostname(who->host, sizeof who->host - 1);
  who->pid = (int)getpid();
  who->gpu = gpu;
  snprintf(who->cuda_visible_devices, sizeof who->cuda_visible_devices, "%s", visible ? visible : "");
  snprintf(who->slurm_job_id, sizeof who->slurm_job_id, "%s", job ? job : "");
}

static int parse(int argc, char **argv, const char **uri, long *gpu, long *grace) {
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (srv_cli_option(argc, argv, &i, "--store", &v)) *uri = v;
    else if (srv_cli_option(argc, argv, &i, "--gpu", &v)) {
      if (v && srv_cli_long(v, 0, 63, gpu)) return srv_cli_usage("--gpu must be a device index from 0 to 63");
    } else if (srv_cli_option(argc, argv, &i, "--grace", &v)) {
      if (v && srv_cli_long(v, 0, 600, grace)) return srv_cli_usage("--grace must be 0 to 600 seconds");
    } else
      return srv_cli_usage("unknown option for worker (try: --store postgresql://… --gpu N --grace S)");
    if (!v) return srv_cli_usage("an option of worker is missing its value");
  }
  if (!*uri) *uri = getenv("GPULAB_STORE");
  if (!*uri || !srv_store_spec_is_pg(*uri))
    return srv_cli_usage("a worker needs the class's shared store: --store postgresql://USER@HOST:PORT/DB (or "
                         "GPULAB_STORE); an SQLite class runs its GPU queue inside its server");
  return 0;
}

int srv_cmd_worker(int argc, char **argv) {
  const char *uri = NULL;
  long gpu = 0, grace = 2;
  int rc = parse(argc, argv, &uri, &gpu, &grace);
  if (rc) return rc;
  char where[512], device[64];
  srv_store_where(uri, where, sizeof where);
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (srv_gpu_visible_device(visible, (int)gpu, device, sizeof device) != 0) {
    fprintf(stderr, "gpulab worker: --gpu %ld is past the GPUs CUDA_VISIBLE_DEVICES=%s makes visible\n", gpu, visible);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  srv_store *st = open_store(uri, where);
  static srv_class_config cfg;
  if (!st || read_class(st, where, &cfg) != 0) {
    srv_store_close(st);
    return stop_requested ? 0 : 1;
  }
  srv_supervisor *sup = srv_supervisor_for_self();
  srv_runner runner;
  if (!sup || srv_runner_init(&runner, sup) != 0 || srv_supervisor_set_device(sup, device) != 0) {
    fprintf(stderr, "gpulab worker: out of memory\n");
    srv_supervisor_free(sup);
    srv_store_close(st);
    return 1;
  }
  /* What it registers: where it runs and the device view its GPU process sees. */
  lab_driver_view drv;
  lab_runtime_view rt;
  srv_runner_views(&runner, &drv, &rt);
  cJSON *view = lab_device_json(&drv, &rt);
  char *view_text = view ? cJSON_PrintUnformatted(view) : NULL;
  cJSON_Delete(view);
  deadline_s = cfg.deadline_s;
  srv_gpu_worker_opts o = {.store = st, .sup = sup, .runner = &runner, .deadline_s = (double)cfg.deadline_s,
                           .deadline_now = deadline_now};
  describe(&o.who, (int)gpu);
  o.who.device_json = view_text;
  srv_gpu_worker *w = NULL;
  lab_error err = {0};
  rc = srv_gpu_worker_start(&o, &w, &err);
  cJSON_free(view_text);
  if (rc == 0) {
    printf("gpulab worker %lld: on %s, --gpu %ld = CUDA device %s (CUDA_VISIBLE_DEVICES=%s%s%s): %s; taking runs "
           "from %s\n",
           (long long)srv_gpu_worker_id(w), o.who.host, gpu, device, visible ? visible : "unset",
           o.who.slurm_job_id[0] ? ", Slurm job " : "", o.who.slurm_job_id,
           rt.device_count > 0 ? rt.dev[0].name : "no device seen", where);
    fflush(stdout);
    for (long tick = 1; !stop_requested; tick++) {
      usleep(100 * 1000);
      if (tick % (long)(SRV_SETTINGS_REFRESH_S * 10) == 0) follow_deadline(st, srv_gpu_worker_id(w));
    }
    fprintf(stderr, "gpulab worker %lld: stopping\n", (long long)srv_gpu_worker_id(w));
    srv_gpu_worker_stop(w, (double)grace);
  } else {
    fprintf(stderr, "gpulab worker: cannot register in %s: %s\n", where, err.message);
  }
  srv_runner_free(&runner);
  srv_supervisor_free(sup);
  srv_store_close(st);
  return rc == 0 ? 0 : 1;
}
