/* Runs on the server's own CPU (server/gpu/sim_gate.c) and the bounds on
 * reader uploads (server/inflight.c): readers hold at most their share of
 * the slots, a run whose client hung up never takes a slot (waiting or
 * not), a running simulation stops between steps once it has, and the
 * in-flight counts hold each key and the total to their bounds. The
 * client's hang-up is played by the watcher the server would set
 * (server/hangup.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "hangup.h"
#include "inflight.h"
#include "sim_gate.h"
#include "suites.h"

START_TEST(readers_hold_at_most_their_slots_and_a_simulation_still_gets_one) {
  srv_sim_gate g;
  ck_assert_int_eq(srv_sim_gate_init(&g, SRV_SIM_BUDGET_MS, 2, 0.05), 0);
  ck_assert_int_eq(g.reader_slots, 1);
  srv_gate_slot a, b, c;
  double retry = 0;
  lab_error err = {0};
  ck_assert_int_eq(srv_gate_enter(&g, SRV_RUN_READER, 0, 1, &a, &retry, &err), 0);
  ck_assert_int_eq(srv_gate_enter(&g, SRV_RUN_READER, 0, 1, &b, &retry, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_BUSY);
  ck_assert_int_eq(srv_gate_enter(&g, SRV_RUN_SIMULATED, 10, 1, &c, &retry, &err), 0);
  srv_gate_counts n;
  srv_sim_gate_counts(&g, &n);
  ck_assert_int_eq(n.running[SRV_RUN_READER], 1);
  ck_assert_int_eq(n.running[SRV_RUN_SIMULATED], 1);
  ck_assert_uint_eq(n.busy[SRV_RUN_READER], 1);
  ck_assert(srv_gate_leave(&g, &a, NULL) >= 0);
  ck_assert(srv_gate_leave(&g, &c, NULL) >= 0);
  srv_sim_gate_counts(&g, &n);
  ck_assert_int_eq(n.running[SRV_RUN_READER] + n.running[SRV_RUN_SIMULATED], 0);
  srv_sim_gate_free(&g);
}
END_TEST

/* The client as the watcher sees it: gone once `gone` is set, or once
 * asked `after` times (to let a run start first). */
static atomic_int gone, asked, after;
static int client_gone(const void *ctx) {
  (void)ctx;
  return atomic_load(&gone) || (atomic_load(&after) > 0 && atomic_fetch_add(&asked, 1) + 1 >= atomic_load(&after));
}

static srv_sim_gate one;
static lab_error waiter_err;
static void *waiter(void *arg) {
  (void)arg;
  srv_gate_slot s;
  double retry = 0;
  srv_hangup_watch(client_gone, NULL);
  int rc = srv_gate_enter(&one, SRV_RUN_SIMULATED, 0, 60, &s, &retry, &waiter_err);
  srv_hangup_watch(NULL, NULL);
  if (rc == 0) srv_gate_leave(&one, &s, NULL);
  return (void *)(long)rc;
}

START_TEST(a_run_whose_client_hung_up_never_takes_a_slot) {
  atomic_store(&gone, 1);
  atomic_store(&after, 0);
  srv_gate_slot s;
  double retry = 0;
  lab_error err = {0};
  ck_assert_int_eq(srv_sim_gate_init(&one, SRV_SIM_BUDGET_MS, 1, 60), 0);
  srv_hangup_watch(client_gone, NULL);
  ck_assert_int_eq(srv_gate_enter(&one, SRV_RUN_READER, 0, 60, &s, &retry, &err), -1); /* a free slot, not taken */
  srv_hangup_watch(NULL, NULL);
  ck_assert_int_eq(err.code, LAB_E_CLIENT_GONE);
  ck_assert_int_eq(one.running, 0);
  ck_assert_uint_eq(one.abandoned[SRV_RUN_READER], 1);
  /* Waiting behind a held slot: it leaves the line once its client goes,
   * without the slot ever being given back (a 60 s wait would be busy). */
  atomic_store(&gone, 0);
  ck_assert_int_eq(srv_gate_enter(&one, SRV_RUN_SIMULATED, 0, 60, &s, &retry, &err), 0);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, waiter, NULL), 0);
  srv_gate_counts n = {0};
  for (int i = 0; i < 5000 && n.waiting[SRV_RUN_SIMULATED] == 0; i++) { /* bounded: it queues at once */
    srv_sim_gate_counts(&one, &n);
    if (!n.waiting[SRV_RUN_SIMULATED]) usleep(1000);
  }
  ck_assert_int_eq(n.waiting[SRV_RUN_SIMULATED], 1);
  atomic_store(&gone, 1);
  void *rc;
  pthread_join(t, &rc);
  ck_assert_int_eq((int)(long)rc, -1);
  ck_assert_int_eq(waiter_err.code, LAB_E_CLIENT_GONE);
  srv_sim_gate_counts(&one, &n);
  ck_assert_int_eq(n.waiting[SRV_RUN_SIMULATED], 0);
  ck_assert_int_eq(n.running[SRV_RUN_SIMULATED], 1); /* still the first run's */
  srv_gate_leave(&one, &s, NULL);
  srv_sim_gate_free(&one);
}
END_TEST

/* train_step trains a real model for its loss curve: about a second at
 * these sizes. The client goes once the run has started (the watcher's
 * second look); the run stops at its next step instead of finishing. */
START_TEST(a_running_simulation_stops_between_steps_once_its_client_hung_up) {
  srv_sim_gate g;
  ck_assert_int_eq(srv_sim_gate_init(&g, 60000, 1, 1), 0);
  const lab_experiment *e = lab_experiment_find("train_step");
  cJSON *params = cJSON_Parse("{\"batch\":64,\"features\":2048,\"classes\":256,\"steps\":1000}");
  lab_params p;
  lab_error err = {0};
  ck_assert_int_eq(lab_experiment_params(e, params, &p, &err), 0);
  cJSON_Delete(params);
  atomic_store(&gone, 0);
  atomic_store(&asked, 0);
  atomic_store(&after, 2);
  srv_hangup_watch(client_gone, NULL);
  cJSON *out = NULL;
  srv_sim_cost cost;
  int rc = srv_sim_gate_run(&g, e, &p, NULL, &out, &cost, &err);
  srv_hangup_watch(NULL, NULL);
  atomic_store(&after, 0);
  ck_assert_int_eq(rc, -1);
  ck_assert_ptr_null(out);
  ck_assert_int_eq(err.code, LAB_E_CLIENT_GONE);
  ck_assert_uint_eq(g.abandoned[SRV_RUN_SIMULATED], 1);
  ck_assert_int_eq(g.running, 0);
  srv_sim_gate_free(&g);
}
END_TEST

START_TEST(inflight_holds_each_key_and_the_total_to_their_bounds) {
  srv_inflight *t = srv_inflight_new(3);
  const char *a[] = {"addr:10.0.0.1", "learner:1"}, *b[] = {"addr:10.0.0.1", "learner:2"},
             *c[] = {"addr:10.0.0.2"}, *d[] = {"addr:10.0.0.3"};
  const int max[] = {2, 1};
  ck_assert_int_eq(srv_inflight_take(t, a, max, 2), -1);
  ck_assert_int_eq(srv_inflight_take(t, a, max, 2), 1);  /* learner 1 holds its one */
  ck_assert_int_eq(srv_inflight_take(t, b, max, 2), -1); /* the address's second */
  ck_assert_int_eq(srv_inflight_take(t, b, max, 2), 0);  /* the address is full */
  ck_assert_int_eq(srv_inflight_take(t, c, max, 1), -1);
  ck_assert_int_eq(srv_inflight_take(t, d, max, 1), 1);  /* the total (3) is full */
  int total = 0;
  ck_assert_int_eq(srv_inflight_count(t, &total), 3);
  ck_assert_int_eq(total, 3);
  srv_inflight_give(t, a, 2);
  ck_assert_int_eq(srv_inflight_take(t, d, max, 1), -1); /* a place came back */
  srv_inflight_give(t, b, 2);
  srv_inflight_give(t, c, 1);
  srv_inflight_give(t, d, 1);
  ck_assert_int_eq(srv_inflight_count(t, NULL), 0);
  for (int i = 0; i < 100; i++) { /* keys come and go without filling the table */
    char key[32];
    snprintf(key, sizeof key, "addr:10.1.0.%d", i);
    const char *k[] = {key};
    ck_assert_int_eq(srv_inflight_take(t, k, max, 1), -1);
    srv_inflight_give(t, k, 1);
  }
  srv_inflight_free(t);
}
END_TEST

Suite *make_cpu_runs_suite(void) {
  Suite *s = suite_create("cpu_runs");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, readers_hold_at_most_their_slots_and_a_simulation_still_gets_one);
  tcase_add_test(tc, a_run_whose_client_hung_up_never_takes_a_slot);
  tcase_add_test(tc, a_running_simulation_stops_between_steps_once_its_client_hung_up);
  tcase_add_test(tc, inflight_holds_each_key_and_the_total_to_their_bounds);
  suite_add_tcase(s, tc);
  return s;
}
