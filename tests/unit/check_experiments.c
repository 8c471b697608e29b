/* What every experiment must satisfy, checked by walking the one table
 * (lab/face/experiments.h), so a new experiment is held to it by adding its
 * line: every part present, defaults taken from its own spec, bounds and
 * types refused by name, an envelope of the right shape on every profile,
 * the same model numbers every run, and a place in its lesson. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "exp_test.h"
#include "experiments.h"
#include "profiles.h"
#include "suites.h"

static const struct {
  const char *stem;
  int kern, cpu;
  unsigned needs;
} table[] = {
#define X_ROW(stem, gpu, cpu, needs) {#stem, LAB_GPU_IS_KERN_##gpu, cpu, LAB_NEEDS_##needs},
    LAB_EXPERIMENTS(X_ROW)
#undef X_ROW
};
#define N_ROWS ((int)(sizeof table / sizeof table[0]))

static const lab_experiment *row(int i) {
  const lab_experiment *e = lab_experiment_find(table[i].stem);
  ck_assert_msg(e != NULL, "%s is in the table but not in the registry", table[i].stem);
  return e;
}

START_TEST(experiment_has_every_part) {
  const lab_experiment *e = row(_i);
  ck_assert_ptr_eq(e, lab_experiment_at(_i)); /* the registry keeps the table's order */
  ck_assert_str_eq(e->name, table[_i].stem);
  ck_assert_msg(e->title && strlen(e->title) > 5, "%s has no title", e->name);
  ck_assert_msg(e->summary && strlen(e->summary) > 20, "%s has no summary", e->name);
  ck_assert_msg(e->lesson && *e->lesson, "%s names no lesson", e->name);
  ck_assert_msg(e->simulate != NULL, "%s has no simulator: every experiment runs without a GPU", e->name);
  ck_assert_msg(e->n_params > 0 && e->n_params <= LAB_MAX_PARAMS, "%s: %d params", e->name, e->n_params);
  for (int k = 0; k < e->n_params; k++) {
    const lab_param_spec *s = &e->params[k];
    ck_assert_msg(s->name && s->help && strlen(s->help) > 10, "%s: parameter %d has no name or help", e->name, k);
    if (s->type == LAB_P_INT || s->type == LAB_P_NUM)
      ck_assert_msg(s->min <= s->def && s->def <= s->max, "%s.%s: default outside its bounds", e->name, s->name);
  }
  ck_assert_int_eq(lab_experiment_has_kernel(e), table[_i].kern);
  ck_assert_int_eq(lab_experiment_is_device_check(e), !table[_i].kern);
  ck_assert_int_eq(lab_experiment_server_cpu(e), table[_i].cpu);
  ck_assert_uint_eq(lab_experiment_needs(e), table[_i].needs);
  /* A GPU experiment without a memory estimate would slip past a class's memory limit. */
  ck_assert_msg(!table[_i].kern || e->gpu_bytes != NULL, "%s runs on a GPU but states no GPU memory estimate",
                e->name);
}
END_TEST

START_TEST(experiment_is_embedded_in_its_lesson) {
  const lab_experiment *e = row(_i);
  char path[256], line[256], want[96];
  snprintf(path, sizeof path, "lessons/%s/lesson.md", e->lesson);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "%s: its lesson %s has no %s", e->name, e->lesson, path);
  snprintf(want, sizeof want, "::: experiment %s\n", e->name);
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strcmp(line, want) == 0;
  fclose(f);
  ck_assert_msg(found, "%s is not embedded in %s (a line '::: experiment %s')", e->name, path, e->name);
}
END_TEST

START_TEST(experiment_defaults_come_from_its_spec) {
  const lab_experiment *e = row(_i);
  lab_error err;
  cJSON *env = test_exp_simulate(e->name, NULL, NULL, &err);
  ck_assert_msg(env != NULL, "%s with defaults: %s", e->name, err.message);
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(env, "params");
  for (int k = 0; k < e->n_params; k++) {
    const lab_param_spec *s = &e->params[k];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, s->name);
    ck_assert_msg(v != NULL, "%s: the envelope does not state %s", e->name, s->name);
    if (s->type == LAB_P_BOOL) ck_assert_int_eq(cJSON_IsTrue(v), s->def != 0);
    else if (s->type == LAB_P_ENUM) ck_assert_str_eq(v->valuestring, s->choices[(int)s->def]);
    else ck_assert_msg(v->valuedouble == s->def, "%s.%s: %g, spec says %g", e->name, s->name, v->valuedouble, s->def);
  }
  ck_assert_int_eq(cJSON_GetArraySize(params), e->n_params);
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(env, "device");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(dev, "profile")->valuestring, lab_profile_default()->name);
  cJSON_Delete(env);
}
END_TEST

START_TEST(experiment_refuses_bad_params_by_name) { test_exp_check_bounds(row(_i)->name); }
END_TEST

/* The smallest in-bounds value of every number, so the check is quick. */
static cJSON *smallest_params(const lab_experiment *e) {
  cJSON *o = cJSON_CreateObject();
  for (int k = 0; k < e->n_params; k++)
    if (e->params[k].type == LAB_P_INT || e->params[k].type == LAB_P_NUM)
      cJSON_AddNumberToObject(o, e->params[k].name, e->params[k].min);
  return o;
}

START_TEST(experiment_envelope_has_its_shape_on_every_profile) {
  const lab_experiment *e = row(_i);
  cJSON *small = smallest_params(e);
  for (int k = 0; k < lab_profile_count(); k++) {
    const lab_profile *prof = lab_profile_at(k);
    lab_error err = {0};
    cJSON *env = NULL;
    if (!lab_experiment_applies(e, prof)) { /* says so, whatever the params, and simulates nothing */
      ck_assert_int_eq(lab_simulate_with(e, NULL, prof, &env, &err), -1);
      ck_assert_ptr_null(env);
      ck_assert_int_eq(err.code, LAB_E_NOT_APPLICABLE);
      ck_assert_str_eq(err.param, "profile");
      ck_assert_msg(strstr(err.message, "does not apply to the ") && strstr(err.message, prof->device_name),
                    "%s on %s: %s", e->name, prof->name, err.message);
      continue;
    }
    /* The smallest values may break a cross-parameter rule; then the defaults must pass. */
    int rc = lab_simulate_with(e, small, prof, &env, &err);
    if (rc != 0) {
      ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
      rc = lab_simulate_with(e, NULL, prof, &env, &err);
    }
    ck_assert_msg(rc == 0, "%s on %s: %s", e->name, prof->name, err.message);
    ck_assert_msg(lab_envelope_check(env, &err) == 0, "%s on %s: %s", e->name, prof->name, err.message);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(env, "experiment")->valuestring, e->name);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(env, "backend")->valuestring, "simulated");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(env, "device");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(dev, "profile")->valuestring, prof->name);
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "stats"), "method");
    ck_assert_msg(cJSON_IsString(method) && strlen(method->valuestring) > 20, "%s states no method", e->name);
    ck_assert_msg(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "findings")) > 0, "%s finds nothing",
                  e->name);
    cJSON_Delete(env);
  }
  cJSON_Delete(small);
}
END_TEST

/* The envelope without what is timed for real on this CPU: series marked
 * "measured", and (when there is one) the metrics and findings built on it;
 * "details" and findings may quote CPU times of computed work too. */
static char *model_part(const cJSON *env) {
  cJSON *copy = cJSON_Duplicate(env, 1);
  cJSON *series = cJSON_GetObjectItemCaseSensitive(copy, "series"), *s = series ? series->child : NULL;
  int measured = 0;
  while (s) {
    cJSON *next = s->next;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
    if (cJSON_IsString(src) && strcmp(src->valuestring, "measured") == 0) {
      cJSON_Delete(cJSON_DetachItemViaPointer(series, s));
      measured = 1;
    }
    s = next;
  }
  if (measured) cJSON_DeleteItemFromObjectCaseSensitive(copy, "metrics");
  cJSON_DeleteItemFromObjectCaseSensitive(copy, "findings");
  cJSON_DeleteItemFromObjectCaseSensitive(copy, "details");
  cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(copy, "stats"), "iqr_pct");
  char *text = cJSON_PrintUnformatted(copy);
  cJSON_Delete(copy);
  return text;
}

START_TEST(experiment_model_numbers_are_the_same_every_run) {
  const lab_experiment *e = row(_i);
  lab_error err;
  cJSON *small = smallest_params(e), *a = NULL, *b = NULL;
  if (lab_simulate(e, small, "t4", &a, &err) != 0) {
    ck_assert_int_eq(lab_simulate(e, NULL, "t4", &a, &err), 0);
    ck_assert_int_eq(lab_simulate(e, NULL, "t4", &b, &err), 0);
  } else {
    ck_assert_int_eq(lab_simulate(e, small, "t4", &b, &err), 0);
  }
  char *ta = model_part(a), *tb = model_part(b);
  ck_assert_str_eq(ta, tb);
  free(ta);
  free(tb);
  cJSON_Delete(a);
  cJSON_Delete(b);
  cJSON_Delete(small);
}
END_TEST

START_TEST(experiment_check_passes_its_defaults_and_names_a_param) {
  const lab_experiment *e = row(_i);
  lab_params p;
  lab_error err = {0};
  ck_assert_int_eq(lab_experiment_params(e, NULL, &p, &err), 0);
  const char *param = NULL;
  double bytes = lab_experiment_gpu_bytes(e, &p, &param);
  if (e->gpu_bytes) {
    ck_assert_msg(bytes > 0 && param, "%s: a GPU memory estimate of %g bytes", e->name, bytes);
    int named = 0;
    for (int k = 0; k < e->n_params; k++) named |= strcmp(e->params[k].name, param) == 0;
    ck_assert_msg(named, "%s: the memory estimate names '%s', not one of its params", e->name, param);
  } else {
    ck_assert(bytes == 0 && param == NULL);
  }
}
END_TEST

/* The CPU estimate (lab_experiment_cpu_ms) is there for every experiment
 * (the link already demands the function), at least the 1 ms floor, names
 * one of its params, and lets its defaults run under the server's default
 * budget. */
START_TEST(experiment_estimates_its_cpu_and_names_a_param) {
  const lab_experiment *e = row(_i);
  lab_params p;
  lab_error err = {0};
  ck_assert_int_eq(lab_experiment_params(e, NULL, &p, &err), 0);
  const char *param = NULL;
  double ms = lab_experiment_cpu_ms(e, &p, &param);
  ck_assert_msg(ms >= 1.0 && isfinite(ms), "%s: a CPU estimate of %g ms", e->name, ms);
  ck_assert_msg(ms <= 2000.0, "%s: its defaults are estimated at %g ms, over the default budget", e->name, ms);
  ck_assert_ptr_nonnull(param);
  int named = 0;
  for (int k = 0; k < e->n_params; k++) named |= strcmp(e->params[k].name, param) == 0;
  ck_assert_msg(named, "%s: the CPU estimate names '%s', not one of its params", e->name, param);
}
END_TEST

/* More of any size never costs less: each numeric parameter walked from its
 * minimum to its maximum (16 steps), the others at their defaults and
 * then at their minima, never lowers the estimate. */
START_TEST(experiment_cpu_estimate_never_falls_as_a_size_grows) {
  const lab_experiment *e = row(_i);
  for (int base = 0; base < 2; base++)
    for (int k = 0; k < e->n_params; k++) {
      const lab_param_spec *s = &e->params[k];
      if (s->type != LAB_P_INT && s->type != LAB_P_NUM) continue;
      lab_params p;
      lab_params_init(&p, e->params, e->n_params);
      for (int j = 0; base && j < e->n_params; j++)
        if (e->params[j].type == LAB_P_INT || e->params[j].type == LAB_P_NUM) p.v[j] = e->params[j].min;
      double last = 0;
      for (int step = 0; step <= 16; step++) {
        double v = s->min + (s->max - s->min) * step / 16.0;
        p.v[k] = s->type == LAB_P_INT ? floor(v) : v;
        const char *param;
        double ms = lab_experiment_cpu_ms(e, &p, &param);
        ck_assert_msg(ms >= last, "%s: %s = %g lowers the CPU estimate from %g to %g ms", e->name, s->name,
                      p.v[k], last, ms);
        last = ms;
      }
    }
}
END_TEST

/* A number in a sentence that reads as zero though it measures something:
 * "0.00 ms", "0.0 MiB", "0 GB/s" (a count of zero, or 0 %, can be true). */
static const char *zero_quantity(const char *text) {
  static const char *const units[] = {"ms", "µs", "ns", "s", "B", "kB", "MB", "GB", "KiB", "MiB", "GiB", "TFLOPS"};
  for (const char *p = text; *p; p++) {
    if (!(*p >= '0' && *p <= '9') || (p > text && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.'))) continue;
    char *end;
    double v = strtod(p, &end);
    if (v != 0 || *end != ' ') continue;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
      size_t n = strlen(units[u]);
      if (strncmp(end + 1, units[u], n) == 0 && !(end[1 + n] >= 'a' && end[1 + n] <= 'z') &&
          !(end[1 + n] >= 'A' && end[1 + n] <= 'Z'))
        return p;
    }
  }
  return NULL;
}

/* Every experiment's findings, at its defaults and at its smallest sizes on
 * every profile, read sensibly: no NaN or infinity, and no measured
 * quantity written so that it reads as zero. */
START_TEST(experiment_findings_never_read_as_zero_or_nan) {
  const lab_experiment *e = row(_i);
  cJSON *small = smallest_params(e);
  for (int k = 0; k < lab_profile_count(); k++)
    for (int v = 0; v < 2; v++) {
      cJSON *env = NULL;
      lab_error err;
      if (lab_simulate_with(e, v ? small : NULL, lab_profile_at(k), &env, &err) != 0) continue;
      const cJSON *f;
      cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
        const char *t = f->valuestring, *z = zero_quantity(t);
        ck_assert_msg(!strstr(t, "nan") && !strstr(t, "inf ") && !strstr(t, "inf)"), "%s on %s: %s", e->name,
                      lab_profile_at(k)->name, t);
        ck_assert_msg(z == NULL, "%s on %s, %s: reads as zero at '%.20s' in: %s", e->name, lab_profile_at(k)->name,
                      v ? "smallest sizes" : "defaults", z, t);
      }
      cJSON_Delete(env);
    }
  cJSON_Delete(small);
}
END_TEST

START_TEST(zero_quantity_finds_what_it_should) {
  ck_assert_ptr_nonnull(zero_quantity("the GPU worked 0.00 ms here"));
  ck_assert_ptr_nonnull(zero_quantity("gave 0.0 MiB back"));
  ck_assert_ptr_nonnull(zero_quantity("(0 GB/s)"));
  ck_assert_ptr_null(zero_quantity("took 0.000571 GB/s and 10.0 ms"));
  ck_assert_ptr_null(zero_quantity("0 steps were skipped, 0% flushed"));
  ck_assert_ptr_null(zero_quantity("100 ms and 20 B"));
}
END_TEST

/* Checked params run as they are and state the values the same JSON states
 * (some experiments time this CPU, so the figures may differ); the
 * params of another experiment are an internal error, never read. */
START_TEST(experiment_simulates_checked_params_as_its_json) {
  const lab_experiment *e = row(_i), *other = row((_i + 1) % N_ROWS);
  lab_params p, q;
  lab_error err = {0};
  cJSON *a = NULL, *b = NULL;
  ck_assert_int_eq(lab_experiment_params(e, NULL, &p, &err), 0);
  ck_assert_int_eq(lab_experiment_params(other, NULL, &q, &err), 0);
  ck_assert_int_eq(lab_simulate_checked(e, &q, "t4", &a, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_INTERNAL);
  ck_assert_ptr_null(a);
  ck_assert_int_eq(lab_simulate_checked(e, &p, "t4", &a, &err), 0);
  ck_assert_int_eq(lab_simulate(e, NULL, "t4", &b, &err), 0);
  ck_assert(cJSON_Compare(cJSON_GetObjectItem(a, "params"), cJSON_GetObjectItem(b, "params"), 1));
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

Suite *make_experiments_suite(void) {
  Suite *s = suite_create("experiments");
  TCase *tc = tcase_create("table");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, experiment_has_every_part, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_is_embedded_in_its_lesson, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_defaults_come_from_its_spec, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_refuses_bad_params_by_name, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_envelope_has_its_shape_on_every_profile, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_model_numbers_are_the_same_every_run, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_check_passes_its_defaults_and_names_a_param, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_findings_never_read_as_zero_or_nan, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_estimates_its_cpu_and_names_a_param, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_cpu_estimate_never_falls_as_a_size_grows, 0, N_ROWS);
  tcase_add_loop_test(tc, experiment_simulates_checked_params_as_its_json, 0, N_ROWS);
  tcase_add_test(tc, zero_quantity_finds_what_it_should);
  suite_add_tcase(s, tc);
  return s;
}
