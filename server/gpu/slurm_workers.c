/* The Slurm keeper (see slurm_workers.h). One thread watches its srun
 * children every POLL_MS: each slot holds one srun, started again when it
 * ends. The sruns run in their own process group (a Ctrl-C at the server's
 * terminal is not theirs to get) and get SIGTERM if the server dies, so
 * their jobs end with it instead of outliving it until their time limit. */
#include "slurm_workers.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "subprocess.h"

#define POLL_MS 200
#define SHORT_LIFE_S 30.0  /* a job that ended sooner makes the next start wait */
#define MAX_BACKOFF_S 60.0
#define STOP_WAIT_S 20.0
#define SCANCEL_DEADLINE_S 10.0 /* scancel asks slurmctld once; a dead controller must not hold the stop */   /* sruns get this long to end after scancel */

typedef struct slot {
  _Atomic pid_t pid; /* its srun, 0 when none (the stopping thread reads it) */
  double started_s;  /* lab_clock_s */
  double next_s;     /* when it may start again */
  double backoff_s;
  int starts;
} slot;

struct srv_slurm_workers {
  srv_workers_spec spec;
  char name[128];
  char exe[4096];
  char srun[4096]; /* found on PATH at start: the guard execs it by its path */
  char **envp;     /* the server's environment plus GPULAB_STORE */
  slot *slots;
  _Atomic int draining; /* no more starts: the jobs are being cancelled */
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

static pid_t spawn(srv_slurm_workers *k, int i) {
  char job[160], part[96], limit[64];
  snprintf(job, sizeof job, "--job-name=%s", k->name);
  snprintf(part, sizeof part, "--partition=%s", k->spec.partition);
  snprintf(limit, sizeof limit, "--time=%s", k->spec.time);
  char *argv[16];
  int a = 0;
  argv[a++] = "srun";
  argv[a++] = job;
  argv[a++] = "--gres=gpu:1";
  argv[a++] = "--ntasks=1";
  argv[a++] = "--quiet";
  argv[a++] = "--kill-on-bad-exit=1";
  if (k->spec.partition[0]) argv[a++] = part;
  if (k->spec.time[0]) argv[a++] = limit;
  argv[a++] = k->exe;
  argv[a++] = "worker";
  argv[a] = NULL;
  /* srun goes through `gpulab _guard` (subprocess.h): posix_spawn cannot set
   * the parent-death signal, the trampoline does before it execs srun. */
  char sig[8], parent[24];
  snprintf(sig, sizeof sig, "%d", SIGTERM);
  snprintf(parent, sizeof parent, "%ld", (long)getpid());
  char *guarded[20];
  int g = 0;
  guarded[g++] = "gpulab";
  guarded[g++] = "_guard";
  guarded[g++] = sig;
  guarded[g++] = parent;
  guarded[g++] = k->srun;
  for (int j = 1; j < a; j++) guarded[g++] = argv[j];
  guarded[g] = NULL;
  pid_t pid = 0;
  srv_spawn_opts o = {.path = k->exe, .argv = guarded, .envp = k->envp, .new_group = 1};
  if (srv_spawn(&o, &pid) != 0) pid = -1;
  if (pid > 0)
    fprintf(stderr, "gpulab: Slurm worker %d: srun started (pid %d, job name %s)\n", i + 1, (int)pid, k->name);
  else
    fprintf(stderr, "gpulab: Slurm worker %d: cannot start srun (%s)\n", i + 1, strerror(errno));
  return pid > 0 ? pid : 0;
}

static void describe(int status, char *out, size_t n) {
  if (WIFEXITED(status)) snprintf(out, n, "exit status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) snprintf(out, n, "signal %d", WTERMSIG(status));
  else snprintf(out, n, "status %d", status);
}

static void *keeper(void *arg) {
  srv_slurm_workers *k = arg;
  while (!k->stopping) {
    double now = lab_clock_s();
    for (int i = 0; i < k->spec.count && !k->stopping; i++) {
      slot *s = &k->slots[i];
      int status = 0;
      if (s->pid > 0 && waitpid(s->pid, &status, WNOHANG) == s->pid) {
        double lived = now - s->started_s;
        s->backoff_s = lived < SHORT_LIFE_S ? (s->backoff_s > 0 ? s->backoff_s * 2 : 1) : 0;
        if (s->backoff_s > MAX_BACKOFF_S) s->backoff_s = MAX_BACKOFF_S;
        s->next_s = now + s->backoff_s;
        char how[48];
        describe(status, how, sizeof how);
        if (!k->draining)
          fprintf(stderr, "gpulab: Slurm worker %d ended after %.0f s (%s); replacing it%s\n", i + 1, lived, how,
                  s->backoff_s > 0 ? " after a pause: it ended soon after starting" : "");
        s->pid = 0;
      }
      if (s->pid == 0 && now >= s->next_s && !k->draining) {
        s->pid = spawn(k, i);
        s->started_s = now;
        s->starts++;
        if (!s->pid) s->next_s = now + 5;
      }
    }
    usleep(POLL_MS * 1000);
  }
  return NULL;
}

static void free_env(char **envp) {
  if (!envp) return;
  /* It borrows the environment's strings, but for its GPULAB_STORE entry. */
  for (int i = 0; envp[i]; i++)
    if (strncmp(envp[i], "GPULAB_STORE=", 13) == 0) free(envp[i]);
  free(envp);
}

/* The first executable NAME on PATH, into out; -1 when there is none. */
static int on_path(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t len = strcspn(p, ":");
    if (len && (size_t)snprintf(out, n, "%.*s/%s", (int)len, p, name) < n && access(out, X_OK) == 0) return 0;
    p += len + (p[len] == ':');
  }
  return -1;
}

srv_slurm_workers *srv_slurm_workers_start(const srv_workers_spec *spec, const char *store_uri, lab_error *err) {
  srv_slurm_workers *k = calloc(1, sizeof *k);
  if (!k || !(k->slots = calloc((size_t)spec->count, sizeof *k->slots)) || !(k->envp = env_with_store(store_uri))) {
    if (k) free(k->slots);
    free(k);
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  k->spec = *spec;
  char host[64] = "host";
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = 0;
  snprintf(k->name, sizeof k->name, "gpulab-worker-%s-%d", host, (int)getpid());
  ssize_t n = readlink("/proc/self/exe", k->exe, sizeof k->exe - 1);
  if (n > 0) k->exe[n] = 0;
  if (on_path("srun", k->srun, sizeof k->srun) != 0)
    lab_fail(err, LAB_E_USAGE, "workers",
             "--workers slurm needs Slurm's srun on PATH (Debian: slurm-client); it was not found");
  else if (n <= 0 || pthread_create(&k->thread, NULL, keeper, k) != 0)
    lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start the Slurm keeper (its binary path or a thread)");
  else
    return k;
  free_env(k->envp);
  free(k->slots);
  free(k);
  return NULL;
}

/* Runs a command and waits for it (bounded by what the command does). */
static int run_wait(char *const argv[]) {
  pid_t pid;
  srv_spawn_opts o = {.path = argv[0], .argv = argv};
  if (srv_spawn(&o, &pid) != 0) return -1;
  return srv_spawn_wait(pid, SCANCEL_DEADLINE_S);
}

/* The sruns still running (the keeper thread reaps the others). */
static int sruns_left(srv_slurm_workers *k) {
  int left = 0;
  for (int i = 0; i < k->spec.count; i++) left += k->slots[i].pid > 0;
  return left;
}

void srv_slurm_workers_stop(srv_slurm_workers *k) {
  if (!k) return;
  /* The keeper thread runs on until the sruns end: they get SIGTERM when the
   * thread that started them ends (PR_SET_PDEATHSIG is per thread), and
   * srun answers that by killing its job — the workers would have no time
   * to hand their runs back. scancel sends them SIGTERM through Slurm. */
  k->draining = 1;
  char name[160];
  snprintf(name, sizeof name, "--name=%s", k->name);
  char *scancel[] = {"scancel", name, NULL};
  if (run_wait(scancel) != 0) fprintf(stderr, "gpulab: scancel %s failed; its jobs end when their sruns do\n", name);
  double until = lab_clock_s() + STOP_WAIT_S;
  while (sruns_left(k) && lab_clock_s() < until) usleep(100 * 1000);
  k->stopping = 1;
  pthread_join(k->thread, NULL);
  for (int i = 0; i < k->spec.count; i++)
    if (k->slots[i].pid > 0) {
      kill(k->slots[i].pid, SIGKILL);
      waitpid(k->slots[i].pid, NULL, 0);
    }
  free_env(k->envp);
  free(k->slots);
  free(k);
}

const char *srv_slurm_workers_name(const srv_slurm_workers *k) { return k->name; }
