/* The supervised GPU worker (docs/architecture.md, "The GPU is owned by a
 * supervised worker"): GPU work runs in a child
 * process, one job at a time, each under a deadline. A worker that crashes,
 * hangs or reports a sticky CUDA error is killed and restarted; only the
 * job that caused it fails. Jobs and answers are one JSON line each. */
#ifndef SRV_SUPERVISOR_H
#define SRV_SUPERVISOR_H

#include <sys/types.h>

#include "error.h"

typedef struct srv_supervisor srv_supervisor;

/* The environment variable that gives the worker its supervisor's pid: it
 * sets its parent-death signal, then exits if its parent is already gone. */
#define SRV_SUPERVISOR_PID_ENV "GPULAB_SUPERVISOR_PID"
/* The line a worker started by a supervisor writes first, once it is
 * loaded and reads jobs: the first job's deadline starts after it. */
#define SRV_WORKER_READY "{\"ready\":true}"

/* The process calls the supervisor makes; tests replace them to force the
 * interleavings a race needs (the defaults are kill and waitpid). */
typedef struct srv_supervisor_os {
  int (*kill)(pid_t pid, int sig);
  pid_t (*waitpid)(pid_t pid, int *status, int options);
} srv_supervisor_os;

/* exe_path: the gpulab-worker binary. NULL when out of memory. */
srv_supervisor *srv_supervisor_new(const char *exe_path);
void srv_supervisor_free(srv_supervisor *s);

/* Sends one job and waits for its answer. wait_s: how long to wait for the
 * worker to be free (else busy); deadline_s: how long the job may run.
 * On success *answer is the worker's "result" (caller owns). */
int srv_supervisor_call(srv_supervisor *s, const cJSON *job, double wait_s, double deadline_s, cJSON **answer,
                        lab_error *err);
int srv_supervisor_restarts(srv_supervisor *s);
int srv_supervisor_pid(srv_supervisor *s); /* 0 when no worker runs */
/* Kills the worker now, without waiting for the job in progress: that job
 * fails with worker_crashed and the next one starts a fresh worker. */
void srv_supervisor_kill(srv_supervisor *s);
/* The server is stopping: the job in progress fails at once with
 * server_stopping (its worker is killed), jobs waiting for the worker and
 * any later call get server_stopping too, and no worker is started again. */
void srv_supervisor_stop(srv_supervisor *s);
/* Pins the worker to one GPU (CUDA_VISIBLE_DEVICES=gpu in its environment;
 * the worker then sees it as device 0). gpu < 0 inherits the server's. Call
 * before the first job: a running worker keeps its environment. */
int srv_supervisor_set_gpu(srv_supervisor *s, int gpu);
/* The same with the device as CUDA names it in CUDA_VISIBLE_DEVICES (an
 * index, a GPU-… UUID or a MIG-… id), as Slurm or the caller gave it. */
int srv_supervisor_set_device(srv_supervisor *s, const char *device);

/* Replaces the process calls (tests only). */
void srv_supervisor_set_os(srv_supervisor *s, srv_supervisor_os os);

/* A supervisor for the gpulab-worker binary beside this one (or the one
 * named by GPULAB_WORKER). NULL when out of memory. */
srv_supervisor *srv_supervisor_for_self(void);

#endif
