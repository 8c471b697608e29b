/* The experiment widget: labelled controls built from the registry's
 * parameter specs, validation with lab/face/params.c whose errors name the
 * parameter, and the backend/profile picker. Also the fake bridge calls the
 * widgets add (ui_dom_value, ui_later); check_ui_app.c fakes the rest. */
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "placement.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "experiment.h"
#include "gpu_panel.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\" in %s", (needle), (hay))

/* No page here: no control has a value but the class form's fields a test
 * fills in (test_class_code, test_class_name), and deferred work runs at
 * once, its delay kept in test_later_ms. */
const char *test_class_code, *test_class_name;
int test_later_ms = -1;

int ui_dom_value(const char *id, char *buf, size_t n) {
  const char *v = strcmp(id, "class-code") == 0 ? test_class_code : strcmp(id, "class-name") == 0 ? test_class_name : NULL;
  if (n) buf[0] = '\0';
  if (!v || strlen(v) + 1 > n) return -1;
  snprintf(buf, n, "%s", v);
  return (int)strlen(v);
}
void ui_later(int delay_ms, ui_later_cb cb, void *ctx) {
  ck_assert_int_ge(delay_ms, 0);
  test_later_ms = delay_ms;
  cb(ctx);
}

static int param_index(const lab_experiment *e, const char *name) {
  for (int i = 0; i < e->n_params; i++)
    if (strcmp(e->params[i].name, name) == 0) return i;
  ck_abort_msg("no parameter %s", name);
  return -1;
}

START_TEST(widget_has_a_labelled_control_for_every_parameter) {
  const lab_experiment *e = lab_experiment_find("memory");
  ui_exp_widget w;
  ui_buf b;
  ui_exp_widget_init(&w, e);
  ui_buf_init(&b);
  ui_render_experiment_widget(&b, &w, NULL);
  const char *out = ui_buf_str(&b);
  ck_has(out, "<label for=\"exp-memory-f-batch\">batch <span class=\"unit\">(sequences)</span></label>");
  ck_has(out, "<input type=\"number\" id=\"exp-memory-f-batch\" min=\"1\" max=\"4096\" step=\"1\"");
  ck_has(out, "id=\"exp-memory-f-params_m\" min=\"0.1\" max=\"1000000\" step=\"any\"");
  ck_has(out, "<input type=\"checkbox\" id=\"exp-memory-f-force_oom\"");
  ck_has(out, " checked>");
  ck_has(out, "data-action=\"exp-run\" data-arg=\"memory\"");
  ck_has(out, "aria-busy=\"false\"");
  for (int i = 0; i < lab_profile_count(); i++) {
    char opt[80];
    snprintf(opt, sizeof opt, "<option value=\"%s\"", lab_profile_at(i)->name);
    ck_has(out, opt);
  }
  ck_has(out, "simulate as T4");
  ck_has(out, "simulate as H100 SXM");
  ck_has(out, "simulate as Apple M1 Pro</option>"); /* the memory walk has a meaning there */
  ck_has(out, "simulate as AMD Radeon RX 7900 XTX</option>");
  ui_buf_free(&b);
}
END_TEST

/* Without a usable GPU, auto is the default profile (the T4) in the page as
 * on the server: the picker names it. */
START_TEST(auto_names_the_default_profile) {
  char buf[96];
  ck_assert_str_eq(ui_exp_auto_label(NULL, buf, sizeof buf), "auto: simulated (T4)");
  ck_assert_str_eq(lab_profile_default()->name, "t4");
}
END_TEST

/* The picker marks the profiles an experiment has no meaning on (the table's
 * needs column against the profile's platform), still selectable: picked,
 * the answer says why. */
START_TEST(picker_marks_the_gpus_an_experiment_does_not_apply_to) {
  static const char *const names[] = {"transfer", "graphs", "streams", "timing", "device"};
  for (int k = 0; k < 5; k++) {
    ui_exp_widget w;
    ui_buf b;
    ui_exp_widget_init(&w, lab_experiment_find(names[k]));
    ui_buf_init(&b);
    ui_render_experiment_picker(&b, &w, NULL);
    const char *out = ui_buf_str(&b);
    int marked = 0;
    for (int i = 0; i < lab_profile_count(); i++) {
      char opt[160], label[64];
      const lab_profile *p = lab_profile_at(i);
      bool applies = lab_experiment_applies(w.e, p);
      snprintf(opt, sizeof opt, ">simulate as %s%s</option>", ui_profile_short_label(p->label, label, sizeof label),
               applies ? "" : " (does not apply)");
      ck_has(out, opt);
      marked += !applies;
    }
    /* transfer, graphs and streams: the Mac; the device check: the Mac and the AMD card; timing: none */
    ck_assert_int_eq(marked, k < 3 ? 1 : k == 3 ? 0 : 2);
    ui_buf_free(&b);
  }
}
END_TEST

/* A run the picked GPU has no meaning for is an answer, not a fault: said
 * as such (no alert, no "did not run"), and no earlier result under it. */
START_TEST(a_not_applicable_answer_says_so_plainly) {
  ui_exp_widget w;
  ui_buf b;
  lab_error err = {0};
  cJSON *env = NULL;
  ui_exp_widget_init(&w, lab_experiment_find("transfer"));
  ck_assert_int_eq(lab_simulate_with(w.e, NULL, lab_profile_find("m1-pro"), &env, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_NOT_APPLICABLE);
  w.failure = err.message;
  w.not_applicable = true;
  ui_buf_init(&b);
  ui_render_experiment_output(&b, &w, NULL);
  const char *html = ui_buf_str(&b);
  ck_has(html, "<p class=\"exp-na\" role=\"status\"><strong>Does not apply to this GPU.</strong> transfer does not "
               "apply to the Apple M1 Pro: it times copies over the link between host memory and the GPU");
  ck_assert_ptr_null(strstr(html, "did not run"));
  ck_assert_ptr_null(strstr(html, "role=\"alert\""));
  ck_assert_ptr_null(test_ui_markup_problem(html));
  ui_buf_free(&b);
  w.not_applicable = false; /* any other failure is one */
  ui_buf_init(&b);
  ui_render_experiment_output(&b, &w, NULL);
  ck_has(ui_buf_str(&b), "<strong>The experiment did not run.</strong>");
  ui_buf_free(&b);
}
END_TEST

/* "Download trace" comes with a result that draws a timeline, and with how
 * to open the file; a result without one has no button. */
START_TEST(a_result_with_a_timeline_offers_its_trace) {
  static const char *const names[] = {"timing", "crossover"};
  for (int k = 0; k < 2; k++) {
    ui_exp_widget w;
    ui_buf b;
    cJSON *env = NULL;
    lab_error err;
    ui_exp_widget_init(&w, lab_experiment_find(names[k]));
    cJSON *small = k ? cJSON_Parse("{\"max_size\":128}") : NULL;
    ck_assert_int_eq(lab_simulate_with(w.e, small, lab_profile_default(), &env, &err), 0);
    cJSON_Delete(small);
    w.result = env;
    w.in_browser = true;
    ui_buf_init(&b);
    ui_render_experiment_output(&b, &w, NULL);
    const char *html = ui_buf_str(&b);
    if (k == 0) {
      ck_has(html, "data-action=\"exp-trace\" data-arg=\"timing\">Download trace</button>");
      ck_has(html, "ui.perfetto.dev");
    } else {
      ck_assert_ptr_null(strstr(html, "exp-trace"));
    }
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(widget_shows_running_state_accessibly) {
  ui_exp_widget w;
  ui_buf b;
  ui_exp_widget_init(&w, lab_experiment_find("timing"));
  w.running = true;
  ui_buf_init(&b);
  ui_render_experiment_widget(&b, &w, NULL);
  ck_has(ui_buf_str(&b), "aria-disabled=\"true\">Running…</button>");
  ck_has(ui_buf_str(&b), "role=\"status\" aria-live=\"polite\">running…</span>");
  ck_has(ui_buf_str(&b), "aria-busy=\"true\"");
  ui_buf_free(&b);
}
END_TEST

START_TEST(validation_errors_name_the_parameter) {
  const lab_experiment *e = lab_experiment_find("memory");
  ui_exp_widget w;
  cJSON *params = NULL;
  ui_exp_widget_init(&w, e);
  int batch = param_index(e, "batch"), hidden = param_index(e, "hidden");
  snprintf(w.text[batch], sizeof w.text[batch], "0");
  snprintf(w.text[hidden], sizeof w.text[hidden], "<b>wide</b>");
  ck_assert_int_eq(ui_exp_validate(&w, &params, NULL), 2);
  ck_assert_ptr_null(params);
  ck_has(w.error[batch], "batch");
  ck_has(w.error[hidden], "hidden");
  ck_assert_str_eq(w.error[param_index(e, "layers")], "");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_experiment_fields(&b, &w, NULL);
  const char *out = ui_buf_str(&b);
  ck_has(out, "aria-describedby=\"exp-memory-f-batch-err exp-memory-f-batch-help\" aria-invalid=\"true\"");
  ck_has(out, "<p class=\"exp-error\" id=\"exp-memory-f-batch-err\" role=\"alert\">batch must be");
  ck_assert_ptr_null(strstr(out, "<b>wide"));
  ck_has(out, "value=\"&lt;b&gt;wide&lt;/b&gt;\"");
  ui_buf_free(&b);
}
END_TEST

START_TEST(valid_values_become_the_normalised_params) {
  const lab_experiment *e = lab_experiment_find("placement");
  ui_exp_widget w;
  cJSON *params = NULL;
  ui_exp_widget_init(&w, e);
  snprintf(w.text[param_index(e, "move_labels")], UI_EXP_TEXT_MAX, "0");
  snprintf(w.text[param_index(e, "batch")], UI_EXP_TEXT_MAX, "32");
  lab_params checked;
  ck_assert_int_eq(ui_exp_validate(&w, &params, &checked), 0);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(params, "move_labels")));
  /* The same values, checked, for a simulation in the browser. */
  ck_assert(!lab_params_placement_of(&checked).move_labels);
  ck_assert_int_eq(lab_params_placement_of(&checked).batch, 32);
  ck_assert_int_eq(cJSON_GetObjectItem(params, "batch")->valueint, 32);
  cJSON_Delete(params);
}
END_TEST

START_TEST(an_error_reported_by_the_run_lands_on_its_field) {
  const lab_experiment *e = lab_experiment_find("transfer");
  ui_exp_widget w;
  lab_error err;
  ui_exp_widget_init(&w, e);
  lab_fail(&err, LAB_E_INVALID_PARAM, "small_bytes", "small_copies x small_bytes must fit in max_bytes");
  ui_exp_set_error(&w, &err);
  ck_has(w.error[param_index(e, "small_bytes")], "must fit");
}
END_TEST

START_TEST(unknown_experiment_is_named_safely) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_experiment_unknown(&b, "<warp>");
  ck_has(ui_buf_str(&b), "<code>&lt;warp&gt;</code>");
  ui_buf_free(&b);
}
END_TEST

START_TEST(picker_offers_a_recorded_run_only_when_there_is_one) {
  ui_exp_widget w;
  ui_buf b;
  ui_exp_widget_init(&w, lab_experiment_find("timing"));
  ui_buf_init(&b);
  ui_render_experiment_widget(&b, &w, NULL);
  ck_assert_ptr_null(strstr(ui_buf_str(&b), "value=\"recorded\""));
  ck_has(ui_buf_str(&b), "<div class=\"exp-field exp-target\" id=\"exp-timing-picker\">");
  ui_buf_free(&b);

  /* the label comes from the recorded file, so it is escaped like any data */
  w.recorded_label = "recorded on NVIDIA <A100>, 2026-11-20";
  snprintf(w.target, sizeof w.target, "recorded");
  ui_buf_init(&b);
  ui_render_experiment_widget(&b, &w, NULL);
  const char *out = ui_buf_str(&b);
  ck_has(out, "<option id=\"exp-timing-target-recorded\" value=\"recorded\" selected>"
              "recorded on NVIDIA &lt;A100&gt;, 2026-11-20</option></select>");
  ck_has(out, "aria-describedby=\"exp-timing-target-help exp-timing-target-recorded-help\"");
  ck_has(out, "id=\"exp-timing-target-recorded-help\">");
  ck_has(out, "the controls above do not apply to it.");
  ck_assert_ptr_null(strstr(out, "value=\"auto\" selected"));
  ui_buf_free(&b);
}
END_TEST

START_TEST(picker_redraws_alone_keeping_the_choice) {
  ui_exp_widget w;
  ui_buf b;
  ui_exp_widget_init(&w, lab_experiment_find("timing"));
  snprintf(w.target, sizeof w.target, "t4");
  w.recorded_label = "recorded on NVIDIA H100 80GB HBM3, 2026-11-21";
  ui_buf_init(&b);
  ui_render_experiment_picker(&b, &w, NULL);
  const char *out = ui_buf_str(&b);
  const char *head = "<label for=\"exp-timing-target\">Run on</label>";
  ck_assert_msg(strncmp(out, head, strlen(head)) == 0, "starts with %s", out);
  ck_has(out, "<option value=\"t4\" selected>");
  ck_has(out, "value=\"recorded\">recorded on NVIDIA H100 80GB HBM3, 2026-11-21</option>");
  ck_assert_ptr_null(strstr(out, "exp-timing-picker")); /* the inside only: the wrapper stays on the page */
  ui_buf_free(&b);
}
END_TEST

Suite *make_ui_experiment_suite(void) {
  Suite *s = suite_create("ui_experiment");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, widget_has_a_labelled_control_for_every_parameter);
  tcase_add_test(tc, widget_shows_running_state_accessibly);
  tcase_add_test(tc, validation_errors_name_the_parameter);
  tcase_add_test(tc, valid_values_become_the_normalised_params);
  tcase_add_test(tc, an_error_reported_by_the_run_lands_on_its_field);
  tcase_add_test(tc, unknown_experiment_is_named_safely);
  tcase_add_test(tc, picker_offers_a_recorded_run_only_when_there_is_one);
  tcase_add_test(tc, picker_redraws_alone_keeping_the_choice);
  tcase_add_test(tc, a_result_with_a_timeline_offers_its_trace);
  tcase_add_test(tc, auto_names_the_default_profile);
  tcase_add_test(tc, picker_marks_the_gpus_an_experiment_does_not_apply_to);
  tcase_add_test(tc, a_not_applicable_answer_says_so_plainly);
  suite_add_tcase(s, tc);
  return s;
}
