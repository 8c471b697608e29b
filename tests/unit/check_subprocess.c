/* Children of the server start without fork(): no pthread_atfork handler
 * runs (OpenBLAS's shut its pool down under an sgemm in flight and hung the
 * server), every descriptor above 2 is closed in the child, and a child
 * that does not end is killed at its deadline. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "subprocess.h"
#include "suites.h"

static int atfork_calls;
static void count_prepare(void) { atfork_calls++; }

START_TEST(spawning_runs_no_atfork_handler) {
  ck_assert_int_eq(pthread_atfork(count_prepare, NULL, NULL), 0);
  atfork_calls = 0;
  char *argv[] = {"true", NULL};
  srv_spawn_opts o = {.path = "true", .argv = argv};
  pid_t pid;
  ck_assert_int_eq(srv_spawn(&o, &pid), 0);
  ck_assert_int_eq(srv_spawn_wait(pid, 10), 0);
  ck_assert_int_eq(atfork_calls, 0);
}
END_TEST

START_TEST(a_child_sees_no_descriptor_of_the_server) {
  int leak = open("/dev/null", O_RDONLY); /* not CLOEXEC on purpose */
  ck_assert_int_ge(leak, 3);
  int fds[2];
  ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
  char probe[64];
  snprintf(probe, sizeof probe, "test -e /proc/self/fd/%d && echo leaked || echo closed", leak);
  char *argv[] = {"sh", "-c", probe, NULL};
  srv_spawn_opts o = {.path = "/bin/sh", .argv = argv, .stdout_fd = fds[1]};
  pid_t pid;
  ck_assert_int_eq(srv_spawn(&o, &pid), 0);
  close(fds[1]);
  char out[32] = "";
  ssize_t n = read(fds[0], out, sizeof out - 1);
  ck_assert_int_gt(n, 0);
  ck_assert_str_eq(out, "closed\n");
  ck_assert_int_eq(srv_spawn_wait(pid, 10), 0);
  close(fds[0]);
  close(leak);
}
END_TEST

START_TEST(a_child_past_its_deadline_is_killed) {
  char *argv[] = {"sleep", "30", NULL};
  srv_spawn_opts o = {.path = "sleep", .argv = argv};
  pid_t pid;
  ck_assert_int_eq(srv_spawn(&o, &pid), 0);
  double t0 = lab_clock_s();
  ck_assert_int_eq(srv_spawn_wait(pid, 0.2), -2);
  ck_assert(lab_clock_s() - t0 < 20); /* killed, not waited for: a bound, not a timing */
}
END_TEST

START_TEST(a_missing_program_is_an_error_not_a_child) {
  char *argv[] = {"gpulab-no-such-program", NULL};
  srv_spawn_opts o = {.path = "gpulab-no-such-program", .argv = argv};
  pid_t pid;
  ck_assert_int_eq(srv_spawn(&o, &pid), -1);
  ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(exit_status_and_signals_are_told_apart) {
  char *argv[] = {"sh", "-c", "exit 3", NULL};
  srv_spawn_opts o = {.path = "/bin/sh", .argv = argv};
  pid_t pid;
  ck_assert_int_eq(srv_spawn(&o, &pid), 0);
  ck_assert_int_eq(srv_spawn_wait(pid, -1), 3);
  char *argv2[] = {"sh", "-c", "kill -TERM $$", NULL};
  o.argv = argv2;
  ck_assert_int_eq(srv_spawn(&o, &pid), 0);
  ck_assert_int_eq(srv_spawn_wait(pid, 10), 128 + 15);
}
END_TEST

Suite *make_subprocess_suite(void) {
  Suite *s = suite_create("subprocess");
  TCase *tc = tcase_create("spawn");
  tcase_add_test(tc, spawning_runs_no_atfork_handler);
  tcase_add_test(tc, a_child_sees_no_descriptor_of_the_server);
  tcase_add_test(tc, a_child_past_its_deadline_is_killed);
  tcase_add_test(tc, a_missing_program_is_an_error_not_a_child);
  tcase_add_test(tc, exit_status_and_signals_are_told_apart);
  suite_add_tcase(s, tc);
  return s;
}
