/* The class store (SQLite): sessions, runs and quiz attempts persist across
 * a reopen, one session never sees another's run, and a locked or full
 * database answers store_busy / store_unavailable instead of crashing. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "store.h"
#include "suites.h"
#include "temp_db.h"

static test_temp_db tmp;

static void setup(void) { test_temp_db_make(&tmp, "gpulab-store"); }

static void teardown(void) { test_temp_db_remove(&tmp); }

static void hash_of(int n, unsigned char h[SRV_HASH_BYTES]) {
  memset(h, 0, SRV_HASH_BYTES);
  h[0] = (unsigned char)n;
  h[31] = 0xab;
}

static srv_store *open_store(void) {
  srv_store *s = NULL;
  lab_error err = {0};
  ck_assert_msg(srv_store_open(tmp.db, &s, &err) == 0, "open: %s", err.message);
  return s;
}

static int64_t last_learner; /* the learner of the latest join() */

/* A new learner (cookie hash n + 100) and a session of it (hash n). */
static int64_t join(srv_store *s, int n, const char *name) {
  unsigned char h[SRV_HASH_BYTES];
  srv_store_learner l;
  srv_store_session sess;
  lab_error err = {0};
  hash_of(n + 100, h);
  ck_assert_msg(srv_store_learner_add(s, h, name, &l, &err) == 0, "%s", err.message);
  hash_of(n, h);
  ck_assert_msg(srv_store_session_add(s, h, name, l.id, &sess, &err) == 0, "%s", err.message);
  ck_assert_str_eq(sess.name, name);
  ck_assert_int_eq(sess.learner_id, l.id);
  last_learner = l.id;
  return sess.id;
}

START_TEST(store_keeps_sessions_runs_and_quiz_across_reopen) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), run = 0;
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{\"size\":64}", "cuda", 0, &run, &err), 0);
  ck_assert_int_eq(srv_store_run_start(s, run, &err), 0);
  ck_assert_int_eq(srv_store_run_finish(s, run, "done", NULL, "{\"experiment\":\"timing\"}", 1500, &err), 0);
  ck_assert_int_eq(srv_store_quiz_add(s, ada, "first-steps", 3, 4, 1, "{\"q1\":[\"a\"]}", &err), 0);
  srv_store_close(s);

  s = open_store();
  unsigned char h[SRV_HASH_BYTES];
  srv_store_session sess;
  hash_of(1, h);
  ck_assert_int_eq(srv_store_session_find(s, h, 60000, &sess, &err), 0);
  ck_assert_int_eq(sess.id, ada);
  ck_assert_str_eq(sess.name, "Ada");
  ck_assert_double_eq_tol(sess.gpu_ms_used, 1500, 1e-9);
  cJSON *r = NULL;
  ck_assert_int_eq(srv_store_run_get(s, ada, run, &r, &err), 0);
  ck_assert_str_eq(cJSON_GetObjectItem(r, "status")->valuestring, "done");
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "experiment")->valuestring, "timing");
  ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "params"), "size")->valueint, 64);
  ck_assert(cJSON_IsString(cJSON_GetObjectItem(r, "finished_at")));
  cJSON_Delete(r);
  cJSON *q = NULL;
  ck_assert_int_eq(srv_store_quiz_list(s, ada, &q, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(q), 1);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(q, 0), "passed")));
  cJSON_Delete(q);
  srv_store_close(s);
}
END_TEST

START_TEST(store_hides_another_sessions_run) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), bob = join(s, 2, "Bob"), run = 0;
  ck_assert_int_eq(srv_store_run_add(s, ada, "memory", "{}", "cuda", 0, &run, &err), 0);
  cJSON *r = NULL, *list = NULL;
  ck_assert_int_eq(srv_store_run_get(s, bob, run, &r, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_UNKNOWN_RUN);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(srv_store_runs_list(s, bob, &list, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(list), 0);
  cJSON_Delete(list);
  ck_assert_int_eq(srv_store_runs_list(s, ada, &list, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(list), 1);
  cJSON_Delete(list);
  srv_store_close(s);
}
END_TEST

START_TEST(store_ended_session_is_not_found) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada");
  ck_assert_int_eq(srv_store_session_end(s, ada, &err), 0);
  unsigned char h[SRV_HASH_BYTES];
  srv_store_session sess;
  hash_of(1, h);
  ck_assert_int_eq(srv_store_session_find(s, h, 60000, &sess, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NO_SESSION);
  ck_assert_int_eq(srv_store_session_end(s, ada, &err), -1);
  int64_t active = -1;
  ck_assert_int_eq(srv_store_sessions_active(s, &active, &err), 0);
  ck_assert_int_eq(active, 0);
  srv_store_close(s);
}
END_TEST

START_TEST(store_cancel_only_while_queued) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), learner = last_learner, a = 0, b = 0;
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &a, &err), 0);
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &b, &err), 0);
  ck_assert_int_eq(srv_store_run_start(s, a, &err), 0);
  cJSON *un = NULL;
  ck_assert_int_eq(srv_store_runs_unfinished(s, &un, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(un), 2);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(un, 0), "status")->valuestring, "running");
  cJSON_Delete(un);
  ck_assert_int_eq(srv_store_run_finish(s, b, "cancelled", NULL, NULL, 0, &err), 0);
  ck_assert_int_eq(srv_store_run_finish(s, b, "cancelled", NULL, NULL, 0, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NOT_CANCELLABLE);
  ck_assert_int_eq(srv_store_run_finish(s, 9999, "failed", "worker_crashed", NULL, 0, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_UNKNOWN_RUN);
  ck_assert_int_eq(srv_store_run_finish(s, a, "exploded", NULL, NULL, 0, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_INTERNAL);
  ck_assert_int_eq(srv_store_run_finish(s, a, "failed", "worker_crashed", NULL, 250, &err), 0);
  double ms = 0;
  ck_assert_int_eq(srv_store_learner_gpu_ms(s, learner, &ms, &err), 0);
  ck_assert_double_eq_tol(ms, 250, 1e-9);
  srv_store_close(s);
}
END_TEST

START_TEST(store_locked_database_is_store_busy) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada");
  sqlite3 *other = NULL;
  ck_assert_int_eq(sqlite3_open(tmp.db, &other), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
  int64_t run = 0;
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &run, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_STORE_BUSY);
  ck_assert_int_eq(lab_err_http_status(err.code), 503);
  /* Reads still work while another process writes (WAL). */
  cJSON *list = NULL;
  ck_assert_int_eq(srv_store_runs_list(s, ada, &list, &err), 0);
  cJSON_Delete(list);
  ck_assert_int_eq(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(other);
  ck_assert_msg(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &run, &err) == 0, "%s", err.message);
  srv_store_close(s);
}
END_TEST

START_TEST(store_full_database_is_store_unavailable) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada");
  ck_assert_int_eq(srv_store_sqlite_cap_pages(s, 0, &err), 0);
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  int failed = 0;
  for (int i = 0; i < 50 && !failed; i++) {
    int64_t run = 0;
    if (srv_store_run_add(s, ada, "timing", big, "cuda", 0, &run, &err) != 0) failed = 1;
  }
  ck_assert_msg(failed, "a capped database refused nothing");
  ck_assert_int_eq(err.code, LAB_E_STORE_UNAVAILABLE);
  ck_assert_ptr_nonnull(strstr(err.message, "full"));
  /* What was stored before stays readable. */
  cJSON *list = NULL;
  ck_assert_int_eq(srv_store_runs_list(s, ada, &list, &err), 0);
  cJSON_Delete(list);
  srv_store_close(s);
}
END_TEST

START_TEST(store_unopenable_path_is_store_unavailable) {
  srv_store *s = NULL;
  lab_error err = {0};
  char path[200];
  snprintf(path, sizeof path, "%s/no/such/folder/class.db", tmp.dir);
  ck_assert_int_eq(srv_store_open(path, &s, &err), -1);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(err.code, LAB_E_STORE_UNAVAILABLE);
  /* A file that is not a database. */
  FILE *f = fopen(tmp.db, "w");
  ck_assert_ptr_nonnull(f);
  fputs("this is not an SQLite database, it is plain text long enough to have a header......\n", f);
  fclose(f);
  ck_assert_int_eq(srv_store_open(tmp.db, &s, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_STORE_UNAVAILABLE);
}
END_TEST

/* A learner joining again and again keeps SRV_LIVE_SESSIONS_PER_LEARNER
 * live sessions: the oldest end, and their hashes find nothing. */
START_TEST(store_ends_a_learners_oldest_sessions_beyond_the_cap) {
  srv_store *s = open_store();
  lab_error err = {0};
  (void)join(s, 1, "Ada");
  int64_t ada = last_learner;
  unsigned char h[SRV_HASH_BYTES];
  srv_store_session sess;
  for (int n = 2; n <= 8; n++) {
    hash_of(n, h);
    ck_assert_msg(srv_store_session_add(s, h, "Ada", ada, &sess, &err) == 0, "%s", err.message);
  }
  (void)join(s, 20, "Bo"); /* another learner's session is not touched */
  int64_t live = 0;
  ck_assert_int_eq(srv_store_sessions_active(s, &live, &err), 0);
  ck_assert_int_eq(live, SRV_LIVE_SESSIONS_PER_LEARNER + 1);
  for (int n = 1; n <= 8; n++) {
    hash_of(n, h);
    int found = srv_store_session_find(s, h, 60000, &sess, &err) == 0;
    ck_assert_int_eq(found, n > 8 - SRV_LIVE_SESSIONS_PER_LEARNER);
    if (!found) ck_assert_int_eq(err.code, LAB_E_NO_SESSION);
  }
  srv_store_close(s);
}
END_TEST

/* Every attempt of a learner, across its sessions, once across the pages. */
START_TEST(store_pages_a_learners_quiz_attempts) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t first = join(s, 1, "Ada"), ada = last_learner, other = join(s, 2, "Bo");
  unsigned char h[SRV_HASH_BYTES];
  srv_store_session second;
  hash_of(3, h);
  ck_assert_int_eq(srv_store_session_add(s, h, "Ada", ada, &second, &err), 0);
  int n = SRV_QUIZ_PAGE_MAX + 7;
  for (int i = 0; i < n; i++)
    ck_assert_int_eq(srv_store_quiz_add(s, i % 2 ? first : second.id, "x", i, 100, 0, "{}", &err), 0);
  ck_assert_int_eq(srv_store_quiz_add(s, other, "x", 1, 1, 1, "{}", &err), 0);
  double seen = 0, last_id = 1e18;
  for (int page = 0; page < 3; page++) {
    cJSON *list = NULL;
    int64_t total = 0;
    ck_assert_int_eq(srv_store_quiz_page(s, ada, (int64_t)page * SRV_QUIZ_PAGE_MAX, SRV_QUIZ_PAGE_MAX, &list, &total, &err), 0);
    ck_assert_int_eq(total, n);
    const cJSON *a;
    cJSON_ArrayForEach(a, list) {
      double id = cJSON_GetObjectItem(a, "id")->valuedouble;
      ck_assert(id < last_id); /* newest first, no repeat */
      last_id = id;
      seen++;
    }
    ck_assert_int_eq(cJSON_GetArraySize(list), page == 0 ? SRV_QUIZ_PAGE_MAX : page == 1 ? 7 : 0);
    cJSON_Delete(list);
  }
  ck_assert_int_eq((int)seen, n);
  srv_store_close(s);
}
END_TEST

START_TEST(store_overview_counts_runs_and_quiz_per_learner) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), bob = join(s, 2, "Bob"), run = 0;
  for (int i = 0; i < 3; i++) ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &run, &err), 0);
  ck_assert_int_eq(srv_store_run_finish(s, run, "done", NULL, "{}", 10, &err), 0);
  ck_assert_int_eq(srv_store_quiz_add(s, bob, "first-steps", 1, 4, 0, "{}", &err), 0);
  cJSON *o = NULL;
  ck_assert_int_eq(srv_store_class_overview(s, &o, &err), 0);
  cJSON *learners = cJSON_GetObjectItem(o, "learners");
  ck_assert_int_eq(cJSON_GetArraySize(learners), 2);
  cJSON *a = cJSON_GetArrayItem(learners, 0), *b = cJSON_GetArrayItem(learners, 1);
  ck_assert_str_eq(cJSON_GetObjectItem(a, "name")->valuestring, "Ada");
  ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "runs"), "total")->valueint, 3);
  ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "runs"), "queued")->valueint, 2);
  ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "runs"), "done")->valueint, 1);
  cJSON *bq = cJSON_GetObjectItem(b, "quiz");
  ck_assert_int_eq(cJSON_GetObjectItem(bq, "attempts")->valueint, 1);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(bq, "lessons")), 1);
  ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(bq, "lessons"), 0), "best_score")->valueint,
                   1);
  ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "sessions"), "live")->valueint, 1);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "waiting")), 2);
  ck_assert_int_eq((int)cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "waiting"), 0), "session_id")
                       ->valuedouble,
                   (int)ada);
  cJSON_Delete(o);
  srv_store_close(s);
}
END_TEST

START_TEST(store_recorded_run_is_done_at_once_and_not_unfinished) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), run = 0;
  ck_assert_int_eq(srv_store_run_record(s, ada, "timing", "{}", "simulated", "{\"backend\":\"simulated\"}", 0, 100, &run, &err), 0);
  cJSON *r = NULL, *un = NULL;
  ck_assert_int_eq(srv_store_run_get(s, ada, run, &r, &err), 0);
  ck_assert_str_eq(cJSON_GetObjectItem(r, "status")->valuestring, "done");
  ck_assert_str_eq(cJSON_GetObjectItem(r, "backend")->valuestring, "simulated");
  cJSON_Delete(r);
  ck_assert_int_eq(srv_store_runs_unfinished(s, &un, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(un), 0);
  cJSON_Delete(un);
  ck_assert_int_eq(srv_store_run_record(s, 777, "timing", "{}", "simulated", "{}", 0, 100, &run, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NO_SESSION);
  srv_store_close(s);
}
END_TEST

START_TEST(store_run_for_unknown_session_is_refused) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t run = 0;
  ck_assert_int_eq(srv_store_run_add(s, 4242, "timing", "{}", "cuda", 0, &run, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NO_SESSION);
  ck_assert_int_eq(srv_store_quiz_add(s, 4242, "x", 1, 1, 1, "{}", &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NO_SESSION);
  srv_store_close(s);
}
END_TEST

START_TEST(store_learner_is_found_by_its_cookie_and_takes_the_new_name) {
  srv_store *s = open_store();
  lab_error err = {0};
  join(s, 1, "Ada");
  int64_t ada = last_learner;
  unsigned char h[SRV_HASH_BYTES];
  srv_store_learner l;
  hash_of(101, h);
  ck_assert_int_eq(srv_store_learner_find(s, h, "Ada L.", &l, &err), 0);
  ck_assert_int_eq(l.id, ada);
  ck_assert_str_eq(l.name, "Ada L.");
  hash_of(55, h);
  ck_assert_int_eq(srv_store_learner_find(s, h, NULL, &l, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NO_SESSION);
  srv_store_close(s);
}
END_TEST

START_TEST(store_quota_is_charged_when_queued_and_refunded_if_never_run) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), learner = last_learner, a = 0, b = 0;
  double ms = -1;
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 1500, &a, &err), 0);
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 1500, &b, &err), 0);
  ck_assert_int_eq(srv_store_learner_gpu_ms(s, learner, &ms, &err), 0);
  ck_assert_double_eq_tol(ms, 3000, 1e-9); /* both estimates, at once */
  ck_assert_int_eq(srv_store_run_finish(s, b, "cancelled", NULL, NULL, 0, &err), 0);
  ck_assert_int_eq(srv_store_learner_gpu_ms(s, learner, &ms, &err), 0);
  ck_assert_double_eq_tol(ms, 1500, 1e-9); /* the cancelled one is refunded */
  ck_assert_int_eq(srv_store_run_start(s, a, &err), 0);
  ck_assert_int_eq(srv_store_run_finish(s, a, "done", NULL, "{}", 400, &err), 0);
  ck_assert_int_eq(srv_store_learner_gpu_ms(s, learner, &ms, &err), 0);
  ck_assert_double_eq_tol(ms, 400, 1e-9); /* settled to what it took */
  srv_store_close(s);
}
END_TEST

START_TEST(store_keeps_only_a_learners_newest_answered_runs) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), run = 0, gpu = 0;
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &gpu, &err), 0);
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(srv_store_run_record(s, ada, "timing", "{}", "simulated", "{}", 25, 3, &run, &err), 0);
  cJSON *list = NULL;
  ck_assert_int_eq(srv_store_runs_list(s, ada, &list, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(list), 4); /* the 3 newest answers and the GPU run */
  ck_assert_int_eq((int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "id")->valuedouble, run);
  ck_assert_int_eq((int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(list, 3), "id")->valuedouble, gpu);
  cJSON_Delete(list);
  unsigned char h[SRV_HASH_BYTES];
  srv_store_session sess;
  hash_of(1, h);
  ck_assert_int_eq(srv_store_session_find(s, h, 60000, &sess, &err), 0);
  ck_assert_double_eq_tol(sess.cpu_ms_used, 8 * 25, 1e-9); /* every run's CPU time was charged */
  srv_store_close(s);
}
END_TEST

START_TEST(store_limit_window_counts_costs_and_says_when_to_retry) {
  srv_store *s = open_store();
  lab_error err = {0};
  double retry = -1;
  int64_t ev[3];
  for (int i = 0; i < 3; i++) ck_assert_int_eq(srv_store_limit_add(s, "gpu_run", "learner:1", 0, &ev[i], &err), 0);
  ck_assert_int_eq(srv_store_limit_check(s, "gpu_run", "learner:1", 60000, 4, 0, &retry, &err), 0);
  ck_assert_int_eq(srv_store_limit_check(s, "gpu_run", "learner:1", 60000, 3, 0, &retry, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_RATE_LIMITED);
  ck_assert(retry >= 1 && retry <= 60);
  ck_assert_int_eq(srv_store_limit_check(s, "gpu_run", "learner:2", 60000, 3, 0, &retry, &err), 0); /* per subject */
  ck_assert_int_eq(srv_store_limit_check(s, "sim_run", "learner:1", 60000, 3, 0, &retry, &err), 0);  /* per kind */
  ck_assert_int_eq(srv_store_limit_undo(s, ev[2], &err), 0);
  ck_assert_int_eq(srv_store_limit_check(s, "gpu_run", "learner:1", 60000, 3, 0, &retry, &err), 0);
  /* Cost: two runs of 600 ms against a 1000 ms budget. */
  int64_t c;
  ck_assert_int_eq(srv_store_limit_add(s, "sim_run", "learner:1", 0, &c, &err), 0);
  ck_assert_int_eq(srv_store_limit_cost(s, c, 600, &err), 0);
  ck_assert_int_eq(srv_store_limit_check(s, "sim_run", "learner:1", 60000, 100, 1000, &retry, &err), 0);
  ck_assert_int_eq(srv_store_limit_add(s, "sim_run", "learner:1", 600, &c, &err), 0);
  ck_assert_int_eq(srv_store_limit_check(s, "sim_run", "learner:1", 60000, 100, 1000, &retry, &err), -1);
  ck_assert(retry >= 1);
  srv_store_close(s);
}
END_TEST

START_TEST(store_removed_or_replaced_file_is_store_unavailable) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), run = 0;
  char moved[160];
  snprintf(moved, sizeof moved, "%s.moved", tmp.db);
  ck_assert_int_eq(rename(tmp.db, moved), 0);
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 0, &run, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_STORE_UNAVAILABLE);
  /* A different file under the old name is not the database either. */
  FILE *f = fopen(tmp.db, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  cJSON *list = NULL;
  ck_assert_int_eq(srv_store_runs_list(s, ada, &list, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_STORE_UNAVAILABLE);
  ck_assert_int_eq(unlink(tmp.db), 0);
  ck_assert_int_eq(rename(moved, tmp.db), 0); /* put back: usable again */
  ck_assert_int_eq(srv_store_runs_list(s, ada, &list, &err), 0);
  cJSON_Delete(list);
  srv_store_close(s);
}
END_TEST

/* A learner's newest three runs handed in are kept, a fourth replacing the
 * oldest; another learner's are theirs; the class's list names both. */
START_TEST(store_keeps_a_learners_three_newest_handins) {
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), ada_l = last_learner, bob = join(s, 2, "Bob"), bob_l = last_learner, id[5] = {0};
  long kept = 0;
  char summary[64];
  for (int i = 0; i < 4; i++) {
    snprintf(summary, sizeof summary, "{\"run\":{\"device\":\"T4 #%d\"}}", i);
    ck_assert_int_eq(srv_store_handin_add(s, ada, ada_l, "{\"gpulab_measure\":\"1.0\"}", summary,
                                          SRV_HANDINS_PER_LEARNER, &id[i], &kept, &err), 0);
    ck_assert_int_eq(kept, i < 3 ? i + 1 : 3);
  }
  ck_assert_int_eq(srv_store_handin_add(s, bob, bob_l, "{}", "{\"run\":{\"device\":\"M1\"}}", 3, &id[4], &kept, &err), 0);
  ck_assert_int_eq(kept, 1);
  cJSON *mine = NULL, *all = NULL;
  ck_assert_int_eq(srv_store_handins_mine(s, ada_l, &mine, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(mine), 3);
  ck_assert_int_eq((int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(mine, 0), "id")->valuedouble, id[3]); /* newest first */
  ck_assert_int_eq((int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(mine, 2), "id")->valuedouble, id[1]); /* the oldest went */
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(mine, 0), "summary"),
                                                           "run"), "device")->valuestring, "T4 #3");
  ck_assert_int_eq(srv_store_handins_class(s, &all, &err), 0);
  ck_assert_int_eq(cJSON_GetArraySize(all), 4);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(all, 0), "name")->valuestring, "Bob");
  ck_assert_int_eq((int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(all, 1), "learner_id")->valuedouble, ada_l);
  cJSON_Delete(mine);
  cJSON_Delete(all);
  srv_store_close(s);
}
END_TEST

START_TEST(store_upgrades_a_version_1_database) {
  sqlite3 *old = NULL;
  ck_assert_int_eq(sqlite3_open(tmp.db, &old), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(old,
                                "CREATE TABLE sessions(id INTEGER PRIMARY KEY, token_hash BLOB NOT NULL UNIQUE, name TEXT "
                                "NOT NULL, created INTEGER NOT NULL, last_seen INTEGER NOT NULL, gpu_ms_used REAL NOT NULL "
                                "DEFAULT 0, ended INTEGER);"
                                "CREATE TABLE runs(id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES "
                                "sessions(id), experiment TEXT NOT NULL, params_json TEXT, backend TEXT NOT NULL, status "
                                "TEXT NOT NULL, error_code TEXT, result_json TEXT, gpu_ms REAL NOT NULL DEFAULT 0, "
                                "queued_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER);"
                                "INSERT INTO sessions(token_hash,name,created,last_seen) VALUES(x'01',"
                                "'Old',1,1);"
                                "PRAGMA user_version=1;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(old);
  srv_store *s = open_store();
  lab_error err = {0};
  int64_t ada = join(s, 1, "Ada"), run = 0;
  ck_assert_int_eq(srv_store_run_add(s, ada, "timing", "{}", "cuda", 100, &run, &err), 0);
  int64_t active = 0;
  ck_assert_int_eq(srv_store_sessions_active(s, &active, &err), 0);
  ck_assert_int_eq(active, 2); /* the old session is still there */
  long kept = 0; /* and the newest tables are there too (version 4: hand-ins) */
  ck_assert_int_eq(srv_store_handin_add(s, ada, last_learner, "{}", "{}", 3, &run, &kept, &err), 0);
  ck_assert_int_eq(kept, 1);
  srv_store_close(s);
}
END_TEST

START_TEST(store_keeps_one_class_created_once) {
  srv_store *s = open_store();
  lab_error err = {0};
  srv_store_class *want = calloc(3, sizeof *want), *got = want + 1, *again = want + 2;
  int exists = -1, created = -1;
  ck_assert_int_eq(srv_store_class_get(s, got, &exists, &err), 0);
  ck_assert_int_eq(exists, 0);
  snprintf(want->config_json, sizeof want->config_json, "{\"name\":\"CS 101\"}");
  hash_of(7, want->instructor_hash);
  ck_assert_int_eq(srv_store_class_create(s, want, got, &created, &err), 0);
  ck_assert_int_eq(created, 1);
  ck_assert_str_eq(got->config_json, want->config_json);
  /* A second creator finds the first one's class. */
  snprintf(want->config_json, sizeof want->config_json, "{\"name\":\"other\"}");
  hash_of(8, want->instructor_hash);
  ck_assert_int_eq(srv_store_class_create(s, want, again, &created, &err), 0);
  ck_assert_int_eq(created, 0);
  ck_assert_str_eq(again->config_json, "{\"name\":\"CS 101\"}");
  ck_assert_int_eq(again->instructor_hash[0], 7);
  srv_store_close(s);
  /* It survives a reopen; an update keeps the token unless given a new one. */
  s = open_store();
  ck_assert_int_eq(srv_store_class_update(s, "{\"name\":\"CS 102\"}", NULL, &err), 0);
  ck_assert_int_eq(srv_store_class_get(s, got, &exists, &err), 0);
  ck_assert_int_eq(exists, 1);
  ck_assert_str_eq(got->config_json, "{\"name\":\"CS 102\"}");
  ck_assert_int_eq(got->instructor_hash[0], 7);
  ck_assert_int_eq(srv_store_class_update(s, got->config_json, want->instructor_hash, &err), 0);
  ck_assert_int_eq(srv_store_class_get(s, got, &exists, &err), 0);
  ck_assert_int_eq(got->instructor_hash[0], 8);
  ck_assert(!srv_store_shared(s));
  ck_assert_str_eq(srv_store_kind(s), "sqlite");
  /* The shared queue needs a shared store, and says so. */
  srv_store_claim c;
  int ok = 0;
  ck_assert_int_eq(srv_store_queue_claim(s, 1, &c, &ok, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_USAGE);
  ck_assert_ptr_nonnull(strstr(err.message, "--store postgresql://"));
  free(want);
  srv_store_close(s);
}
END_TEST

START_TEST(store_limit_take_checks_and_counts_in_one_step) {
  srv_store *s = open_store();
  lab_error err = {0};
  double retry = 0;
  int64_t id = 0;
  for (int i = 0; i < 3; i++) {
    ck_assert_msg(srv_store_limit_take(s, "gpu_run", "learner:1", 60000, 3, 0, &retry, &id, &err) == 0, "%s",
                  err.message);
    ck_assert(id > 0);
  }
  ck_assert_int_eq(srv_store_limit_take(s, "gpu_run", "learner:1", 60000, 3, 0, &retry, &id, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_RATE_LIMITED);
  ck_assert(retry >= 1);
  /* Undone, it admits one more. */
  ck_assert_int_eq(srv_store_limit_undo(s, id, &err), 0);
  ck_assert_int_eq(srv_store_limit_take(s, "gpu_run", "learner:1", 60000, 3, 0, &retry, &id, &err), 0);
  /* Another subject has its own bucket. */
  ck_assert_int_eq(srv_store_limit_take(s, "gpu_run", "learner:2", 60000, 3, 0, &retry, &id, &err), 0);
  srv_store_close(s);
}
END_TEST

/* A store one process owns: that process always holds a role, alone. */
START_TEST(store_owned_by_one_process_always_holds_a_role) {
  srv_store *s = open_store();
  srv_store_role *r = NULL;
  lab_error err = {0};
  ck_assert_int_eq(srv_store_role_open(s, SRV_STORE_ROLE_SLURM_KEEPER, &r, &err), 0);
  int held = 0, others = -1;
  ck_assert_int_eq(srv_store_role_hold(r, &held, &others, &err), 0);
  ck_assert_int_eq(held, 1);
  ck_assert_int_eq(others, 0);
  srv_store_role_close(r);
  srv_store_role_close(NULL);
  srv_store_close(s);
}
END_TEST

Suite *make_store_suite(void) {
  Suite *s = suite_create("store");
  TCase *t = tcase_create("sqlite");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 20);
  tcase_add_test(t, store_keeps_sessions_runs_and_quiz_across_reopen);
  tcase_add_test(t, store_hides_another_sessions_run);
  tcase_add_test(t, store_ended_session_is_not_found);
  tcase_add_test(t, store_cancel_only_while_queued);
  tcase_add_test(t, store_locked_database_is_store_busy);
  tcase_add_test(t, store_full_database_is_store_unavailable);
  tcase_add_test(t, store_unopenable_path_is_store_unavailable);
  tcase_add_test(t, store_overview_counts_runs_and_quiz_per_learner);
  tcase_add_test(t, store_ends_a_learners_oldest_sessions_beyond_the_cap);
  tcase_add_test(t, store_pages_a_learners_quiz_attempts);
  tcase_add_test(t, store_recorded_run_is_done_at_once_and_not_unfinished);
  tcase_add_test(t, store_run_for_unknown_session_is_refused);
  tcase_add_test(t, store_learner_is_found_by_its_cookie_and_takes_the_new_name);
  tcase_add_test(t, store_quota_is_charged_when_queued_and_refunded_if_never_run);
  tcase_add_test(t, store_keeps_only_a_learners_newest_answered_runs);
  tcase_add_test(t, store_limit_window_counts_costs_and_says_when_to_retry);
  tcase_add_test(t, store_removed_or_replaced_file_is_store_unavailable);
  tcase_add_test(t, store_upgrades_a_version_1_database);
  tcase_add_test(t, store_keeps_a_learners_three_newest_handins);
  tcase_add_test(t, store_keeps_one_class_created_once);
  tcase_add_test(t, store_limit_take_checks_and_counts_in_one_step);
  tcase_add_test(t, store_owned_by_one_process_always_holds_a_role);
  suite_add_tcase(s, t);
  return s;
}
