/* posix_spawn for every child of the server (see subprocess.h) and a
 * bounded wait. */
#include "subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

extern char **environ;

int srv_spawn(const srv_spawn_opts *o, pid_t *pid) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc) {
    errno = rc;
    return -1;
  }
  rc = posix_spawnattr_init(&at);
  if (rc) {
    posix_spawn_file_actions_destroy(&fa);
    errno = rc;
    return -1;
  }
  /* The server ignores SIGPIPE and may block signals in its threads: the
   * child starts with default dispositions and an empty mask. */
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (o->new_group) flags |= POSIX_SPAWN_SETPGROUP;
  rc = posix_spawnattr_setflags(&at, flags);
  if (!rc) rc = posix_spawnattr_setsigdefault(&at, &all);
  if (!rc) rc = posix_spawnattr_setsigmask(&at, &none);
  if (!rc && o->new_group) rc = posix_spawnattr_setpgroup(&at, 0);
  if (!rc && o->stdin_fd > 0) rc = posix_spawn_file_actions_adddup2(&fa, o->stdin_fd, 0);
  if (!rc && o->stdout_fd > 0) rc = posix_spawn_file_actions_adddup2(&fa, o->stdout_fd, 1);
  if (!rc && o->quiet_stderr) rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  /* Nothing of the server's (sockets, the store, other children's pipes)
   * leaks into the child, CLOEXEC or not. */
  if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  if (!rc) {
    char *const *envp = o->envp ? o->envp : environ;
    rc = strchr(o->path, '/') ? posix_spawn(pid, o->path, &fa, &at, o->argv, envp)
                              : posix_spawnp(pid, o->path, &fa, &at, o->argv, envp);
  }
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) {
    errno = rc;
    return -1;
  }
  return 0;
}

static int decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int srv_spawn_wait(pid_t pid, double deadline_s) {
  int status = 0;
  if (deadline_s < 0) {
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) return -1;
    return decode(status);
  }
  double until = lab_clock_s() + deadline_s;
  for (long step_us = 1000;; step_us = step_us < 50000 ? step_us * 2 : 50000) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return decode(status);
    if (r < 0 && errno != EINTR) return -1;
    if (lab_clock_s() >= until) break;
    struct timespec ts = {0, step_us * 1000};
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return -2;
}
