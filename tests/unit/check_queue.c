/* The fair GPU queue: round-robin start order across sessions, positions
 * and estimates that match it, queue_full, cancel, and worker threads that
 * run every job and stop on time. Driven without a GPU. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cjson_compat.h"
#include "queue.h"
#include "suites.h"
#include "supervisor.h"

/* A run of `session`, whose learner has the same number. */
static void push(srv_queue *q, int64_t run, int64_t session, const char *exp) {
  lab_error err;
  double ra;
  ck_assert_int_eq(srv_queue_push(q, run, session, session, exp, cJSON_CreateObject(), &ra, &err), 0);
}

/* Takes one job on slot 0, finishes it at once, returns its run id. */
static int64_t take_done(srv_queue *q) {
  srv_queue_job *j = srv_queue_take(q, 0, 0);
  ck_assert_ptr_nonnull(j);
  int64_t id = j->run_id;
  srv_queue_done(q, j, 1.0);
  return id;
}

START_TEST(queue_fast_learner_cannot_starve_another) {
  srv_queue *q = srv_queue_new(50);
  for (int i = 1; i <= 5; i++) push(q, i, 100, "timing"); /* learner A clicks five times */
  push(q, 6, 200, "timing");                               /* then learner B once */
  int64_t order[6];
  for (int i = 0; i < 6; i++) order[i] = take_done(q);
  ck_assert_int_eq(order[0], 1);
  ck_assert_int_eq(order[1], 6); /* B's only run goes second, before A's second */
  for (int i = 2; i < 6; i++) ck_assert_int_eq(order[i], i);
  ck_assert_ptr_null(srv_queue_take(q, 0, 0));
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_positions_follow_the_round_robin_order) {
  srv_queue *q = srv_queue_new(50);
  push(q, 1, 10, "timing");
  push(q, 2, 10, "timing");
  push(q, 3, 10, "timing");
  push(q, 4, 20, "timing");
  push(q, 5, 20, "timing");
  push(q, 6, 30, "timing");
  /* expected start order: 1 (A) 4 (B) 6 (C) 2 (A) 5 (B) 3 (A) */
  const int64_t expect[] = {1, 4, 6, 2, 5, 3};
  for (int k = 0; k < 6; k++) {
    srv_queue_status st;
    srv_queue_status_of(q, expect[k], &st);
    ck_assert_int_eq(st.state, SRV_Q_QUEUED);
    ck_assert_int_eq(st.position, k + 1);
  }
  for (int k = 0; k < 6; k++) ck_assert_int_eq(take_done(q), expect[k]);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_estimate_grows_with_the_work_ahead) {
  srv_queue *q = srv_queue_new(50);
  /* Teach it that timing takes 2 s. */
  push(q, 1, 1, "timing");
  srv_queue_job *j = srv_queue_take(q, 0, 0);
  srv_queue_done(q, j, 2.0);
  ck_assert_double_eq_tol(srv_queue_run_estimate(q, "timing"), 2.0, 1e-9);
  ck_assert_double_eq_tol(srv_queue_run_estimate(q, "memory"), 2.0, 1e-9); /* no history: mean of all */
  push(q, 2, 1, "timing");
  push(q, 3, 2, "timing");
  push(q, 4, 3, "timing");
  srv_queue_status a, b, c;
  srv_queue_status_of(q, 2, &a);
  srv_queue_status_of(q, 3, &b);
  srv_queue_status_of(q, 4, &c);
  /* Session 1 was served, so 3 and 4 (never served) start before 2. */
  ck_assert_int_eq(b.position, 1);
  ck_assert_int_eq(c.position, 2);
  ck_assert_int_eq(a.position, 3);
  ck_assert_double_eq_tol(b.estimate_s, 2.0, 1e-6);
  ck_assert_double_eq_tol(c.estimate_s, 4.0, 1e-6);
  ck_assert_double_eq_tol(a.estimate_s, 6.0, 1e-6);
  srv_queue_status none;
  srv_queue_status_of(q, 99, &none);
  ck_assert_int_eq(none.state, SRV_Q_UNKNOWN);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_estimate_is_the_mean_of_recent_runs) {
  srv_queue *q = srv_queue_new(50);
  ck_assert_double_eq_tol(srv_queue_run_estimate(q, "timing"), 5.0, 1e-9); /* nothing known yet */
  for (int i = 0; i < 20; i++) {
    push(q, i + 1, 1, "timing");
    srv_queue_job *j = srv_queue_take(q, 0, 0);
    srv_queue_done(q, j, i < 12 ? 100.0 : 1.0); /* the last 8 runs took 1 s */
  }
  ck_assert_double_eq_tol(srv_queue_run_estimate(q, "timing"), 1.0, 1e-9);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_full_refuses_with_retry_after) {
  srv_queue *q = srv_queue_new(2);
  push(q, 1, 1, "timing");
  push(q, 2, 2, "timing");
  lab_error err;
  double ra = 0;
  ck_assert_int_eq(srv_queue_full(q, 1, &ra, &err), -1); /* learner 1 already waits */
  ck_assert_int_eq(srv_queue_push(q, 3, 1, 1, "timing", cJSON_CreateObject(), &ra, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_QUEUE_FULL);
  ck_assert(ra >= 1);
  ck_assert_int_eq(srv_queue_waiting(q), 2);
  take_done(q); /* one starts: a place frees up */
  ck_assert_int_eq(srv_queue_full(q, 1, &ra, &err), 0);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_first_run_of_a_learner_is_taken_past_queue_max) {
  srv_queue *q = srv_queue_new(3);
  for (int i = 1; i <= 3; i++) push(q, i, 1, "timing"); /* one learner filled it */
  lab_error err;
  double ra = 0;
  ck_assert_int_eq(srv_queue_push(q, 4, 1, 1, "timing", cJSON_CreateObject(), &ra, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_QUEUE_FULL);
  for (int learner = 2; learner <= 40; learner++) push(q, 100 + learner, learner, "timing"); /* a class arrives */
  ck_assert_int_eq(srv_queue_waiting(q), 3 + 39);
  ck_assert_int_eq(srv_queue_push(q, 999, 2, 2, "timing", cJSON_CreateObject(), &ra, &err), -1); /* a second one waits */
  /* Round-robin: the newcomers' first runs start before the first learner's second. */
  ck_assert_int_eq(take_done(q), 1);
  ck_assert_int_eq(take_done(q), 102);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_learner_cap_counts_waiting_and_running_runs) {
  srv_queue *q = srv_queue_new(50);
  srv_queue_set_learner_cap(q, 2);
  push(q, 1, 7, "timing");
  srv_queue_job *j = srv_queue_take(q, 0, 0); /* one running */
  push(q, 2, 7, "timing");                    /* one waiting */
  lab_error err;
  double ra = 0;
  ck_assert_int_eq(srv_queue_learner_runs(q, 7), 2);
  ck_assert_int_eq(srv_queue_push(q, 3, 70, 7, "timing", cJSON_CreateObject(), &ra, &err), -1); /* another session, same learner */
  ck_assert_int_eq(err.code, LAB_E_TOO_MANY_QUEUED);
  ck_assert(ra >= 1);
  push(q, 4, 8, "timing"); /* another learner is not held back */
  srv_queue_done(q, j, 0.5);
  ck_assert_int_eq(srv_queue_full(q, 7, &ra, &err), 0);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_cancels_only_a_waiting_run_of_its_session) {
  srv_queue *q = srv_queue_new(10);
  push(q, 1, 1, "timing");
  push(q, 2, 1, "timing");
  push(q, 3, 2, "timing");
  srv_queue_job *running = srv_queue_take(q, 0, 0);
  ck_assert_int_eq(running->run_id, 1);
  ck_assert_int_eq(srv_queue_cancel(q, 1, 1), 0);  /* running: not cancellable */
  ck_assert_int_eq(srv_queue_cancel(q, 2, 2), -1); /* another session's */
  ck_assert_int_eq(srv_queue_cancel(q, 2, 1), 1);
  ck_assert_int_eq(srv_queue_cancel(q, 2, 1), -1); /* already gone */
  ck_assert_int_eq(srv_queue_waiting(q), 1);
  srv_queue_status st;
  srv_queue_status_of(q, 3, &st);
  ck_assert_int_eq(st.position, 1);
  srv_queue_status_of(q, 1, &st);
  ck_assert_int_eq(st.state, SRV_Q_RUNNING);
  ck_assert_int_eq(st.position, 0);
  srv_queue_done(q, running, 0.5);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_json_lists_running_then_waiting_in_start_order) {
  srv_queue *q = srv_queue_new(10);
  push(q, 1, 1, "timing");
  push(q, 2, 1, "memory");
  push(q, 3, 2, "transfer");
  srv_queue_job *j = srv_queue_take(q, 0, 0);
  cJSON *arr = srv_queue_json(q);
  ck_assert_int_eq(cJSON_GetArraySize(arr), 3);
  const int64_t ids[] = {1, 3, 2};
  const char *st[] = {"running", "queued", "queued"};
  for (int i = 0; i < 3; i++) {
    cJSON *o = cJSON_GetArrayItem(arr, i);
    ck_assert_int_eq((int64_t)cJSON_GetObjectItem(o, "id")->valuedouble, ids[i]);
    ck_assert_str_eq(cJSON_GetObjectItem(o, "status")->valuestring, st[i]);
    ck_assert_int_eq(cJSON_GetObjectItem(o, "position")->valueint, i);
  }
  cJSON_Delete(arr);
  srv_queue_done(q, j, 0.1);
  srv_queue_free(q);
}
END_TEST

static atomic_int ran;
static atomic_int release;

static void count_exec(void *ctx, int slot, srv_queue_job *job) {
  (void)ctx, (void)job;
  ck_assert(slot >= 0 && slot < 2);
  ran++;
}

static void blocking_exec(void *ctx, int slot, srv_queue_job *job) {
  (void)ctx, (void)slot, (void)job;
  while (!release) usleep(1000);
  ran++;
}

static atomic_int aborts;
static atomic_int ran_at_abort = -1;
static struct timespec stop_t0;
static _Atomic double abort_after_s = -1; /* since stop_t0 */

static double since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void release_all(void *ctx) {
  (void)ctx;
  abort_after_s = since(&stop_t0);
  ran_at_abort = ran;
  aborts++;
  release = 1;
}

START_TEST(queue_workers_run_every_job_once) {
  ran = 0;
  srv_queue *q = srv_queue_new(100);
  ck_assert_int_eq(srv_queue_start(q, 2, count_exec, NULL), 0);
  for (int i = 1; i <= 40; i++) push(q, i, i % 5, "timing");
  for (int i = 0; i < 2000 && ran < 40; i++) usleep(1000);
  ck_assert_int_eq(ran, 40);
  srv_queue_stop(q, 1.0, NULL);
  ck_assert_int_eq(srv_queue_running(q), 0);
  srv_queue_free(q);
}
END_TEST

START_TEST(queue_stop_aborts_a_run_past_its_grace) {
  ran = 0;
  release = 0;
  srv_queue *q = srv_queue_new(10);
  ck_assert_int_eq(srv_queue_start(q, 1, blocking_exec, NULL), 0);
  push(q, 1, 1, "timing");
  push(q, 2, 1, "timing");
  for (int i = 0; i < 1000 && srv_queue_running(q) == 0; i++) usleep(1000);
  ck_assert_int_eq(srv_queue_running(q), 1);
  aborts = 0;
  clock_gettime(CLOCK_MONOTONIC, &stop_t0);
  srv_queue_stop(q, 0.1, release_all);
  /* The events, not a wall-clock bound: the run never ends by itself, so
   * stop returning at all means it aborted it, once, while it still ran,
   * and only after the grace (0.1 s; 1 % spared for a slewed clock). */
  ck_assert_int_eq(aborts, 1);
  ck_assert_int_eq(ran_at_abort, 0);
  ck_assert(abort_after_s >= 0.099);
  ck_assert_int_eq(ran, 1);                 /* the second run was not started */
  ck_assert_int_eq(srv_queue_waiting(q), 1); /* it stays queued for the next start */
  srv_queue_free(q);
}
END_TEST

/* Each GPU's worker sees only its GPU: a stand-in worker (a shell script)
 * answers with the CUDA_VISIBLE_DEVICES it was started with. */
START_TEST(queue_gpu_worker_is_pinned_to_its_gpu) {
  char dir[] = "/tmp/gpulab-sup-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/worker.sh", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\necho '%s'\n", SRV_WORKER_READY); /* loaded: the supervisor's start-up handshake */
  fputs("while read -r line; do echo \"{\\\"ok\\\":true,\\\"result\\\":\\\"${CUDA_VISIBLE_DEVICES-unset}\\\"}\"; done\n", f);
  fclose(f);
  chmod(path, 0755);
  setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3", 1);
  for (int k = 0; k < 2; k++) {
    srv_supervisor *s = srv_supervisor_new(path);
    if (k == 1) ck_assert_int_eq(srv_supervisor_set_gpu(s, 2), 0);
    cJSON *job = cJSON_CreateObject(), *answer = NULL;
    lab_error err;
    ck_assert_int_eq(srv_supervisor_call(s, job, 5, 5, &answer, &err), 0);
    ck_assert_str_eq(answer->valuestring, k == 0 ? "0,1,2,3" : "2"); /* unpinned: the server's own */
    cJSON_Delete(answer);
    cJSON_Delete(job);
    srv_supervisor_free(s);
  }
  unsetenv("CUDA_VISIBLE_DEVICES");
  remove(path);
  rmdir(dir);
}
END_TEST

Suite *make_queue_suite(void) {
  Suite *s = suite_create("queue");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 10);
  tcase_add_test(tc, queue_fast_learner_cannot_starve_another);
  tcase_add_test(tc, queue_positions_follow_the_round_robin_order);
  tcase_add_test(tc, queue_estimate_grows_with_the_work_ahead);
  tcase_add_test(tc, queue_estimate_is_the_mean_of_recent_runs);
  tcase_add_test(tc, queue_full_refuses_with_retry_after);
  tcase_add_test(tc, queue_first_run_of_a_learner_is_taken_past_queue_max);
  tcase_add_test(tc, queue_learner_cap_counts_waiting_and_running_runs);
  tcase_add_test(tc, queue_cancels_only_a_waiting_run_of_its_session);
  tcase_add_test(tc, queue_json_lists_running_then_waiting_in_start_order);
  tcase_add_test(tc, queue_workers_run_every_job_once);
  tcase_add_test(tc, queue_stop_aborts_a_run_past_its_grace);
  tcase_add_test(tc, queue_gpu_worker_is_pinned_to_its_gpu);
  suite_add_tcase(s, tc);
  return s;
}
