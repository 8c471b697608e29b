/* Per-run limits: the GPU-seconds quota, and the GPU memory each
 * experiment's parameters ask for against the class's cap. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "run_limits.h"
#include "registry.h"
#include "sim_gate.h"
#include "suites.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

START_TEST(quota_refuses_once_the_gpu_seconds_are_used) {
  lab_error err;
  ck_assert_int_eq(srv_limits_quota(0, 1, &err), 0);
  ck_assert_int_eq(srv_limits_quota(999.9, 1, &err), 0);
  ck_assert_int_eq(srv_limits_quota(1000, 1, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_QUOTA_EXCEEDED);
  ck_assert_ptr_nonnull(strstr(err.message, "simulated"));
}
END_TEST

static void params_of(const char *exp, const char *json, lab_params *p) {
  const lab_experiment *e = lab_experiment_find(exp);
  ck_assert_ptr_nonnull(e);
  cJSON *o = cJSON_Parse(json);
  lab_error err;
  ck_assert_int_eq(lab_experiment_params(e, o, p, &err), 0);
  cJSON_Delete(o);
}

static int gpu_mem(const char *exp, const lab_params *p, double max_gib, lab_error *err) {
  return srv_limits_gpu_mem(lab_experiment_find(exp), p, max_gib, err);
}

static double gpu_bytes(const char *exp, const lab_params *p, const char **param) {
  return lab_experiment_gpu_bytes(lab_experiment_find(exp), p, param);
}

START_TEST(memory_budget_over_the_cap_names_budget_gib) {
  lab_params p;
  lab_error err;
  params_of("memory", "{\"budget_gib\":8,\"force_oom\":true}", &p);
  ck_assert_int_eq(gpu_mem("memory", &p, 4, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_OVER_MEMORY_LIMIT);
  ck_assert_str_eq(err.param, "budget_gib");
  params_of("memory", "{\"budget_gib\":2,\"force_oom\":true}", &p);
  ck_assert_int_eq(gpu_mem("memory", &p, 4, &err), 0); /* the OOM stays inside its budget */
}
END_TEST

START_TEST(transfer_and_timing_sizes_set_their_memory) {
  lab_params p;
  lab_error err;
  const char *param;
  params_of("transfer", "{\"max_bytes\":1073741824}", &p);
  ck_assert_double_eq_tol(gpu_bytes("transfer", &p, &param), GIB, 1);
  ck_assert_str_eq(param, "max_bytes");
  ck_assert_int_eq(gpu_mem("transfer", &p, 0.5, &err), -1);
  ck_assert_str_eq(err.param, "max_bytes");
  ck_assert_int_eq(gpu_mem("transfer", &p, 1, &err), 0);
  params_of("timing", "{\"size\":8192,\"repeats\":1}", &p);
  ck_assert_double_eq_tol(gpu_bytes("timing", &p, &param), 3.0 * 8192 * 8192 * 4, 1);
  ck_assert_str_eq(param, "size");
}
END_TEST

START_TEST(every_gpu_experiment_fits_a_default_cap_with_default_params) {
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    lab_params p;
    lab_error err;
    ck_assert_int_eq(lab_experiment_params(e, NULL, &p, &err), 0);
    ck_assert_msg(srv_limits_gpu_mem(e, &p, 4, &err) == 0, "%s: %s", e->name, err.message);
    /* Every experiment with a GPU side states what it takes: none slips past the cap unmeasured. */
    const char *param = NULL;
    if (lab_experiment_has_kernel(e))
      ck_assert_msg(lab_experiment_gpu_bytes(e, &p, &param) > 0 && param, "%s has no GPU memory estimate", e->name);
  }
}
END_TEST

/* The server's CPU budget for simulated runs (sim_gate.h): train_step at
 * its largest is over the default and names a parameter that lowers it;
 * crossover at its largest (which its lesson suggests trying) is under. */
START_TEST(cpu_budget_refuses_train_step_at_its_largest) {
  lab_params p;
  lab_error err;
  params_of("train_step", "{\"batch\":8192,\"features\":2048,\"classes\":256,\"steps\":1000}", &p);
  ck_assert_int_eq(srv_sim_budget_check(lab_experiment_find("train_step"), &p, SRV_SIM_BUDGET_MS, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_OVER_CPU_BUDGET);
  ck_assert_str_eq(err.param, "steps");
  ck_assert_int_eq(lab_err_http_status(err.code), 400);
  params_of("train_step", "{\"batch\":8192,\"features\":2048,\"classes\":256,\"steps\":50}", &p);
  ck_assert_int_eq(srv_sim_budget_check(lab_experiment_find("train_step"), &p, SRV_SIM_BUDGET_MS, &err), 0);
  params_of("crossover", "{\"max_size\":1024,\"samples\":15}", &p);
  ck_assert_int_eq(srv_sim_budget_check(lab_experiment_find("crossover"), &p, SRV_SIM_BUDGET_MS, &err), 0);
  ck_assert_int_eq(srv_sim_budget_check(lab_experiment_find("crossover"), &p, 100, &err), -1);
  ck_assert_str_eq(err.param, "max_size");
}
END_TEST

/* One slot and no wait: a second run while the first holds the slot is
 * busy with a Retry-After; the slot is back once the first is done, and
 * a run is charged at least its own thread's CPU. */
static srv_sim_gate one_slot;
/* The gate takes params its caller checked once. */
static int gate_run(const char *name, const char *json, cJSON **out, srv_sim_cost *cost, lab_error *err) {
  const lab_experiment *e = lab_experiment_find(name);
  cJSON *params = json ? cJSON_Parse(json) : NULL;
  lab_params p;
  int rc = lab_experiment_params(e, params, &p, err);
  cJSON_Delete(params);
  return rc ? rc : srv_sim_gate_run(&one_slot, e, &p, NULL, out, cost, err);
}

static void *run_crossover(void *arg) {
  lab_error err;
  cJSON *out = NULL;
  *(int *)arg = gate_run("crossover", "{\"max_size\":512,\"samples\":15}", &out, NULL, &err);
  cJSON_Delete(out);
  return NULL;
}

START_TEST(sim_gate_answers_busy_past_its_slots) {
  ck_assert_int_eq(srv_sim_gate_init(&one_slot, SRV_SIM_BUDGET_MS, 1, 0), 0);
  pthread_t t;
  int first = -2;
  ck_assert_int_eq(pthread_create(&t, NULL, run_crossover, &first), 0);
  lab_error err = {0};
  srv_sim_cost cost;
  cJSON *out = NULL;
  int busy = 0;
  /* Bounded: the first run takes a few hundred ms; poll until it holds the slot. */
  for (int i = 0; i < 2000 && !busy; i++) {
    pthread_mutex_lock(&one_slot.lock);
    busy = one_slot.running == 1;
    pthread_mutex_unlock(&one_slot.lock);
    if (busy) {
      int rc = gate_run("placement", NULL, &out, &cost, &err);
      busy = rc != 0; /* the first may have finished between the two looks */
      cJSON_Delete(out);
      out = NULL;
    }
    if (!busy) usleep(1000);
  }
  pthread_join(t, NULL);
  ck_assert_int_eq(first, 0);
  ck_assert_msg(busy, "never saw the one slot taken");
  ck_assert_int_eq(err.code, LAB_E_BUSY);
  ck_assert(cost.retry_after_s >= 1);
  ck_assert_int_eq(gate_run("placement", NULL, &out, &cost, &err), 0);
  ck_assert(cost.cpu_ms >= cost.thread_ms && cost.thread_ms >= 0);
  cJSON_Delete(out);
  ck_assert_int_eq(one_slot.running, 0);
  srv_sim_gate_free(&one_slot);
}
END_TEST

Suite *make_limits_suite(void) {
  Suite *s = suite_create("limits");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, quota_refuses_once_the_gpu_seconds_are_used);
  tcase_add_test(tc, memory_budget_over_the_cap_names_budget_gib);
  tcase_add_test(tc, transfer_and_timing_sizes_set_their_memory);
  tcase_add_test(tc, every_gpu_experiment_fits_a_default_cap_with_default_params);
  tcase_add_test(tc, cpu_budget_refuses_train_step_at_its_largest);
  tcase_add_test(tc, sim_gate_answers_busy_past_its_slots);
  suite_add_tcase(s, tc);
  return s;
}
