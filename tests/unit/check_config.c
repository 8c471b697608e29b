/* Class configuration: defaults, the file, flags over the file, and strict
 * refusal (unknown key, wrong type, out of bounds) naming file and key. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "store.h"
#include "suites.h"

static char dir[64];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/gpulab-config-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static const char *write_config(const char *text) {
  static char path[128];
  snprintf(path, sizeof path, "%s/class.json", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Parses argv as serve's class options; returns srv_class_config_build's answer. */
static int build(int argc, char **argv, srv_class_config *cfg, char *msg, size_t n) {
  srv_class_flags f = {0};
  for (int i = 0; i < argc; i++) {
    int m = srv_class_flag(argc, argv, &i, &f, msg, n);
    if (m <= 0) return m < 0 ? -1 : -2;
  }
  return srv_class_config_build(&f, cfg, msg, n);
}

START_TEST(config_no_class_option_means_no_class_mode) {
  srv_class_config cfg;
  char msg[300];
  char *argv[] = {"--deadline", "30"};
  ck_assert_int_eq(build(0, argv, &cfg, msg, sizeof msg), 0);
  ck_assert_int_eq(build(2, argv, &cfg, msg, sizeof msg), 0);
}
END_TEST

START_TEST(config_file_sets_values_and_flags_override) {
  const char *path = write_config(
      "{\"name\":\"CS 101 lab\",\"db\":\"class.db\",\"join_code\":\"abcd-efgh\","
      "\"limits\":{\"runs_per_minute\":3,\"queue_max\":7},\"tls\":{\"cert\":null,\"key\":null},\"gpus\":[0,2]}");
  srv_class_config cfg;
  char msg[300];
  char *argv[] = {"--queue-max", "9", "--class", (char *)path, "--gpus=1"};
  ck_assert_msg(build(5, argv, &cfg, msg, sizeof msg) == 1, "%s", msg);
  ck_assert_str_eq(cfg.name, "CS 101 lab");
  ck_assert_str_eq(cfg.join_code, "ABCDEFGH");
  ck_assert_int_eq(cfg.runs_per_minute, 3);
  ck_assert_int_eq(cfg.queue_max, 9); /* the flag wins, whatever its place */
  ck_assert_int_eq(cfg.gpu_count, 1);
  ck_assert_int_eq(cfg.gpus[0], 1);
  ck_assert_int_eq(cfg.gpu_seconds_per_session, 300); /* default kept */
  char want[200];
  snprintf(want, sizeof want, "%s/class.db", dir); /* relative to the file's folder */
  ck_assert_str_eq(cfg.db, want);
}
END_TEST

START_TEST(config_refuses_unknown_keys_types_and_bounds) {
  static const struct {
    const char *json, *want;
  } cases[] = {
      {"{\"nme\":\"x\"}", ": nme: unknown key"},
      {"{\"limits\":{\"runs_per_min\":3}}", ": limits.runs_per_min: unknown key"},
      {"{\"limits\":{\"runs_per_minute\":\"6\"}}", ": limits.runs_per_minute: must be an integer from 1 to 600"},
      {"{\"limits\":{\"runs_per_minute\":0}}", ": limits.runs_per_minute: must be an integer from 1 to 600"},
      {"{\"limits\":{\"queue_max\":2.5}}", ": limits.queue_max: must be an integer"},
      {"{\"limits\":[]}", ": limits: must be an object"},
      {"{\"name\":\"\"}", ": name: must be 1 to 80 printable characters"},
      {"{\"name\":null}", ": name: must not be null"},
      {"{\"join_code\":\"OOOO-0000\"}", ": join_code: must be 8 characters"},
      {"{\"gpus\":[0,0]}", ": gpus: must be 1 to 16 distinct"},
      {"{\"gpus\":[]}", ": gpus: must be 1 to 16 distinct"},
      {"{\"gpus\":[64]}", ": gpus: must be 1 to 16 distinct"},
      /* Far past a long (once undefined behaviour, found by the fuzzer). */
      {"{\"limits\":{\"queue_max\":1.7e85}}", ": limits.queue_max: must be an integer from 1 to 10000"},
      {"{\"gpus\":[-1e300]}", ": gpus: must be 1 to 16 distinct"},
      {"[1]", ": must be a JSON object"},
      {"{\"name\":\"x\"} trailing", ": not valid JSON"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    srv_class_config cfg;
    char msg[400];
    const char *path = write_config(cases[i].json);
    char *argv[] = {"--class", (char *)path};
    ck_assert_int_eq(build(2, argv, &cfg, msg, sizeof msg), -1);
    ck_assert_msg(strncmp(msg, path, strlen(path)) == 0, "message names the file: %s", msg);
    ck_assert_msg(strstr(msg, cases[i].want) != NULL, "%s → %s (wanted %s)", cases[i].json, msg, cases[i].want);
  }
}
END_TEST

START_TEST(config_refuses_bad_flags) {
  srv_class_config cfg;
  char msg[300];
  char *a[] = {"--runs-per-minute", "601"};
  ck_assert_int_eq(build(2, a, &cfg, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "--runs-per-minute: must be an integer from 1 to 600"));
  char *b[] = {"--gpus", "0,,1"};
  ck_assert_int_eq(build(2, b, &cfg, msg, sizeof msg), -1);
  char *c[] = {"--db"};
  ck_assert_int_eq(build(1, c, &cfg, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "--db is missing its value"));
  char *d[] = {"--tls-cert", "/etc/hostname"};
  ck_assert_int_eq(build(2, d, &cfg, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "both"));
  char *e[] = {"--class", "/nonexistent/class.json"};
  ck_assert_int_eq(build(2, e, &cfg, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "/nonexistent/class.json: cannot read"));
  char *f[] = {"--classy", "x"};
  ck_assert_int_eq(build(2, f, &cfg, msg, sizeof msg), -2);
}
END_TEST

START_TEST(config_store_is_sqlite_or_postgresql_in_either_spelling) {
  srv_class_config cfg;
  char msg[300];
  char *a[] = {"--store", "sqlite:/var/lib/gpulab/c.db"};
  ck_assert_int_eq(build(2, a, &cfg, msg, sizeof msg), 1); /* --store alone is class mode */
  ck_assert_str_eq(cfg.db, "/var/lib/gpulab/c.db");
  ck_assert(!srv_store_spec_is_pg(cfg.db));
  char *b[] = {"--store=postgresql://gpulab@db:5432/cs101"};
  ck_assert_int_eq(build(1, b, &cfg, msg, sizeof msg), 1);
  ck_assert_str_eq(cfg.db, "postgresql://gpulab@db:5432/cs101");
  ck_assert(srv_store_spec_is_pg(cfg.db));
  char *c[] = {"--db", "x.db", "--store", "sqlite:y.db"};
  ck_assert_int_eq(build(4, c, &cfg, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "give one of them"));
  /* The file's "db" takes either form; a flag beats it. */
  const char *path = write_config("{\"db\":\"sqlite:sub/c.db\"}");
  char *d[] = {"--class", (char *)path};
  ck_assert_int_eq(build(2, d, &cfg, msg, sizeof msg), 1);
  char want[200];
  snprintf(want, sizeof want, "%s/sub/c.db", dir);
  ck_assert_str_eq(cfg.db, want);
  path = write_config("{\"db\":\"postgres://u@h/d\"}");
  char *e[] = {"--class", (char *)path};
  ck_assert_int_eq(build(2, e, &cfg, msg, sizeof msg), 1);
  ck_assert_str_eq(cfg.db, "postgres://u@h/d");
  char *f[] = {"--class", (char *)path, "--store", "postgresql://v@h/e"};
  ck_assert_int_eq(build(4, f, &cfg, msg, sizeof msg), 1);
  ck_assert_str_eq(cfg.db, "postgresql://v@h/e");
}
END_TEST

START_TEST(config_adopts_a_stored_class_and_names_a_contradiction) {
  srv_class_config made, later;
  char msg[400];
  char *a[] = {"--class-name", "CS 101", "--join-code", "abcd-efgh", "--runs-per-minute", "3", "--tls-cert", "/etc/hostname",
               "--tls-key", "/etc/hostname"};
  ck_assert_msg(build(10, a, &made, msg, sizeof msg) == 1, "%s", msg);
  char *stored = srv_class_config_shared_text(&made);
  ck_assert_ptr_nonnull(stored);
  ck_assert_ptr_null(strstr(stored, "tls")); /* each server's own */
  ck_assert_ptr_null(strstr(stored, "\"db\""));
  /* Nothing given: every class-wide setting is the stored one. */
  char *b[] = {"--store", "postgresql://u@h/d"};
  ck_assert_int_eq(build(2, b, &later, msg, sizeof msg), 1);
  ck_assert_int_eq(srv_class_config_adopt(&later, stored, "STORE", 0, msg, sizeof msg), 0);
  ck_assert_str_eq(later.name, "CS 101");
  ck_assert_str_eq(later.join_code, "ABCDEFGH");
  ck_assert_int_eq(later.runs_per_minute, 3);
  ck_assert_str_eq(later.db, "postgresql://u@h/d");
  /* The same value given again is no contradiction; another one is, by name. */
  char *c[] = {"--store", "postgresql://u@h/d", "--runs-per-minute", "3", "--queue-max", "9"};
  ck_assert_int_eq(build(6, c, &later, msg, sizeof msg), 1);
  ck_assert_int_eq(srv_class_config_adopt(&later, stored, "STORE", 0, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "--queue-max: the class stored in STORE has limits.queue_max = 50, but this server was "
                            "given 9") != NULL,
                "%s", msg);
  ck_assert_ptr_nonnull(strstr(msg, "--update-class"));
  /* --update-class: what was given wins (the caller stores it). */
  ck_assert_int_eq(build(6, c, &later, msg, sizeof msg), 1);
  ck_assert_int_eq(srv_class_config_adopt(&later, stored, "STORE", 1, msg, sizeof msg), 0);
  ck_assert_int_eq(later.queue_max, 9);
  ck_assert_str_eq(later.name, "CS 101");
  /* --deadline counts as given (serve marks it). */
  char *d[] = {"--store", "postgresql://u@h/d"};
  ck_assert_int_eq(build(2, d, &later, msg, sizeof msg), 1);
  later.deadline_s = 30;
  srv_class_config_mark_given(&later, "--deadline");
  ck_assert_int_eq(srv_class_config_adopt(&later, stored, "STORE", 0, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "limits.deadline_s = 60"));
  ck_assert_int_eq(srv_class_config_adopt(&later, "{\"name\":3}", "STORE", 0, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, "damaged"));
  free(stored);
}
END_TEST

/* What another server changed reaches a running one: each changed limit, once. */
static char seen[200];
static void note_change(const char *key, long was, long now, void *arg) {
  (*(int *)arg)++;
  size_t used = strlen(seen);
  snprintf(seen + used, sizeof seen - used, "%s:%ld->%ld;", key, was, now);
}

START_TEST(config_follows_the_limits_another_server_changed) {
  srv_class_config running, other;
  char msg[400];
  char *a[] = {"--class-name", "CS 101", "--runs-per-minute", "3", "--queue-max", "9"};
  ck_assert_msg(build(6, a, &running, msg, sizeof msg) == 1, "%s", msg);
  char *b[] = {"--class-name", "CS 101", "--runs-per-minute", "3", "--queue-max", "20", "--class-size", "40"};
  ck_assert_msg(build(8, b, &other, msg, sizeof msg) == 1, "%s", msg);
  char *stored = srv_class_config_shared_text(&other);
  ck_assert_ptr_nonnull(stored);
  int calls = 0;
  seen[0] = 0;
  ck_assert_int_eq(srv_class_config_follow(&running, stored, note_change, &calls, msg, sizeof msg), 0);
  ck_assert_int_eq(calls, 2);
  ck_assert_str_eq(seen, "queue_max:9->20;class_size:300->40;");
  ck_assert_int_eq(running.queue_max, 20);
  ck_assert_int_eq(running.class_size, 40);
  ck_assert_int_eq(running.runs_per_minute, 3);
  /* Again: nothing is news. A damaged text changes nothing. */
  ck_assert_int_eq(srv_class_config_follow(&running, stored, note_change, &calls, msg, sizeof msg), 0);
  ck_assert_int_eq(calls, 2);
  ck_assert_int_eq(srv_class_config_follow(&running, "{\"limits\":{\"queue_max\":0}}", note_change, &calls, msg,
                                           sizeof msg),
                   -1);
  ck_assert_int_eq(running.queue_max, 20);
  free(stored);
}
END_TEST

Suite *make_config_suite(void) {
  Suite *s = suite_create("config");
  TCase *t = tcase_create("class");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, config_no_class_option_means_no_class_mode);
  tcase_add_test(t, config_file_sets_values_and_flags_override);
  tcase_add_test(t, config_refuses_unknown_keys_types_and_bounds);
  tcase_add_test(t, config_refuses_bad_flags);
  tcase_add_test(t, config_store_is_sqlite_or_postgresql_in_either_spelling);
  tcase_add_test(t, config_adopts_a_stored_class_and_names_a_contradiction);
  tcase_add_test(t, config_follows_the_limits_another_server_changed);
  suite_add_tcase(s, t);
  return s;
}
