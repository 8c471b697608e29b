/* The parent side of the worker: spawn, send, wait with a deadline, and
 * replace the worker when it dies, hangs or asks to be replaced. */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abstime.h"
#include "cjson_compat.h"
#include "clock.h"
#include "subprocess.h"

#define MAX_ANSWER_BYTES (8 * 1024 * 1024)

struct srv_supervisor {
  pthread_mutex_t lock; /* one job at a time: honest timings on one GPU */
  char exe[4096];
  pid_t pid;
  int to_worker, from_worker;
  _Atomic int restarts; /* read without the job lock: health must not wait for a run */
  char *buf; /* answer buffer, MAX_ANSWER_BYTES + 1 */
  /* The pid srv_supervisor_kill may signal, which must not wait for the job
   * lock. kill_lock orders it with reaping: cleared before waitpid, so a
   * reaped pid (which the system may give to another process) is never
   * signalled. */
  pthread_mutex_t kill_lock;
  int live_pid;
  char gpu_env[96]; /* "CUDA_VISIBLE_DEVICES=N" (or a UUID), or "" to inherit the server's */
  srv_supervisor_os os;
  _Atomic int stopping; /* the server is stopping: no new worker, waiters leave */
};

extern char **environ;

srv_supervisor *srv_supervisor_new(const char *exe_path) {
  srv_supervisor *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->buf = malloc(MAX_ANSWER_BYTES + 1);
  if (!s->buf) {
    free(s);
    return NULL;
  }
  pthread_mutex_init(&s->lock, NULL);
  pthread_mutex_init(&s->kill_lock, NULL);
  s->os.kill = kill;
  s->os.waitpid = waitpid;
  snprintf(s->exe, sizeof s->exe, "%s", exe_path);
  s->to_worker = s->from_worker = -1;
  return s;
}

static void reap(srv_supervisor *s, int kill_it) {
  if (s->pid > 0) {
    if (kill_it) s->os.kill(s->pid, SIGKILL);
    pthread_mutex_lock(&s->kill_lock);
    s->live_pid = 0; /* before waitpid: from then on the pid may be another process's */
    pthread_mutex_unlock(&s->kill_lock);
    while (s->os.waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  if (s->to_worker >= 0) close(s->to_worker);
  if (s->from_worker >= 0) close(s->from_worker);
  s->pid = 0;
  s->to_worker = s->from_worker = -1;
}

static int spawn(srv_supervisor *s, lab_error *err) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return lab_fail(err, LAB_E_INTERNAL, NULL, "cannot create a pipe for the worker");
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return lab_fail(err, LAB_E_INTERNAL, NULL, "cannot create a pipe for the worker");
  }
  /* The child's environment: the server's, with the GPU it is pinned to
   * and this process's id, against which the worker checks that its parent
   * still lives once it has set its parent-death signal (worker/main.c). */
  size_t n = 0;
  while (environ[n]) n++;
  char **envp = calloc(n + 3, sizeof *envp);
  char parent_env[48];
  if (!envp) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if ((!s->gpu_env[0] || strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) != 0) &&
        strncmp(environ[i], SRV_SUPERVISOR_PID_ENV "=", sizeof SRV_SUPERVISOR_PID_ENV) != 0)
      envp[k++] = environ[i];
  if (s->gpu_env[0]) envp[k++] = s->gpu_env;
  snprintf(parent_env, sizeof parent_env, SRV_SUPERVISOR_PID_ENV "=%ld", (long)getpid());
  envp[k++] = parent_env;
  char *argv[] = {"gpulab-worker", NULL};
  pid_t pid;
  srv_spawn_opts o = {.path = s->exe, .argv = argv, .envp = envp, .stdin_fd = in[0], .stdout_fd = out[1]};
  if (srv_spawn(&o, &pid) != 0) {
    int e = errno;
    free(envp);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start the GPU worker %.200s (%s)", s->exe, strerror(e));
  }
  free(envp);
  close(in[0]);
  close(out[1]);
  s->pid = pid;
  pthread_mutex_lock(&s->kill_lock);
  s->live_pid = pid;
  pthread_mutex_unlock(&s->kill_lock);
  s->to_worker = in[1];
  s->from_worker = out[0];
  return 0;
}

/* Whether the worker still runs. The look does not reap (WNOWAIT): one
 * that exited (or was killed) while idle is then reaped by reap(), which
 * keeps the kill/reap order srv_supervisor_kill relies on. */
static int worker_alive(srv_supervisor *s) {
  if (s->pid <= 0) return 0;
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int rc;
  while ((rc = waitid(P_PID, (id_t)s->pid, &info, WEXITED | WNOHANG | WNOWAIT)) < 0 && errno == EINTR) {
  }
  if (rc == 0 && info.si_pid == 0) return 1;
  reap(s, 0);
  return 0;
}

/* The job lock within wait_s, in short steps so that a stopping server
 * sends its waiters away at once instead of after their whole wait. */
static int lock_within(srv_supervisor *s, double wait_s) {
  double until = lab_clock_s() + wait_s;
  for (;;) {
    if (s->stopping) return -1;
    double left = until - lab_clock_s();
    struct timespec ts = srv_abstime_after(left < 0 ? 0 : left < 0.2 ? left : 0.2);
    int rc = pthread_mutex_timedlock(&s->lock, &ts);
    if (rc == 0 || rc != ETIMEDOUT || left <= 0.2) return rc;
  }
}

static int stopping_error(lab_error *err) {
  return lab_fail(err, LAB_E_SERVER_STOPPING, NULL,
                  "the server is stopping; this run did not finish. Run it again in a moment");
}

static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads one line; 1 = got it, 0 = EOF (worker died), -1 = deadline passed. */
static int read_line(srv_supervisor *s, double deadline_at, size_t *len) {
  size_t used = 0;
  for (;;) {
    double left = deadline_at - lab_clock_s();
    if (left <= 0) return -1;
    if (s->stopping) return 0; /* srv_supervisor_stop: the caller reaps it */
    struct pollfd p = {.fd = s->from_worker, .events = POLLIN};
    int r = poll(&p, 1, left < 0.2 ? (int)(left * 1000) + 1 : 200);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t got = read(s->from_worker, s->buf + used, MAX_ANSWER_BYTES - used);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    used += (size_t)got;
    char *nl = memchr(s->buf, '\n', used);
    if (nl) {
      *nl = 0;
      *len = (size_t)(nl - s->buf);
      return 1;
    }
    if (used == MAX_ANSWER_BYTES) return 0; /* an answer this big is a broken worker */
  }
}

/* A fresh worker says it is ready (SRV_WORKER_READY) once loaded: the
 * loading (cuBLAS: 1.1-1.3 s here, seconds more on a busy machine) is
 * not part of the first run's deadline. Starts one and waits for that line
 * at most WORKER_START_S; 0, or -1 with err set (the worker reaped). */
#define WORKER_START_S 60.0
static int start(srv_supervisor *s, lab_error *err) {
  if (spawn(s, err) != 0) return -1;
  size_t len = 0;
  int got = read_line(s, lab_clock_s() + WORKER_START_S, &len);
  if (got == 1 && len == strlen(SRV_WORKER_READY) && memcmp(s->buf, SRV_WORKER_READY, len) == 0) return 0;
  reap(s, 1);
  if (s->stopping) return stopping_error(err);
  s->restarts++;
  return lab_fail(err, LAB_E_WORKER_CRASHED, NULL,
                  got < 0 ? "the GPU worker did not start within %.0f s (a very busy machine?); run it again"
                          : "the GPU worker could not start (it exited or said something else first); run it again",
                  WORKER_START_S);
}

int srv_supervisor_call(srv_supervisor *s, const cJSON *job, double wait_s, double deadline_s, cJSON **answer,
                        lab_error *err) {
  *answer = NULL;
  if (s->stopping) return stopping_error(err);
  if (lock_within(s, wait_s) != 0) {
    if (s->stopping) return stopping_error(err);
    return lab_fail(err, LAB_E_BUSY, NULL, "the GPU is busy with another experiment; retry in a few seconds");
  }
  int rc = -1;
  char *line = NULL;
  if (s->stopping) {
    stopping_error(err);
    goto out;
  }
  line = cJSON_PrintUnformatted(job);
  if (!line) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto out;
  }
  /* A worker that died while idle is replaced before it is given the job,
   * so the job does not fail for what happened before it. */
  if (s->pid > 0 && !worker_alive(s)) s->restarts++;
  if (s->pid == 0 && start(s, err) != 0) goto out;
  size_t n = strlen(line);
  line[n] = '\n'; /* cJSON's buffer has room: it held the terminating NUL */
  if (write_all(s->to_worker, line, n + 1) != 0) {
    /* Not delivered (it died just now): a fresh worker gets it, once. */
    reap(s, 1);
    s->restarts++;
    if (start(s, err) != 0) goto out;
    if (write_all(s->to_worker, line, n + 1) != 0) {
      reap(s, 1);
      s->restarts++;
      lab_fail(err, LAB_E_WORKER_CRASHED, NULL, "the GPU worker could not be started; run it again");
      goto out;
    }
  }
  size_t len = 0;
  int got = read_line(s, lab_clock_s() + deadline_s, &len);
  if (got <= 0) {
    reap(s, 1);
    if (s->stopping) {
      stopping_error(err);
      goto out;
    }
    s->restarts++;
    if (got < 0)
      lab_fail(err, LAB_E_DEADLINE, NULL,
               "the run passed its %.0f s deadline and its worker was restarted; try smaller parameters", deadline_s);
    else
      lab_fail(err, LAB_E_WORKER_CRASHED, NULL, "the GPU worker crashed during this run and was restarted; run it again");
    goto out;
  }
  cJSON *msg = cJSON_ParseWithLength(s->buf, len);
  const cJSON *ok = cJSON_GetObjectItemCaseSensitive(msg, "ok");
  if (cJSON_IsTrue(ok)) {
    *answer = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
    rc = *answer ? 0 : lab_fail(err, LAB_E_INTERNAL, NULL, "the worker answered without a result");
  } else if (cJSON_IsFalse(ok) && lab_error_from_json(msg, err) == 0) {
    /* A sticky CUDA error poisons the process: the worker exits after answering. */
    if (err->code == LAB_E_CUDA) {
      reap(s, 1);
      s->restarts++;
    }
  } else {
    reap(s, 1);
    s->restarts++;
    lab_fail(err, LAB_E_WORKER_CRASHED, NULL, "the GPU worker sent a broken answer and was restarted; run it again");
  }
  cJSON_Delete(msg);
out:
  cJSON_free(line);
  pthread_mutex_unlock(&s->lock);
  return rc;
}

int srv_supervisor_restarts(srv_supervisor *s) { return s->restarts; }

void srv_supervisor_kill(srv_supervisor *s) {
  pthread_mutex_lock(&s->kill_lock);
  if (s->live_pid > 0) s->os.kill(s->live_pid, SIGKILL);
  pthread_mutex_unlock(&s->kill_lock);
}

void srv_supervisor_stop(srv_supervisor *s) {
  s->stopping = 1;
  srv_supervisor_kill(s);
}

void srv_supervisor_set_os(srv_supervisor *s, srv_supervisor_os os) { s->os = os; }

int srv_supervisor_set_gpu(srv_supervisor *s, int gpu) {
  if (gpu < 0) {
    s->gpu_env[0] = 0;
    return 0;
  }
  char id[16];
  snprintf(id, sizeof id, "%d", gpu);
  return srv_supervisor_set_device(s, id);
}

int srv_supervisor_set_device(srv_supervisor *s, const char *device) {
  return snprintf(s->gpu_env, sizeof s->gpu_env, "CUDA_VISIBLE_DEVICES=%s", device) < (int)sizeof s->gpu_env ? 0 : -1;
}

int srv_supervisor_pid(srv_supervisor *s) { return (int)s->pid; }

srv_supervisor *srv_supervisor_for_self(void) {
  char exe[4096], path[4200];
  const char *env = getenv("GPULAB_WORKER");
  if (env) return srv_supervisor_new(env);
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return srv_supervisor_new("gpulab-worker");
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  snprintf(path, sizeof path, "%s/gpulab-worker", exe);
  return srv_supervisor_new(path);
}

void srv_supervisor_free(srv_supervisor *s) {
  if (!s) return;
  pthread_mutex_lock(&s->lock);
  if (s->to_worker >= 0) {
    close(s->to_worker); /* EOF: the worker leaves its loop */
    s->to_worker = -1;
  }
  pthread_mutex_lock(&s->kill_lock);
  s->live_pid = 0; /* reaped below: no one may signal it from here on */
  pthread_mutex_unlock(&s->kill_lock);
  if (s->pid > 0) {
    /* The worker resets the device as it leaves (kernels' kern_shutdown). */
    for (int i = 0; i < 100; i++) {
      pid_t r = s->os.waitpid(s->pid, NULL, WNOHANG);
      if (r != 0) {
        s->pid = 0; /* exited (or already reaped): nothing left to kill */
        break;
      }
      usleep(20000);
    }
  }
  reap(s, 1);
  pthread_mutex_unlock(&s->lock);
  pthread_mutex_destroy(&s->lock);
  pthread_mutex_destroy(&s->kill_lock);
  free(s->buf);
  free(s);
}
