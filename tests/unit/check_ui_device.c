/* The "Your GPU" panel (wasm/render/gpu_panel.c) rendered natively from
 * the JSON the server sends and from the simulator's envelope: the verdict,
 * both views, the live/simulated badge, escaping and hostile JSON. */
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "gpu_panel.h"
#include "experiment.h"

/* What GET /api/device answers on a machine with the CUDA runtime but no driver. */
static const char NO_DRIVER[] =
    "{\"mode\":\"cuda\",\"driver\":{\"source\":\"none\",\"present\":false,\"driver_version\":null,"
    "\"cuda_version\":null,\"device_count\":0,\"devices\":[],\"error\":\"NVML is not installed\"},"
    "\"runtime\":{\"status\":\"insufficient_driver\",\"built_with_cuda\":true,\"runtime_version\":\"13.0\","
    "\"driver_api_version\":null,\"error_name\":\"cudaErrorInsufficientDriver\",\"error_message\":\"CUDA driver "
    "version is insufficient\",\"device_count\":0,\"devices\":[]},\"verdict\":{\"code\":\"no_driver\",\"usable\":false,"
    "\"simulate\":true,\"summary\":\"no usable GPU: the CUDA driver is missing\",\"explanation\":\"Because.\","
    "\"advice\":\"Install the driver.\"}}";

static char *render(const ui_device_state *s, bool badge) {
  ui_buf b;
  ui_buf_init(&b);
  if (badge) ui_render_device_badge(&b, s);
  else ui_render_device_panel(&b, s);
  ck_assert(!b.failed);
  char *out = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  return out;
}

#define ck_has(html, text) ck_assert_msg(strstr(html, text) != NULL, "missing \"%s\" in: %s", text, html)
#define ck_lacks(html, text) ck_assert_msg(strstr(html, text) == NULL, "unexpected \"%s\" in: %s", text, html)

START_TEST(panel_shows_live_no_driver_verdict_and_both_views) {
  cJSON *j = cJSON_Parse(NO_DRIVER);
  ui_device_state s = {.views = j};
  char *html = render(&s, false);
  ck_has(html, "no usable GPU: the CUDA driver is missing");
  ck_has(html, "The lab will simulate every experiment.");
  ck_has(html, "Because.");
  ck_has(html, "What to do:</span> Install the driver.");
  ck_has(html, "Driver view");
  ck_has(html, "Runtime view");
  ck_has(html, "No NVIDIA driver answered");
  ck_has(html, "cudaErrorInsufficientDriver");
  ck_has(html, "NVML is not installed");
  ck_has(html, "not reported"); /* driver_version is null */
  ck_has(html, "data-verdict=\"no_driver\"");
  ck_has(html, "data-action=\"recheck\"");
  ck_lacks(html, "offline");
  ck_lacks(html, " id=\""); /* drawn twice on lesson 1: no ids to collide */
  free(html);
  char line[300];
  ui_render_device_line(&s, line, sizeof line);
  ck_assert_str_eq(line, "no GPU here (the CUDA driver is missing) — everything is simulated");
  char *badge = render(&s, true);
  ck_has(badge, "live");
  ck_lacks(badge, "simulated");
  free(badge);
  cJSON_Delete(j);
}
END_TEST

START_TEST(badge_says_how_old_a_view_is_when_it_was_not_checked_just_now) {
  cJSON *j = cJSON_Parse(NO_DRIVER);
  cJSON_AddNumberToObject(j, "age_s", 4.2); /* answered at once while the server checks again */
  ui_device_state s = {.views = j};
  char *badge = render(&s, true);
  ck_has(badge, "live check, 4 s ago</span>");
  ck_has(badge, "checking again now");
  ck_lacks(badge, "&lt;"); /* the tag that closes the badge is markup, not text shown in it */
  ck_assert_msg(test_ui_markup_problem(badge) == NULL, "%s", test_ui_markup_problem(badge));
  free(badge);
  cJSON_AddTrueToObject(j, "stale"); /* the check in flight hung: the last view */
  badge = render(&s, true);
  ck_has(badge, "last check, 4 s ago</span>");
  ck_lacks(badge, "&lt;");
  ck_has(badge, "has not answered yet");
  ck_lacks(badge, "just read");
  free(badge);
  cJSON_Delete(j);
}
END_TEST

START_TEST(panel_says_experiments_run_for_real_when_usable) {
  cJSON *j = cJSON_Parse(
      "{\"driver\":{\"source\":\"nvml\",\"present\":true,\"driver_version\":\"580.65\",\"cuda_version\":\"13.0\","
      "\"device_count\":1,\"devices\":[{\"index\":0,\"name\":\"NVIDIA T4\",\"memory_total_bytes\":16106127360,"
      "\"memory_free_bytes\":1,\"bus_id\":\"0000:3b:00.0\"}],\"error\":null},\"runtime\":{\"status\":\"ok\","
      "\"built_with_cuda\":true,\"runtime_version\":\"13.0\",\"driver_api_version\":\"13.0\",\"device_count\":1,"
      "\"devices\":[{\"index\":0,\"name\":\"NVIDIA T4\",\"compute_capability\":\"7.5\",\"sm_count\":40,"
      "\"memory_total_bytes\":16106127360,\"memory_free_bytes\":15569256448}]},\"verdict\":{\"code\":\"usable\","
      "\"usable\":true,\"simulate\":false,\"summary\":\"GPU usable: NVIDIA T4\"}}");
  ui_device_state s = {.views = j};
  char *html = render(&s, false);
  ck_has(html, "verdict-ok");
  ck_has(html, "Experiments run on this GPU for real.");
  ck_has(html, "compute capability 7.5");
  ck_has(html, "40 SMs");
  ck_has(html, "16.1 GB memory (15.6 GB free)");
  ck_has(html, "bus 0000:3b:00.0");
  ck_has(html, "The CUDA runtime is ready");
  free(html);
  cJSON_Delete(j);
}
END_TEST

START_TEST(panel_labels_simulated_views_and_hides_their_advice) {
  cJSON *env = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("device"), NULL, "h100-sxm", &env, &err), 0);
  cJSON *details = cJSON_GetObjectItemCaseSensitive(env, "details");
  ui_device_state s = {.views = cJSON_GetObjectItemCaseSensitive(details, "views"),
                       .findings = cJSON_GetObjectItemCaseSensitive(env, "findings"),
                       .simulated = true,
                       .offline = true,
                       .profile_label = "H100 SXM"};
  char *html = render(&s, false);
  ck_has(html, "offline — everything will be simulated");
  ck_has(html, "Simulated example: </span>what a machine with NVIDIA H100 80GB HBM3 and a working driver would show");
  ck_has(html, "No real GPU was asked.");
  ck_has(html, "What the simulated check found");
  ck_has(html, "an example from a simulated device profile");
  /* an example, never a pass: no green chip, no "answered"/"ready", no made-up bus id */
  ck_lacks(html, "chip-ok");
  ck_lacks(html, "verdict-ok");
  ck_lacks(html, "answered");
  ck_lacks(html, "is ready");
  ck_lacks(html, "GPU usable");
  ck_lacks(html, "bus ");
  ck_has(html, "Driver view (example)");
  ck_has(html, "chip-example");
  /* and how to run the real check */
  ck_has(html, "<code>nvidia-smi</code>");
  ck_has(html, "import torch; print(torch.cuda.is_available())");
  ck_has(html, "<code>gpulab device</code>");
  char line[300];
  ui_render_device_line(&s, line, sizeof line);
  ck_assert_str_eq(line, "offline — everything is simulated in your browser");
  ck_lacks(html, "Nothing to fix"); /* the modelled machine's advice */
  free(html);
  char *badge = render(&s, true);
  ck_has(badge, "simulated (profile: H100 SXM)");
  free(badge);
  cJSON_Delete(env);
}
END_TEST

/* A server that took the connection and never answered is not "offline":
 * the panel and the line say it did not answer, and in how long. */
START_TEST(panel_says_the_server_did_not_answer_in_time) {
  cJSON *env = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("device"), NULL, "h100-sxm", &env, &err), 0);
  cJSON *details = cJSON_GetObjectItemCaseSensitive(env, "details");
  ui_device_state s = {.views = cJSON_GetObjectItemCaseSensitive(details, "views"),
                       .findings = cJSON_GetObjectItemCaseSensitive(env, "findings"),
                       .simulated = true,
                       .offline = true,
                       .timed_out_s = 5,
                       .profile_label = "H100 SXM"};
  char *html = render(&s, false);
  ck_has(html, "The server did not answer in 5 s; running the simulation in your browser instead.");
  ck_has(html, "what a machine with the H100 SXM would report");
  ck_has(html, "Check again");
  ck_lacks(html, "offline — everything will be simulated");
  ck_assert_ptr_null(test_ui_markup_problem(html));
  char line[300];
  ui_render_device_line(&s, line, sizeof line);
  ck_assert_str_eq(line, "the server did not answer in 5 s — everything is simulated in your browser");
  free(html);
  cJSON_Delete(env);
}
END_TEST

START_TEST(panel_escapes_text_from_the_server) {
  cJSON *j = cJSON_Parse(NO_DRIVER);
  cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
  cJSON_ReplaceItemInObjectCaseSensitive(v, "summary", cJSON_CreateString("<img src=x onerror=alert(1)>"));
  ui_device_state s = {.views = j, .note = "it said <b>no</b>"};
  char *html = render(&s, false);
  ck_lacks(html, "<img");
  ck_lacks(html, "<b>no");
  ck_has(html, "&lt;img src=x onerror=alert(1)&gt;");
  ck_has(html, "it said &lt;b&gt;no&lt;/b&gt;");
  free(html);
  cJSON_Delete(j);
}
END_TEST

START_TEST(panel_survives_json_of_the_wrong_shape) {
  static const char *const shapes[] = {"{}", "{\"verdict\":\"usable\",\"driver\":[],\"runtime\":7}",
                                       "{\"verdict\":{\"usable\":\"yes\",\"summary\":5},\"driver\":{\"devices\":{}},"
                                       "\"runtime\":{\"devices\":[1,null,{\"name\":3,\"sm_count\":\"x\"}]}}",
                                       "[]"};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    cJSON *j = cJSON_Parse(shapes[i]);
    ui_device_state s = {.views = j};
    char *html = render(&s, false);
    ck_has(html, "The server did not say whether the GPU is usable.");
    ck_has(html, "Driver view");
    free(html);
    cJSON_Delete(j);
  }
}
END_TEST

START_TEST(panel_says_it_is_checking_before_an_answer) {
  ui_device_state s = {0};
  char *html = render(&s, false);
  ck_has(html, "Asking the gpulab server");
  free(html);
  char *badge = render(&s, true);
  ck_has(badge, "checking");
  free(badge);
}
END_TEST

START_TEST(profile_short_label_drops_vendor_and_details) {
  char out[48];
  ck_assert_str_eq(ui_profile_short_label("NVIDIA H100 SXM (80 GB HBM3, PCIe Gen5)", out, sizeof out), "H100 SXM");
  ck_assert_str_eq(ui_profile_short_label("NVIDIA GeForce RTX 4090 (24 GB)", out, sizeof out), "GeForce RTX 4090");
  ck_assert_str_eq(ui_profile_short_label("Custom GPU", out, sizeof out), "Custom GPU");
  ck_assert_str_eq(ui_profile_short_label(NULL, out, sizeof out), "");
  ck_assert_str_eq(ui_profile_short_label("NVIDIA H100 SXM", out, 5), "H100");
}
END_TEST

START_TEST(experiment_card_shows_device_verdict_and_links_to_panel) {
  cJSON *j = cJSON_Parse(NO_DRIVER);
  ui_device_state s = {.views = j};
  ui_buf b;
  ui_buf_init(&b);
  ui_render_experiment_card(&b, "device", &s);
  ck_has(ui_buf_str(&b), lab_experiment_find("device")->title);
  ck_has(ui_buf_str(&b), "no usable GPU: the CUDA driver is missing");
  ck_has(ui_buf_str(&b), "href=\"#gpu\"");
  ui_buf_free(&b);
  cJSON_Delete(j);
}
END_TEST

START_TEST(experiment_card_names_an_unknown_experiment_safely) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_experiment_card(&b, "<warp>", NULL);
  ck_has(ui_buf_str(&b), "<code>&lt;warp&gt;</code>");
  ck_has(ui_buf_str(&b), "does not have");
  ui_buf_free(&b);
}
END_TEST

Suite *make_ui_device_suite(void) {
  Suite *s = suite_create("ui_device");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, panel_shows_live_no_driver_verdict_and_both_views);
  tcase_add_test(tc, badge_says_how_old_a_view_is_when_it_was_not_checked_just_now);
  tcase_add_test(tc, panel_says_experiments_run_for_real_when_usable);
  tcase_add_test(tc, panel_labels_simulated_views_and_hides_their_advice);
  tcase_add_test(tc, panel_escapes_text_from_the_server);
  tcase_add_test(tc, panel_survives_json_of_the_wrong_shape);
  tcase_add_test(tc, panel_says_it_is_checking_before_an_answer);
  tcase_add_test(tc, profile_short_label_drops_vendor_and_details);
  tcase_add_test(tc, experiment_card_shows_device_verdict_and_links_to_panel);
  tcase_add_test(tc, experiment_card_names_an_unknown_experiment_safely);
  tcase_add_test(tc, panel_says_the_server_did_not_answer_in_time);
  suite_add_tcase(s, tc);
  return s;
}
