/* The Slurm keeper (see slurm_workers.h). The jobs are the class's, not a
 * server's: batch jobs (sbatch) named after the class's store, which Slurm
 * owns and which outlive the server that submitted them. Every server
 * started with --workers slurm:N runs this thread; the one holding the
 * store's keeper role (an advisory lock: store.h roles) counts the class's
 * live jobs with squeue every KEEP_S and submits what is missing. When
 * that server dies its database session ends, the role frees, and another
 * server's next look takes it: the jobs run on meanwhile. */
#include "slurm_workers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abstime.h"
#include "clock.h"
#include "subprocess.h"

#define KEEP_S 1.0           /* a look at the role and the jobs; a dead keeper's role is taken within this */
#define SHORT_LIFE_S 30.0    /* a job that ended this soon after a submission makes the next one wait */
#define MAX_BACKOFF_S 60.0
#define SQUEUE_DEADLINE_S 2.0  /* Slurm's commands ask slurmctld once: a dead controller must not hold us */
#define SBATCH_DEADLINE_S 3.0
#define SCANCEL_DEADLINE_S 2.0 /* at stop: well inside the 5 s a SIGTERM'd server has */
#define OUT_MAX 4096           /* what a Slurm command prints that is read (squeue of 256 ids fits) */

struct srv_slurm_workers {
  srv_workers_spec spec;
  char name[64];     /* the class's job name (slurm_workers.h) */
  char comment[600]; /* --comment: which class, in words */
  char wrap[4200];   /* the batch script: exec the worker */
  char **envp;       /* the server's environment plus GPULAB_STORE */
  srv_store_role *role;
  int held, others; /* as the last look found them */
  int live_seen;    /* jobs alive at the last look (-1: not counted yet) */
  int squeue_failing, role_failing;
  double last_submit_s, full_since_s, backoff_s, next_s; /* lab_clock_s */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  _Atomic int stopping;
  pthread_t thread;
};

extern char **environ;

static char **env_with_store(const char *uri) {
  size_t n = 0;
  while (environ[n]) n++;
  char **envp = calloc(n + 2, sizeof *envp);
  char *store = malloc(strlen(uri) + 16);
  if (!envp || !store) {
    free(envp);
    free(store);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "GPULAB_STORE=", 13) != 0) envp[k++] = environ[i];
  sprintf(store, "GPULAB_STORE=%s", uri);
  envp[k++] = store;
  return envp;
}

static void free_env(char **envp) {
  if (!envp) return;
  /* It borrows the environment's strings, but for its GPULAB_STORE entry. */
  for (int i = 0; envp[i]; i++)
    if (strncmp(envp[i], "GPULAB_STORE=", 13) == 0) free(envp[i]);
  free(envp);
}

/* Runs a Slurm command with its output in out (NUL-ended, cut at n), for
 * at most deadline_s and never past the keeper's stop; its exit status, or
 * -1 (it could not start) or -2 (cut short: killed). */
static int run_capture(srv_slurm_workers *k, char *const argv[], int quiet, char *out, size_t n, double deadline_s) {
  out[0] = 0;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid;
  srv_spawn_opts o = {.path = argv[0], .argv = argv, .envp = k->envp, .stdout_fd = fds[1], .quiet_stderr = quiet,
                      .new_group = 1};
  int started = srv_spawn(&o, &pid) == 0;
  close(fds[1]);
  if (!started) {
    close(fds[0]);
    return -1;
  }
  size_t used = 0;
  double until = lab_clock_s() + deadline_s;
  for (;;) {
    double left = until - lab_clock_s();
    if (left <= 0 || k->stopping) break;
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    if (poll(&p, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100) <= 0) continue;
    char buf[512];
    ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) break; /* EOF: it is ending */
    size_t take = (size_t)got < n - 1 - used ? (size_t)got : n - 1 - used;
    memcpy(out + used, buf, take);
    used += take;
    out[used] = 0;
  }
  close(fds[0]);
  double left = until - lab_clock_s();
  return srv_spawn_wait(pid, k->stopping || left < 0 ? 0 : left);
}

/* The class's jobs that are alive or will be (pending, configuring,
 * running, suspended), or -1 when squeue cannot tell. */
static int live_jobs(srv_slurm_workers *k) {
  char job[80], out[OUT_MAX];
  snprintf(job, sizeof job, "--name=%s", k->name);
  char *argv[] = {"squeue", "--noheader", job, "--states=PD,CF,R,S", "--format=%i", NULL};
  if (run_capture(k, argv, 1, out, sizeof out, SQUEUE_DEADLINE_S) != 0) return -1;
  int n = 0;
  for (char *p = out; *p; p++)
    if (*p == '\n') n++;
  return n;
}

static void submit(srv_slurm_workers *k) {
  char job[80], comment[640], part[96], limit[64], wrap[4300];
  snprintf(job, sizeof job, "--job-name=%s", k->name);
  snprintf(comment, sizeof comment, "--comment=%s", k->comment);
  snprintf(part, sizeof part, "--partition=%s", k->spec.partition);
  snprintf(limit, sizeof limit, "--time=%s", k->spec.time);
  snprintf(wrap, sizeof wrap, "--wrap=%s", k->wrap);
  char *argv[16];
  int a = 0;
  argv[a++] = "sbatch";
  argv[a++] = "--parsable";
  argv[a++] = job;
  argv[a++] = comment;
  argv[a++] = "--gres=gpu:1";
  argv[a++] = "--ntasks=1";
  /* The worker's log on its node: the server's folder may not exist there. */
  argv[a++] = "--chdir=/tmp";
  argv[a++] = "--output=/tmp/%x-%j.log";
  if (k->spec.partition[0]) argv[a++] = part;
  if (k->spec.time[0]) argv[a++] = limit;
  argv[a++] = wrap;
  argv[a] = NULL;
  char out[256];
  int rc = run_capture(k, argv, 0, out, sizeof out, SBATCH_DEADLINE_S);
  out[strcspn(out, ";\n")] = 0;
  if (rc == 0)
    fprintf(stderr, "gpulab: Slurm keeper: submitted job %s (job name %s)\n", out, k->name);
  else
    fprintf(stderr, "gpulab: Slurm keeper: sbatch failed (%s %d); trying again in 5 s\n",
            rc == -1 ? strerror(errno) : rc == -2 ? "no answer in time, status" : "exit status", rc);
  k->last_submit_s = lab_clock_s();
  if (rc != 0 && k->next_s < k->last_submit_s + 5) k->next_s = k->last_submit_s + 5;
}

/* The role: taken when free, kept while held; says when it changes hands. */
static void look_at_role(srv_slurm_workers *k) {
  lab_error err = {0};
  int held = 0, others = 0;
  if (srv_store_role_hold(k->role, &held, &others, &err) != 0) {
    if (!k->role_failing)
      fprintf(stderr, "gpulab: Slurm keeper: cannot reach the store for the keeper role (%s); trying every %.0f s\n",
              err.message, KEEP_S);
    k->role_failing = 1;
  } else {
    k->role_failing = 0;
    k->others = others;
  }
  if (held && !k->held) {
    fprintf(stderr, "gpulab: Slurm keeper: this server keeps the class's %d GPU worker jobs (job name %s) now\n",
            k->spec.count, k->name);
    k->live_seen = -1;
  } else if (!held && k->held) {
    fprintf(stderr, "gpulab: Slurm keeper: this server no longer holds the keeper role; the jobs (%s) run on and "
            "another server keeps them\n", k->name);
  }
  k->held = held;
}

static void keep(srv_slurm_workers *k) {
  int live = live_jobs(k);
  if (live < 0) {
    if (!k->squeue_failing) fprintf(stderr, "gpulab: Slurm keeper: squeue failed; trying every %.0f s\n", KEEP_S);
    k->squeue_failing = 1;
    return;
  }
  k->squeue_failing = 0;
  double now = lab_clock_s();
  if (k->live_seen >= 0 && live < k->live_seen) {
    int soon = now - k->last_submit_s < SHORT_LIFE_S;
    if (soon) {
      k->backoff_s = k->backoff_s > 0 ? k->backoff_s * 2 : 1;
      if (k->backoff_s > MAX_BACKOFF_S) k->backoff_s = MAX_BACKOFF_S;
      k->next_s = now + k->backoff_s;
    }
    fprintf(stderr, "gpulab: Slurm keeper: a worker job of %s ended (%d of %d live); replacing it%s\n", k->name,
            live, k->spec.count, soon ? " after a pause: it ended soon after a submission" : "");
  }
  if (live >= k->spec.count) {
    if (k->full_since_s == 0) k->full_since_s = now;
    if (now - k->full_since_s > SHORT_LIFE_S) k->backoff_s = 0;
  } else {
    k->full_since_s = 0;
  }
  /* One a look: a job just submitted is pending, and counted, at the next. */
  if (live < k->spec.count && now >= k->next_s && !k->stopping) {
    submit(k);
    live++;
  }
  k->live_seen = live;
}

static void *keeper(void *arg) {
  srv_slurm_workers *k = arg;
  while (!k->stopping) {
    look_at_role(k);
    if (k->held && !k->stopping) keep(k);
    pthread_mutex_lock(&k->lock);
    struct timespec at = srv_abstime_after(KEEP_S);
    if (!k->stopping) pthread_cond_timedwait(&k->wake, &k->lock, &at);
    pthread_mutex_unlock(&k->lock);
  }
  return NULL;
}

/* Whether an executable NAME is on PATH. */
static int on_path(const char *name) {
  const char *path = getenv("PATH");
  char one[4096];
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t len = strcspn(p, ":");
    if (len && (size_t)snprintf(one, sizeof one, "%.*s/%s", (int)len, p, name) < sizeof one && access(one, X_OK) == 0)
      return 1;
    p += len + (p[len] == ':');
  }
  return 0;
}

/* The class's job name: one per store, whichever server submits. */
static void class_job_name(const char *where, char *out, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a: a short stable tag, not a secret */
  for (const unsigned char *p = (const unsigned char *)where; *p; p++) h = (h ^ *p) * 16777619u;
  snprintf(out, n, "gpulab-worker-%08x", (unsigned)h);
}

srv_slurm_workers *srv_slurm_workers_start(const srv_workers_spec *spec, srv_store *store, const char *store_uri,
                                           lab_error *err) {
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) {
    lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start the Slurm keeper (its binary's path is unknown)");
    return NULL;
  }
  exe[len] = 0;
  if (strchr(exe, '\'')) {
    lab_fail(err, LAB_E_USAGE, "workers", "--workers slurm: the gpulab binary's path %.200s has a ' in it", exe);
    return NULL;
  }
  static const char *const tools[] = {"sbatch", "squeue", "scancel"};
  for (int i = 0; i < 3; i++)
    if (!on_path(tools[i])) {
      lab_fail(err, LAB_E_USAGE, "workers",
               "--workers slurm needs Slurm's %s on PATH (Debian: slurm-client); it was not found", tools[i]);
      return NULL;
    }
  srv_slurm_workers *k = calloc(1, sizeof *k);
  if (!k || !(k->envp = env_with_store(store_uri))) {
    free(k);
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  k->spec = *spec;
  k->live_seen = -1;
  char where[512];
  srv_store_where(store_uri, where, sizeof where);
  class_job_name(where, k->name, sizeof k->name);
  snprintf(k->comment, sizeof k->comment, "gpulab GPU worker of the class stored in %.500s", where);
  /* The binary at the same path on the GPU nodes (a shared file system). */
  snprintf(k->wrap, sizeof k->wrap, "exec '%s' worker", exe);
  pthread_mutex_init(&k->lock, NULL);
  pthread_cond_init(&k->wake, NULL);
  if (srv_store_role_open(store, SRV_STORE_ROLE_SLURM_KEEPER, &k->role, err) == 0) {
    if (pthread_create(&k->thread, NULL, keeper, k) == 0) {
      fprintf(stderr, "gpulab: Slurm keeper: the class's %d GPU workers run as Slurm jobs named %s, kept by one "
              "server of the class at a time\n", spec->count, k->name);
      return k;
    }
    lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start the Slurm keeper's thread");
  }
  srv_store_role_close(k->role);
  pthread_cond_destroy(&k->wake);
  pthread_mutex_destroy(&k->lock);
  free_env(k->envp);
  free(k);
  return NULL;
}

void srv_slurm_workers_stop(srv_slurm_workers *k) {
  if (!k) return;
  pthread_mutex_lock(&k->lock);
  k->stopping = 1; /* a Slurm command in flight is cut short */
  pthread_cond_signal(&k->wake);
  pthread_mutex_unlock(&k->lock);
  pthread_join(k->thread, NULL);
  /* The jobs belong to the class: another server that can keep them takes
   * the role over. The last one cancels them (SIGTERM through Slurm: the
   * workers hand their runs back), so a class that stops leaves nothing. */
  if (k->held && k->others == 0) {
    char name[80], out[256];
    snprintf(name, sizeof name, "--name=%s", k->name);
    char *scancel[] = {"scancel", name, NULL};
    k->stopping = 0; /* scancel gets its own deadline */
    int rc = run_capture(k, scancel, 0, out, sizeof out, SCANCEL_DEADLINE_S);
    fprintf(stderr, "gpulab: Slurm keeper: no other server of the class keeps workers: %s its jobs (%s)\n",
            rc == 0 ? "cancelled" : "could not cancel (scancel failed):", k->name);
  } else if (k->held) {
    fprintf(stderr, "gpulab: Slurm keeper: leaving the jobs (%s) to the %d other server%s that can keep them\n",
            k->name, k->others, k->others == 1 ? "" : "s");
  }
  srv_store_role_close(k->role); /* the role frees for another server now */
  pthread_cond_destroy(&k->wake);
  pthread_mutex_destroy(&k->lock);
  free_env(k->envp);
  free(k);
}
