/* Findings never advise a value the widget refuses: every experiment of the
 * table (lab/face/experiments.h, through the registry) is simulated at its defaults, at each number's
 * bounds, at points between them (where the out-of-memory and other
 * verdicts turn), with each flag and choice flipped, on every profile, and
 * every sentence it returns is scanned for "PARAM ... VALUE": a value
 * outside PARAM's bounds fails, naming the sentence. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "exp_test.h"
#include "params.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"

/* Every experiment of the table, through the registry (which expands it):
 * a table line then rebuilds no test file. */

static int word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Words that may stand between a parameter and the value advised for it. */
static const char *skip_word(const char *t) {
  static const char *const words[] = {"to ", "of ", "at ", "up ", "or ", "is ", "below ", "above ", "under ",
                                      "over ", "from ", "= ", ": ", "≤ ", "≥ ", "< ", "> ", "("};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strncmp(t, words[i], strlen(words[i])) == 0) return t + strlen(words[i]);
  return NULL;
}

/* The number at t ("65,536", "1.5", "256 MiB" for a parameter in bytes),
 * or NAN when none starts there. */
static double number_at(const char *t, const lab_param_spec *s) {
  if (!((*t >= '0' && *t <= '9') || (*t == '-' && t[1] >= '0' && t[1] <= '9'))) return NAN;
  char digits[64];
  size_t n = 0;
  for (; *t && n + 1 < sizeof digits; t++) {
    if ((*t >= '0' && *t <= '9') || *t == '.' || *t == '-' || *t == 'e' || *t == '+') {
      if ((*t == 'e' || *t == '+') && !(t[1] >= '0' && t[1] <= '9')) break;
      digits[n++] = *t;
    } else if (*t == ',' && t[1] >= '0' && t[1] <= '9' && t[2] >= '0' && t[3] >= '0' && !word_char(t[4])) {
      continue; /* a thousands separator */
    } else {
      break;
    }
  }
  digits[n] = 0;
  double v = strtod(digits, NULL);
  if (s->unit && strcmp(s->unit, "bytes") == 0 && *t == ' ') {
    static const struct { const char *u; double f; } units[] = {{"KiB", 1024.0}, {"MiB", 1048576.0},
                                                               {"GiB", 1073741824.0}, {"kB", 1e3},
                                                               {"MB", 1e6}, {"GB", 1e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (strncmp(t + 1, units[i].u, strlen(units[i].u)) == 0) return v * units[i].f;
  }
  return v;
}

/* The first "PARAM ... VALUE" in text whose VALUE is outside PARAM's
 * bounds; its position, or NULL. */
static const char *advice_out_of_bounds(const char *text, const lab_param_spec *spec, int n) {
  for (int k = 0; k < n; k++) {
    const lab_param_spec *s = &spec[k];
    if (s->type != LAB_P_INT && s->type != LAB_P_NUM) continue;
    size_t len = strlen(s->name);
    for (const char *h = strstr(text, s->name); h; h = strstr(h + 1, s->name)) {
      if ((h > text && word_char(h[-1])) || word_char(h[len])) continue;
      const char *t = h + len;
      while (*t == ' ') t++;
      for (int w = 0; w < 4; w++) {
        const char *next = skip_word(t);
        if (!next) break;
        t = next;
      }
      double v = number_at(t, s);
      if (isnan(v)) continue;
      double slack = 1e-9 * fmax(1.0, fabs(s->max));
      if (v < s->min - slack || v > s->max + slack) return h;
    }
  }
  return NULL;
}

static void scan(const cJSON *node, const lab_experiment *e, const char *where) {
  const cJSON *c;
  if (cJSON_IsString(node)) {
    const char *bad = advice_out_of_bounds(node->valuestring, e->params, e->n_params);
    ck_assert_msg(bad == NULL, "%s (%s) advises a value outside the bounds at '%.40s' in: %s", e->name, where, bad,
                  node->valuestring);
    return;
  }
  cJSON_ArrayForEach(c, node) {
    if (c->string && strcmp(c->string, "params") == 0) continue;
    scan(c, e, where);
  }
}

static void run_and_scan(const lab_experiment *e, const lab_params *p, const lab_profile *prof, const char *what) {
  const char *param;
  if (lab_experiment_cpu_ms(e, p, &param) > 4000.0) return; /* bounded: the largest sizes are the CPU estimate's */
  cJSON *env = NULL;
  lab_error err = {0};
  if (lab_simulate_checked_with(e, p, prof, &env, &err) != 0) return; /* refused by a cross-parameter rule */
  char where[160];
  snprintf(where, sizeof where, "%s on %s", what, prof->name);
  scan(env, e, where);
  cJSON_Delete(env);
}

/* GPULAB_ADVICE_SCAN=bounds: each number at its defaults and bounds only,
 * not the 6 points between. tests/run.sh sets it for the sanitizer build,
 * whose pass is there for memory errors: the bounds are the runs that
 * stretch each buffer most and least, and the points between (where the
 * verdicts turn: the findings' words, checked by the plain build's full
 * scan) run the same code at other numbers, at twice the CPU under
 * AddressSanitizer (122 of the sanitizer unit stage's 184 s of CPU). */
static bool scan_bounds_only(void) {
  const char *v = getenv("GPULAB_ADVICE_SCAN");
  return v && strcmp(v, "bounds") == 0;
}

static void advise_only_inside_bounds(int index) {
  const lab_experiment *e = lab_experiment_at(index);
  ck_assert_ptr_nonnull(e);
  const int stride = scan_bounds_only() ? 7 : 1; /* over the 8 steps below */
  for (int pi = 0; pi < lab_profile_count(); pi++) {
    const lab_profile *prof = lab_profile_at(pi);
    lab_params p;
    lab_params_init(&p, e->params, e->n_params);
    run_and_scan(e, &p, prof, "defaults");
    for (int k = 0; k < e->n_params; k++) {
      const lab_param_spec *s = &e->params[k];
      char what[96];
      lab_params_init(&p, e->params, e->n_params);
      if (s->type == LAB_P_BOOL || s->type == LAB_P_ENUM) {
        int n = s->type == LAB_P_BOOL ? 2 : 0;
        while (s->type == LAB_P_ENUM && s->choices[n]) n++;
        for (int v = 0; v < n; v++) {
          p.v[k] = v;
          snprintf(what, sizeof what, "%s = %d", s->name, v);
          run_and_scan(e, &p, prof, what);
        }
        continue;
      }
      /* Both bounds and 6 points between (geometric when the range spans
       * decades), where the verdicts (fits, out of memory) turn; the
       * bounds only where GPULAB_ADVICE_SCAN=bounds (scan_bounds_only). */
      for (int step = 0; step <= 7; step += stride) {
        double v = s->min > 0 && s->max / s->min > 100 ? s->min * pow(s->max / s->min, step / 7.0)
                                                       : s->min + (s->max - s->min) * step / 7.0;
        if (s->type == LAB_P_INT) v = step == 7 ? s->max : floor(v);
        p.v[k] = fmin(fmax(v, s->min), s->max);
        snprintf(what, sizeof what, "%s = %.15g", s->name, p.v[k]);
        run_and_scan(e, &p, prof, what);
      }
    }
  }
}

/* The experiments in two test cases, even and odd places of the table:
 * make test runs the one tagged "apart" in a process of its own, beside
 * every other suite (tests/run.sh), as this scan is most of the unit
 * stage's time and a few experiments most of the scan's. */
START_TEST(findings_advise_only_values_inside_the_bounds) {
  advise_only_inside_bounds(2 * _i);
}
END_TEST

START_TEST(findings_advise_only_values_inside_the_bounds_odd_places) {
  advise_only_inside_bounds(2 * _i + 1);
}
END_TEST

/* The memory experiment's over-budget step on a real run: the device has
 * room, the budget_gib cap does not, and the budget it would need is over
 * its most. */
START_TEST(memory_advises_no_budget_over_its_most) {
  cJSON *env = test_exp_memory_capped("{\"params_m\": 124, \"batch\": 32, \"seq_len\": 1024, \"hidden\": 768, "
                                      "\"layers\": 12, \"budget_gib\": 8, \"force_oom\": false}", "h100-sxm");
  const cJSON *oom = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "oom");
  char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(oom, "fixes"));
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strstr(text, "raise budget_gib to") == NULL, "%.900s", text);
  ck_assert_msg(strstr(text, "budget_gib stops at its most (8.00 GiB)") != NULL, "%.900s", text);
  free(text);
  cJSON_Delete(env);
}
END_TEST

START_TEST(advice_scan_finds_what_it_should) {
  const lab_experiment *e = lab_experiment_find("memory");
  ck_assert_ptr_nonnull(advice_out_of_bounds("Or raise budget_gib to 15.1 or more.", e->params, e->n_params));
  ck_assert_ptr_nonnull(advice_out_of_bounds("set batch to 8,192", e->params, e->n_params));
  ck_assert_ptr_null(advice_out_of_bounds("Or raise budget_gib to 7.5 or more.", e->params, e->n_params));
  ck_assert_ptr_null(advice_out_of_bounds("(budget_gib 1, 15 GiB free)", e->params, e->n_params));
  ck_assert_ptr_null(advice_out_of_bounds("the budget_gib cap of 9 GiB", e->params, e->n_params));
  char buf[200];
  lab_params p;
  lab_params_init(&p, e->params, e->n_params);
  ck_assert_int_eq(lab_advise_param(buf, sizeof buf, &p, "budget_gib", 15.125, "raise %s GiB.", "no."), 0);
  ck_assert_str_eq(buf, "no.");
  ck_assert_int_eq(lab_advise_param(buf, sizeof buf, &p, "batch", 300, "set %s.", "no."), 1);
  ck_assert_str_eq(buf, "set batch to 300.");
  ck_assert_int_eq(lab_advise_param(buf, sizeof buf, &p, "force_oom", 1, "set %s.", "no."), 0);
}
END_TEST

Suite *make_advice_suite(void) {
  Suite *s = suite_create("advice");
  TCase *tc = tcase_create("bounds");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, findings_advise_only_values_inside_the_bounds, 0, (lab_experiment_count() + 1) / 2);
  tcase_add_test(tc, memory_advises_no_budget_over_its_most);
  tcase_add_test(tc, advice_scan_finds_what_it_should);
  suite_add_tcase(s, tc);
  TCase *odd = tcase_create("bounds_odd_places");
  tcase_set_timeout(odd, 600);
  tcase_set_tags(odd, "apart");
  tcase_add_loop_test(odd, findings_advise_only_values_inside_the_bounds_odd_places, 0, lab_experiment_count() / 2);
  suite_add_tcase(s, odd);
  return s;
}
