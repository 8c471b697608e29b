/* The runner's routing rule and the supervisor's kill/reap order, without
 * a GPU: where a run goes for every backend, GPU state and experiment kind,
 * and that a worker's pid is never signalled once it has been reaped. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "runner.h"
#include "suites.h"
#include "supervisor.h"

START_TEST(route_auto_simulates_an_experiment_without_a_gpu_side) {
  ck_assert_int_eq(srv_route_of("auto", 1, 0, 0), SRV_ROUTE_SIMULATE); /* a GPU is there, this one has no kernel */
  ck_assert_int_eq(srv_route_of("auto", 1, 1, 0), SRV_ROUTE_GPU);
  ck_assert_int_eq(srv_route_of("auto", 0, 1, 0), SRV_ROUTE_SIMULATE);
  ck_assert_int_eq(srv_route_of("auto", 0, 0, 0), SRV_ROUTE_SIMULATE);
}
END_TEST

START_TEST(route_cuda_says_why_it_cannot) {
  ck_assert_int_eq(srv_route_of("cuda", 1, 1, 0), SRV_ROUTE_GPU);
  ck_assert_int_eq(srv_route_of("cuda", 0, 1, 0), SRV_ROUTE_NO_GPU);
  ck_assert_int_eq(srv_route_of("cuda", 1, 0, 0), SRV_ROUTE_NO_KERNEL);
  ck_assert_int_eq(srv_route_of("cuda", 0, 0, 0), SRV_ROUTE_NO_KERNEL); /* no live run: no GPU would change that */
}
END_TEST

START_TEST(route_device_describes_this_machine_and_simulated_always_simulates) {
  for (int usable = 0; usable < 2; usable++) {
    ck_assert_int_eq(srv_route_of("auto", usable, 0, 1), SRV_ROUTE_GPU);
    ck_assert_int_eq(srv_route_of("cuda", usable, 0, 1), SRV_ROUTE_GPU);
    for (int kernel = 0; kernel < 2; kernel++)
      ck_assert_int_eq(srv_route_of("simulated", usable, kernel, 0), SRV_ROUTE_SIMULATE);
  }
}
END_TEST

/* The worst interleaving, forced: srv_supervisor_kill arrives the instant
 * after waitpid has reaped the worker, when the system may already have
 * given its pid to another process. */
static srv_supervisor *racer;
static pid_t reaped_pid;
static int signals_after_reap;

static int spy_kill(pid_t pid, int sig) {
  if (reaped_pid && pid == reaped_pid) signals_after_reap++;
  return kill(pid, sig);
}

static pid_t racing_waitpid(pid_t pid, int *status, int options) {
  pid_t r = waitpid(pid, status, options);
  if (r == pid) {
    reaped_pid = pid;
    srv_supervisor_kill(racer); /* another thread's kill, just too late */
  }
  return r;
}

START_TEST(supervisor_never_signals_a_reaped_worker) {
  /* A shell script as the "worker": it says it is ready, then echoes the job
   * back (cat), which is not an answer. */
  char dir[] = "/tmp/gpulab-sup-XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/worker.sh", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\necho '%s'\nexec cat\n", SRV_WORKER_READY);
  fclose(f);
  chmod(path, 0755);
  for (int round = 0; round < 2; round++) {
    racer = srv_supervisor_new(path);
    ck_assert_ptr_nonnull(racer);
    srv_supervisor_os os = {spy_kill, racing_waitpid};
    srv_supervisor_set_os(racer, os);
    reaped_pid = 0;
    signals_after_reap = 0;
    cJSON *job = cJSON_CreateObject(), *answer = NULL;
    cJSON_AddStringToObject(job, "job", "echo");
    lab_error err;
    srv_supervisor_call(racer, job, 5, 5, &answer, &err); /* starts the worker; its reply is refused */
    cJSON_Delete(job);
    cJSON_Delete(answer);
    if (round == 1) srv_supervisor_kill(racer); /* a kill while it lives is fine */
    srv_supervisor_free(racer); /* reaps it */
    ck_assert_msg(reaped_pid != 0, "the worker was never reaped through the supervisor's waitpid");
    ck_assert_int_eq(signals_after_reap, 0);
  }
  remove(path);
  rmdir(dir);
}
END_TEST

Suite *make_runner_suite(void) {
  Suite *s = suite_create("runner");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, route_auto_simulates_an_experiment_without_a_gpu_side);
  tcase_add_test(tc, route_cuda_says_why_it_cannot);
  tcase_add_test(tc, route_device_describes_this_machine_and_simulated_always_simulates);
  tcase_add_test(tc, supervisor_never_signals_a_reaped_worker);
  suite_add_tcase(s, tc);
  return s;
}
