/* Starting a child process from a threaded server without fork(): every
 * helper (nvidia-smi, the GPU worker, sbatch, squeue, scancel) starts through
 * posix_spawn. glibc's posix_spawn (clone with CLONE_VFORK) runs no
 * pthread_atfork handlers, so a library that registers one (OpenBLAS shuts
 * its thread pool down in its handler, under an sgemm in flight) cannot
 * hang the server when a child starts. tests/tools/no_fork.sh keeps fork()
 * out of server/. */
#ifndef SRV_SUBPROCESS_H
#define SRV_SUBPROCESS_H

#include <sys/types.h>

typedef struct srv_spawn_opts {
  const char *path; /* the program; searched on PATH when it has no '/' */
  char *const *argv;
  char *const *envp;  /* NULL: the server's own environment */
  int stdin_fd;       /* dup'ed to 0 when > 0; 0 keeps the server's */
  int stdout_fd;      /* dup'ed to 1 when > 0; 0 keeps the server's */
  int quiet_stderr;   /* 1: stderr goes to /dev/null */
  int new_group;      /* 1: the child leads a process group of its own */
} srv_spawn_opts;

/* Starts the child with every descriptor above 2 closed and default signal
 * dispositions; 0 and *pid set, else -1 with errno set. */
int srv_spawn(const srv_spawn_opts *o, pid_t *pid);

/* Waits for the child until deadline_s (seconds from now; < 0: no
 * deadline), then kills it (SIGKILL) and reaps it. Returns its exit
 * status, 128 + signal when killed by one, -2 when the deadline killed it,
 * -1 on error. */
int srv_spawn_wait(pid_t pid, double deadline_s);

#endif
