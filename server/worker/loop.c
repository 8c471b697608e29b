/* The worker's side of the GPU supervision: one JSON job per line on
 * stdin, one JSON answer per line on stdout. A sticky CUDA error ends the
 * process after its answer, so the supervisor starts a clean one. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "kern.h"
#include "registry.h"
#include "jobs.h"
#include "supervisor.h"

static int answer(cJSON *result, const lab_error *err) {
  cJSON *msg = NULL;
  if (result) {
    msg = cJSON_CreateObject();
    cJSON_AddTrueToObject(msg, "ok");
    cJSON_AddItemToObject(msg, "result", result);
  } else {
    msg = lab_error_json(err);
    cJSON_AddFalseToObject(msg, "ok");
  }
  char *line = cJSON_PrintUnformatted(msg);
  cJSON_Delete(msg);
  if (!line) return -1;
  int rc = (fputs(line, stdout) >= 0 && fputc('\n', stdout) != EOF && fflush(stdout) == 0) ? 0 : -1;
  cJSON_free(line);
  return rc;
}

/* It dies with the supervisor's thread (the parent-death signal; set here
 * because the supervisor starts it with posix_spawn, which cannot), and
 * leaves at once if that parent is gone already. */
static int tie_to_parent(void) {
  const char *want = getenv(SRV_SUPERVISOR_PID_ENV);
  if (!want) return 0; /* started by hand */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return getppid() == (pid_t)atol(want) ? 0 : -1;
}

int srv_worker_main(void) {
  if (tie_to_parent() != 0) return 1;
  signal(SIGPIPE, SIG_IGN);
  /* Its supervisor decides when it ends (EOF, or SIGKILL): a SIGTERM or
   * SIGINT sent to the whole group — Slurm cancelling a job, Ctrl-C at a
   * terminal — must not kill a run its parent may still let finish. */
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  /* loaded (cuBLAS and all): its supervisor starts the first job's deadline now */
  if (getenv(SRV_SUPERVISOR_PID_ENV) && (fputs(SRV_WORKER_READY "\n", stdout) < 0 || fflush(stdout) != 0)) return 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int status = 0;
  while ((n = getline(&line, &cap, stdin)) > 0) {
    lab_error err = {0};
    cJSON *job = cJSON_ParseWithLength(line, (size_t)n);
    cJSON *result = NULL;
    if (!job) lab_fail(&err, LAB_E_INVALID_JSON, NULL, "the worker got a job that is not JSON");
    else srv_worker_job(job, &result, &err);
    cJSON_Delete(job);
    if (answer(result, &err) != 0) break;
    if (!result && err.code == LAB_E_CUDA) {
      status = 3; /* the CUDA context is poisoned: leave, the supervisor restarts us */
      break;
    }
  }
  free(line);
  return status;
}
