/* `gpulab calibrate`: measure this GPU (device, transfer, timing), fit a
 * profile to it, and check that the simulator with that profile reproduces
 * the real run within ±25 %. `--out FILE` saves the profile for
 * `gpulab serve --profile-file FILE`. */
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "cjson_compat.h"
#include "cli.h"
#include "runner.h"

static int run_real(srv_runner *r, const char *name, cJSON **out, lab_error *err) {
  return srv_run_experiment(r, name, NULL, "cuda", NULL, out, NULL, err);
}

static void print_report(const cJSON *rep) {
  const cJSON *prof = cJSON_GetObjectItemCaseSensitive(rep, "profile");
  printf("Calibrated profile for %s (started from %s)\n\n",
         cJSON_GetObjectItemCaseSensitive(prof, "device_name")->valuestring,
         cJSON_GetObjectItemCaseSensitive(rep, "base")->valuestring);
  printf("  %-10s %-22s %12s %12s %8s\n", "experiment", "metric", "real", "simulated", "error");
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rep, "checks")) {
    printf("  %-10s %-22s %12.4g %12.4g %7.1f%% %s\n",
           cJSON_GetObjectItemCaseSensitive(c, "experiment")->valuestring,
           cJSON_GetObjectItemCaseSensitive(c, "metric")->valuestring,
           cJSON_GetObjectItemCaseSensitive(c, "real")->valuedouble,
           cJSON_GetObjectItemCaseSensitive(c, "simulated")->valuedouble,
           cJSON_GetObjectItemCaseSensitive(c, "error_pct")->valuedouble,
           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok")) ? "ok" : "MISS");
  }
  printf("\n%s (tolerance ±%.0f%%)\n",
         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "ok")) ? "The simulator reproduces this GPU."
                                                                   : "The simulator misses this GPU on some figures.",
         LAB_CALIBRATE_TOLERANCE_PCT);
}

int srv_cmd_calibrate(int argc, char **argv) {
  int json = 0;
  const char *out_path = NULL;
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (srv_cli_option(argc, argv, &i, "--out", &v) && v) out_path = v;
    else return srv_cli_usage("calibrate takes --json and --out FILE");
  }
  srv_supervisor *sup = srv_supervisor_for_self();
  srv_runner r;
  if (!sup || srv_runner_init(&r, sup) != 0) {
    srv_supervisor_free(sup);
    return 1;
  }
  r.deadline_s = 300;
  lab_error err = {0};
  cJSON *transfer = NULL, *timing = NULL, *report = NULL;
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_profile prof;
  int rc = 1;
  srv_runner_views(&r, &drv, &rt);
  if (run_real(&r, "transfer", &transfer, &err) || run_real(&r, "timing", &timing, &err) ||
      lab_calibrate(transfer, timing, rt.device_count ? &rt.dev[0] : NULL, &prof, &report, &err))
    goto fail;
  if (out_path) {
    FILE *f = fopen(out_path, "w");
    char *text = cJSON_Print(cJSON_GetObjectItemCaseSensitive(report, "profile"));
    int written = f && text && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) written = 0;
    cJSON_free(text);
    if (!written) {
      lab_fail(&err, LAB_E_INTERNAL, "out", "cannot write the profile to %.200s", out_path);
      goto fail;
    }
  }
  if (json) {
    char *text = cJSON_Print(report);
    if (text) puts(text);
    cJSON_free(text);
  } else {
    print_report(report);
    if (out_path) printf("Saved to %s: serve it with 'gpulab serve --profile-file %s'.\n", out_path, out_path);
  }
  rc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(report, "ok")) ? 0 : 1;
  goto done;
fail:
  if (json) {
    cJSON *e = lab_error_json(&err);
    char *text = cJSON_Print(e);
    if (text) puts(text);
    cJSON_free(text);
    cJSON_Delete(e);
  } else {
    fprintf(stderr, "gpulab: calibrate: %s [%s]\n", err.message, lab_err_code(err.code));
  }
done:
  cJSON_Delete(transfer);
  cJSON_Delete(timing);
  cJSON_Delete(report);
  srv_runner_free(&r);
  srv_supervisor_free(sup);
  return rc;
}
