/* The class-session views (wasm/render/class_session.c, class_run.c) rendered
 * natively: the join form with its inline errors, the session bar, a queued
 * and a running run, how a polled run ends, the limits' refusals in words,
 * and the polling back-off. */
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "class_session.h"
#include "class_run.h"

#define ck_has(html, text) ck_assert_msg(strstr(html, text) != NULL, "missing \"%s\" in: %s", text, html)
#define ck_lacks(html, text) ck_assert_msg(strstr(html, text) == NULL, "unexpected \"%s\" in: %s", text, html)

static ui_buf b;
static cJSON *j;

static void setup(void) {
  ui_buf_init(&b);
  j = NULL;
}

static void teardown(void) {
  ui_buf_free(&b);
  cJSON_Delete(j);
}

static const cJSON *parse(const char *text) {
  cJSON_Delete(j);
  j = cJSON_Parse(text);
  ck_assert_ptr_nonnull(j);
  return j;
}

/* ---- the join form ---------------------------------------------------------------- */

START_TEST(class_join_form_labels_both_fields_and_names_the_class) {
  ui_class_join f;
  memset(&f, 0, sizeof f);
  f.class_name = "CS <101>";
  ui_render_class_join(&b, &f);
  const char *h = ui_buf_str(&b);
  ck_has(h, "Class lab · CS &lt;101&gt;");
  ck_has(h, "<label for=\"class-code\">Join code</label>");
  ck_has(h, "<label for=\"class-name\">Your name</label>");
  ck_has(h, "data-action=\"class-join\">Join</button>");
  ck_has(h, "aria-describedby=\"class-code-help\"");
  ck_lacks(h, "aria-invalid");
  ck_lacks(h, " action="); /* never submitted by the browser: the code stays out of the address */
}
END_TEST

START_TEST(class_join_form_shows_each_error_beside_its_field_and_escapes_values) {
  ui_class_join f;
  memset(&f, 0, sizeof f);
  snprintf(f.code, sizeof f.code, "\"><script>");
  snprintf(f.code_error, sizeof f.code_error, "That join code is not this class's.");
  snprintf(f.name, sizeof f.name, "Ada");
  ui_render_class_join(&b, &f);
  const char *h = ui_buf_str(&b);
  ck_has(h, "value=\"&quot;&gt;&lt;script&gt;\"");
  ck_has(h, "aria-describedby=\"class-code-help class-code-error\" aria-invalid=\"true\"");
  ck_has(h, "<p class=\"class-error\" id=\"class-code-error\">That join code is not this class&#39;s.</p>");
  ck_lacks(h, "class-name-error");
  ck_has(h, "value=\"Ada\"");
}
END_TEST

START_TEST(class_join_form_says_it_is_joining_and_shows_a_form_error) {
  ui_class_join f;
  memset(&f, 0, sizeof f);
  f.busy = true;
  snprintf(f.form_error, sizeof f.form_error, "The server did not answer.");
  ui_render_class_join(&b, &f);
  ck_has(ui_buf_str(&b), "aria-disabled=\"true\">Joining…</button>");
  ck_has(ui_buf_str(&b), "<span class=\"class-error\">The server did not answer.</span>");
}
END_TEST

START_TEST(class_name_check_matches_the_servers_rules) {
  char msg[200];
  ck_assert(ui_class_name_ok("Ada L.", msg, sizeof msg));
  ck_assert_str_eq(msg, "");
  ck_assert(ui_class_name_ok("Zoë Çelik", msg, sizeof msg)); /* UTF-8 letters are printable */
  ck_assert(!ui_class_name_ok("", msg, sizeof msg));
  ck_has(msg, "Enter the name");
  ck_assert(!ui_class_name_ok("   ", msg, sizeof msg));
  ck_assert(!ui_class_name_ok("Ada\tL", msg, sizeof msg));
  ck_has(msg, "control characters");
  ck_assert(ui_class_name_ok("1234567890123456789012345678901234567890", msg, sizeof msg));
  ck_assert(!ui_class_name_ok("12345678901234567890123456789012345678901", msg, sizeof msg));
  ck_has(msg, "41 characters");
  /* 40 two-byte letters are 40 characters, not 80 */
  char wide[100] = "";
  for (int i = 0; i < 40; i++) strcat(wide, "é");
  ck_assert(ui_class_name_ok(wide, msg, sizeof msg));
}
END_TEST

START_TEST(class_code_is_normalised_to_the_printed_form) {
  char out[32], msg[200];
  ck_assert(ui_class_code_normalise(" abcd efgh ", out, sizeof out, msg, sizeof msg));
  ck_assert_str_eq(out, "ABCD-EFGH");
  ck_assert(ui_class_code_normalise("abcd-2345", out, sizeof out, msg, sizeof msg));
  ck_assert_str_eq(out, "ABCD-2345");
  ck_assert(ui_class_code_normalise("ABC", out, sizeof out, msg, sizeof msg)); /* wrong, but the server says so */
  ck_assert_str_eq(out, "ABC");
  ck_assert(!ui_class_code_normalise("  ", out, sizeof out, msg, sizeof msg));
  ck_has(msg, "Enter the join code");
  ck_assert(!ui_class_code_normalise("ABCD/EFGH", out, sizeof out, msg, sizeof msg));
  ck_has(msg, "only letters, digits and a dash");
  ck_assert(!ui_class_code_normalise("ABCDEFGHIJKLMNOPQRSTUVWXYZ", out, sizeof out, msg, sizeof msg));
}
END_TEST

/* ---- the session bar --------------------------------------------------------------- */

START_TEST(class_bar_shows_who_is_signed_in_and_the_gpu_time) {
  parse("{\"name\":\"Ada <L>\",\"runs\":[{\"id\":1},{\"id\":2}],\"quiz\":[],\"gpu_seconds_used\":12.4,"
        "\"gpu_seconds_limit\":300}");
  ui_render_class_bar(&b, j, "CS 101");
  const char *h = ui_buf_str(&b);
  ck_has(h, "Signed in as <strong id=\"class-who\">Ada &lt;L&gt;</strong>");
  ck_has(h, "CS 101");
  ck_has(h, "GPU time: 12 s of 300 s used");
  ck_has(h, "<meter");
  ck_has(h, "value=\"4\"");
  ck_has(h, "2 runs");
  ck_has(h, "data-action=\"class-leave\">Leave</button>");
}
END_TEST

/* A server with no GPU: no GPU-time budget it cannot spend ("0.0 s of 300 s"),
 * where the runs happen and how many the browser simulated instead. */
START_TEST(class_bar_on_a_server_without_a_gpu_says_runs_are_simulated) {
  parse("{\"name\":\"Cy\",\"runs\":[],\"quiz\":[],\"gpu_seconds_used\":0,\"gpu_seconds_limit\":300,"
        "\"mode\":\"cpu\",\"simulated_in_browser\":3}");
  ui_render_class_bar(&b, j, "CS 101");
  const char *h = ui_buf_str(&b);
  ck_has(h, "Runs are simulated in your browser: this server has no GPU");
  ck_has(h, "3 runs simulated");
  ck_lacks(h, "GPU time");
  ck_lacks(h, "300 s");
  ck_lacks(h, "<meter");
  ck_lacks(h, "0 runs");
}
END_TEST

START_TEST(class_bar_survives_missing_numbers) {
  parse("{\"name\":\"Bo\",\"runs\":\"oops\"}");
  ui_render_class_bar(&b, j, NULL);
  ck_has(ui_buf_str(&b), "Signed in as <strong id=\"class-who\">Bo</strong>");
  ck_has(ui_buf_str(&b), "0 runs");
  ck_lacks(ui_buf_str(&b), "GPU time");
}
END_TEST

/* ---- a queued run --------------------------------------------------------------------- */

START_TEST(class_queued_run_shows_position_estimate_and_cancel) {
  char line[160];
  parse("{\"run\":{\"id\":17,\"status\":\"queued\",\"position\":3,\"estimate_s\":19.6}}");
  ck_assert_str_eq(ui_class_run_line(ui_class_run_obj(j), line, sizeof line), "Queued — position 3, about 20 s");
  ui_render_class_run(&b, ui_class_run_obj(j), "timing", NULL);
  ck_has(ui_buf_str(&b), "Queued — position 3, about 20 s");
  ck_has(ui_buf_str(&b), "data-action=\"class-cancel\" data-arg=\"timing\">Cancel</button>");
  parse("{\"status\":\"queued\",\"position\":1,\"estimate_s\":200}");
  ck_assert_str_eq(ui_class_run_line(j, line, sizeof line), "Queued — next in line, about 3 min");
}
END_TEST

START_TEST(class_running_run_has_no_cancel_and_shows_progress) {
  char line[160];
  parse("{\"status\":\"running\",\"progress\":0.5}");
  ck_assert_str_eq(ui_class_run_line(j, line, sizeof line), "Running on the class GPU… 50 %");
  ui_render_class_run(&b, j, "timing", "It had already started.");
  ck_lacks(ui_buf_str(&b), "class-cancel");
  ck_has(ui_buf_str(&b), "<progress class=\"class-progress\" max=\"100\" value=\"50\"");
  ck_has(ui_buf_str(&b), "It had already started.");
}
END_TEST

START_TEST(class_run_id_is_taken_only_when_safe_in_a_url) {
  char id[72];
  ck_assert(ui_class_run_id(parse("{\"run\":{\"id\":42}}"), id, sizeof id));
  ck_assert_str_eq(id, "42");
  ck_assert(ui_class_run_id(parse("{\"id\":\"r-9_a\"}"), id, sizeof id));
  ck_assert_str_eq(id, "r-9_a");
  ck_assert(!ui_class_run_id(parse("{\"id\":\"../session\"}"), id, sizeof id));
  ck_assert(!ui_class_run_id(parse("{\"id\":-1}"), id, sizeof id));
  ck_assert(!ui_class_run_id(parse("{\"run\":{}}"), id, sizeof id));
}
END_TEST

/* ---- how a run ends -------------------------------------------------------------------- */

START_TEST(class_done_run_gives_back_its_envelope) {
  cJSON *env = NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  parse("{\"id\":1,\"status\":\"done\",\"result\":{\"experiment\":\"timing\",\"schema\":1,\"backend\":\"cuda\","
        "\"device\":{\"name\":\"gpulab fake GPU (test)\",\"profile\":null},\"params\":{},\"metrics\":{},"
        "\"series\":[],\"timeline\":[],\"findings\":[\"ok\"],\"stats\":{}}}");
  ck_assert_int_eq(ui_class_run_end(j, &env, &err), 1);
  ck_assert_ptr_nonnull(env);
  ck_assert_str_eq(cJSON_GetObjectItem(env, "experiment")->valuestring, "timing");
  cJSON_Delete(env);
}
END_TEST

START_TEST(class_waiting_run_has_not_ended) {
  cJSON *env = NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(ui_class_run_end(parse("{\"status\":\"queued\"}"), &env, &err), 0);
  ck_assert_int_eq(ui_class_run_end(parse("{\"status\":\"running\"}"), &env, &err), 0);
  ck_assert_ptr_null(env);
}
END_TEST

START_TEST(class_failed_run_says_why) {
  cJSON *env = NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(ui_class_run_end(parse("{\"status\":\"failed\",\"error\":{\"code\":\"deadline_exceeded\","
                                          "\"message\":\"It ran past 60 s.\"}}"),
                                    &env, &err),
                   -1);
  ck_assert_int_eq(err.code, LAB_E_DEADLINE);
  ck_assert_str_eq(err.message, "It ran past 60 s.");
  ck_assert_int_eq(ui_class_run_end(parse("{\"status\":\"failed\",\"error_code\":\"worker_crashed\"}"), &env, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_WORKER_CRASHED);
  ck_has(err.message, "worker_crashed");
  ck_assert_int_eq(ui_class_run_end(parse("{\"status\":\"cancelled\"}"), &env, &err), -1);
  ck_has(err.message, "cancelled");
  /* "done" without a usable envelope is a failure, not an empty result */
  ck_assert_int_eq(ui_class_run_end(parse("{\"status\":\"done\",\"result\":{\"schema\":1}}"), &env, &err), -1);
  ck_assert_ptr_null(env);
}
END_TEST

/* ---- refusals -------------------------------------------------------------------------- */

START_TEST(class_rate_limit_says_when_to_retry_in_words) {
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert(ui_class_refusal(429, parse("{\"error\":{\"code\":\"rate_limited\",\"message\":\"6 runs a minute at most.\","
                                        "\"retry_after_s\":42}}"),
                             &err));
  ck_assert_int_eq(err.code, LAB_E_RATE_LIMITED);
  ck_has(err.message, "6 runs a minute at most. Try again in about 42 seconds. Meanwhile you can run it simulated");
  ck_assert(ui_class_refusal(503, parse("{\"error\":{\"code\":\"queue_full\",\"message\":\"The queue is full.\","
                                        "\"retry_after\":150}}"),
                             &err));
  ck_has(err.message, "Try again in about 3 minutes.");
  ck_has(err.message, "simulated in your browser");
}
END_TEST

START_TEST(class_quota_and_missing_session_are_refusals) {
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert(ui_class_refusal(429, parse("{\"error\":{\"code\":\"quota_exceeded\",\"message\":\"You used 300 s.\"}}"),
                             &err));
  ck_assert_int_eq(err.code, LAB_E_QUOTA_EXCEEDED);
  ck_has(err.message, "You used 300 s.");
  ck_lacks(err.message, "Try again");
  ck_assert(ui_class_refusal(401, parse("{\"error\":{\"code\":\"no_session\",\"message\":\"x\"}}"), &err));
  ck_has(err.message, "Join the class");
}
END_TEST

START_TEST(class_other_answers_are_not_refusals) {
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert(!ui_class_refusal(503, parse("{\"error\":{\"code\":\"no_gpu\",\"message\":\"none\"}}"), &err));
  ck_assert(!ui_class_refusal(400, parse("{\"error\":{\"code\":\"over_memory_limit\",\"message\":\"4 GiB\"}}"), &err));
  ck_assert(!ui_class_refusal(202, parse("{\"run\":{\"id\":1}}"), &err));
  ck_assert(!ui_class_refusal(429, NULL, &err));
}
END_TEST

START_TEST(class_wait_words_read_naturally) {
  char w[48];
  ck_assert_str_eq(ui_class_wait_words(2, w, sizeof w), "a few seconds");
  ck_assert_str_eq(ui_class_wait_words(40, w, sizeof w), "about 40 seconds");
  ck_assert_str_eq(ui_class_wait_words(60, w, sizeof w), "about 60 seconds");
  ck_assert_str_eq(ui_class_wait_words(100, w, sizeof w), "about 2 minutes");
  ck_assert_str_eq(ui_class_wait_words(61, w, sizeof w), "about 61 seconds");
  ck_assert_str_eq(ui_class_wait_words(3600 * 3, w, sizeof w), "about 3 hours");
  ck_assert_str_eq(ui_class_wait_words(-1, w, sizeof w), "a few seconds");
}
END_TEST

START_TEST(class_polling_backs_off_and_is_bounded) {
  ck_assert_int_eq(ui_class_poll_delay_ms(0, 0), 1000);
  ck_assert_int_eq(ui_class_poll_delay_ms(10, 0), 1000);
  ck_assert_int_gt(ui_class_poll_delay_ms(20, 0), 1000);
  ck_assert_int_eq(ui_class_poll_delay_ms(1000, 0), 5000);
  ck_assert_int_eq(ui_class_poll_delay_ms(0, 1), 2000);
  ck_assert_int_eq(ui_class_poll_delay_ms(0, 50), 10000);
  ck_assert_int_eq(ui_class_poll_delay_ms(1000, 3), 10000);
}
END_TEST

/* A 429 join waits what Retry-After says (1 to 30 s; 2 s when absent) and
 * gives up after a bounded number of tries and total wait. */
START_TEST(class_join_retry_honours_retry_after_within_bounds) {
  ck_assert_int_eq(ui_class_join_retry_s(0, 0, 1), 1);
  ck_assert_int_eq(ui_class_join_retry_s(0, 0, 7), 7);
  ck_assert_int_eq(ui_class_join_retry_s(0, 0, -1), 2);
  ck_assert_int_eq(ui_class_join_retry_s(0, 0, 0), 1);
  ck_assert_int_eq(ui_class_join_retry_s(0, 0, 3600), 30);
  ck_assert_int_eq(ui_class_join_retry_s(UI_CLASS_JOIN_RETRIES - 1, 0, 1), 1);
  ck_assert_int_eq(ui_class_join_retry_s(UI_CLASS_JOIN_RETRIES, 0, 1), -1);
  ck_assert_int_eq(ui_class_join_retry_s(1, UI_CLASS_JOIN_WAIT_MAX_S - 5, 5), 5);
  ck_assert_int_eq(ui_class_join_retry_s(1, UI_CLASS_JOIN_WAIT_MAX_S - 5, 6), -1);
  int tries = 0, waited = 0, d;
  while ((d = ui_class_join_retry_s(tries, waited, 30)) > 0) {
    tries++;
    waited += d;
  }
  ck_assert_int_le(waited, UI_CLASS_JOIN_WAIT_MAX_S);
  ck_assert_int_le(tries, UI_CLASS_JOIN_RETRIES);
}
END_TEST

START_TEST(class_join_form_says_it_will_try_again) {
  ui_class_join f;
  char note[160];
  memset(&f, 0, sizeof f);
  ui_class_join_wait_note(note, sizeof note, 3);
  ck_assert_str_eq(note, "The class is busy letting others in; trying again in 3 s.");
  f.busy = true;
  f.note = note;
  ui_render_class_join(&b, &f);
  ck_has(ui_buf_str(&b), "aria-disabled=\"true\">Joining…</button>");
  ck_has(ui_buf_str(&b), "role=\"status\" aria-live=\"polite\">The class is busy letting others in; trying again in 3 s.</p>");
}
END_TEST

Suite *make_ui_class_suite(void) {
  Suite *s = suite_create("ui_class");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, class_join_form_labels_both_fields_and_names_the_class);
  tcase_add_test(tc, class_join_form_shows_each_error_beside_its_field_and_escapes_values);
  tcase_add_test(tc, class_join_form_says_it_is_joining_and_shows_a_form_error);
  tcase_add_test(tc, class_name_check_matches_the_servers_rules);
  tcase_add_test(tc, class_code_is_normalised_to_the_printed_form);
  tcase_add_test(tc, class_bar_shows_who_is_signed_in_and_the_gpu_time);
  tcase_add_test(tc, class_bar_on_a_server_without_a_gpu_says_runs_are_simulated);
  tcase_add_test(tc, class_bar_survives_missing_numbers);
  tcase_add_test(tc, class_queued_run_shows_position_estimate_and_cancel);
  tcase_add_test(tc, class_running_run_has_no_cancel_and_shows_progress);
  tcase_add_test(tc, class_run_id_is_taken_only_when_safe_in_a_url);
  tcase_add_test(tc, class_done_run_gives_back_its_envelope);
  tcase_add_test(tc, class_waiting_run_has_not_ended);
  tcase_add_test(tc, class_failed_run_says_why);
  tcase_add_test(tc, class_rate_limit_says_when_to_retry_in_words);
  tcase_add_test(tc, class_quota_and_missing_session_are_refusals);
  tcase_add_test(tc, class_other_answers_are_not_refusals);
  tcase_add_test(tc, class_wait_words_read_naturally);
  tcase_add_test(tc, class_polling_backs_off_and_is_bounded);
  tcase_add_test(tc, class_join_retry_honours_retry_after_within_bounds);
  tcase_add_test(tc, class_join_form_says_it_will_try_again);
  suite_add_tcase(s, tc);
  return s;
}
