/* `gpulab run`, `gpulab experiments` and `gpulab profiles`: the same
 * experiments as the API, for SSH sessions, schedulers, tests and benches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "cli.h"
#include "registry.h"
#include "runner.h"
#include "trace_export.h"

static int print_json(const cJSON *o) {
  char *text = cJSON_Print(o);
  if (!text) return 1;
  puts(text);
  cJSON_free(text);
  return 0;
}

/* A whole number as one (268435456 bytes, not 2.68435e+08); else 6 digits. */
static const char *num_text(double v, char buf[32]) {
  if (v == floor(v) && fabs(v) < 1e15) snprintf(buf, 32, "%.0f", v);
  else snprintf(buf, 32, "%.6g", v);
  return buf;
}

/* --trace FILE: the run's timeline as a Chrome trace (docs/trace.md); "-" is stdout. */
static int write_trace(const cJSON *env, const char *path, lab_error *err) {
  char date[32];
  time_t now = time(NULL);
  struct tm tm;
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  cJSON *trace = lab_trace_from_envelope(env, GPULAB_VERSION, date, err);
  char *text = trace ? cJSON_PrintUnformatted(trace) : NULL;
  cJSON_Delete(trace);
  if (!text) return trace ? lab_fail(err, LAB_E_NOMEM, NULL, NULL) : -1;
  int to_stdout = !strcmp(path, "-");
  FILE *f = to_stdout ? stdout : fopen(path, "w");
  int bad = !f || fputs(text, f) < 0 || fputc('\n', f) < 0;
  if (f && !to_stdout && fclose(f) != 0) bad = 1;
  cJSON_free(text);
  if (bad) return lab_fail(err, LAB_E_USAGE, "trace", "cannot write the trace to '%.200s'", path);
  return 0;
}

static void print_result(const cJSON *env) {
  char a[32], b[32];
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(env, "device");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(dev, "name");
  const cJSON *prof = cJSON_GetObjectItemCaseSensitive(dev, "profile");
  const char *backend = cJSON_GetObjectItemCaseSensitive(env, "backend")->valuestring;
  printf("%s — %s", cJSON_GetObjectItemCaseSensitive(env, "experiment")->valuestring,
         !strcmp(backend, "cuda") ? "live on " : !strcmp(backend, "simulated") ? "simulated: " : "recorded on ");
  printf("%s", cJSON_IsString(name) ? name->valuestring : "no device");
  if (cJSON_IsString(prof)) printf(" (profile %s)", prof->valuestring);
  printf("\n\nMetrics\n");
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(env, "metrics")) printf("  %-32s %s\n", m->string,
                                                                                   num_text(m->valuedouble, a));
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    printf("\nSeries %s (%s vs %s)\n", cJSON_GetObjectItemCaseSensitive(s, "label")->valuestring,
           cJSON_GetObjectItemCaseSensitive(s, "y_unit")->valuestring,
           cJSON_GetObjectItemCaseSensitive(s, "x_unit")->valuestring);
    const cJSON *pt;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(s, "points")) printf(
        "  %14s  %s\n", num_text(pt->child->valuedouble, a), num_text(pt->child->next->valuedouble, b));
  }
  printf("\nFindings\n");
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) printf("  - %s\n", f->valuestring);
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "stats"), "method");
  if (cJSON_IsString(method)) printf("\nMethod: %s\n", method->valuestring);
}

int srv_cmd_run(int argc, char **argv) {
  if (argc < 1 || argv[0][0] == '-') return srv_cli_usage("run needs an experiment name: gpulab run NAME");
  const lab_experiment *e = lab_experiment_find(argv[0]);
  int json = 0;
  const char *backend = "auto", *profile = NULL, *trace_path = NULL;
  lab_error err = {0};
  cJSON *result = NULL;
  lab_params p;
  int rc = 1;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--json")) json = 1; /* known before any error, so errors print as JSON too */
  if (!e) {
    lab_fail(&err, LAB_E_UNKNOWN_EXPERIMENT, "experiment", "no experiment named '%.40s'; 'gpulab experiments' lists them",
             argv[0]);
    goto fail;
  }
  lab_params_init(&p, e->params, e->n_params);
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], "--json")) {
      json = 1;
      continue;
    }
    if (srv_cli_option(argc, argv, &i, "--trace", &v)) {
      if (!v || !*v) {
        lab_fail(&err, LAB_E_USAGE, "trace", "--trace needs a file name (or - for stdout)");
        goto fail;
      }
      trace_path = v;
      continue;
    }
    if (srv_cli_option(argc, argv, &i, "--backend", &v) || srv_cli_option(argc, argv, &i, "--profile", &v)) {
      if (!v) {
        lab_fail(&err, LAB_E_USAGE, NULL, "%s needs a value", argv[i]);
        goto fail;
      }
      if (strstr(argv[i], "--backend") == argv[i] || (i > 0 && !strcmp(argv[i - 1], "--backend"))) backend = v;
      else profile = v;
      continue;
    }
    if (strncmp(argv[i], "--", 2) != 0) {
      lab_fail(&err, LAB_E_USAGE, NULL, "unexpected argument '%.40s'; parameters look like --size=2048", argv[i]);
      goto fail;
    }
    char name[64];
    const char *eq = strchr(argv[i] + 2, '=');
    size_t n = eq ? (size_t)(eq - argv[i] - 2) : strlen(argv[i] + 2);
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), argv[i] + 2);
    if (eq) v = eq + 1;
    else if (i + 1 < argc) v = argv[++i];
    if (!v) {
      lab_fail(&err, LAB_E_USAGE, name, "--%s needs a value", name);
      goto fail;
    }
    if (lab_params_set_text(&p, name, v, &err)) goto fail;
  }
  /* The flags' text was checked value by value; the cross-parameter check
   * completes the one validation, and the run takes p as it is. */
  if (lab_experiment_check(e, &p, &err)) goto fail;
  srv_supervisor *sup = srv_supervisor_for_self();
  srv_runner r;
  if (!sup || srv_runner_init(&r, sup) != 0) {
    srv_supervisor_free(sup);
    lab_fail(&err, LAB_E_NOMEM, NULL, NULL);
    goto fail;
  }
  r.deadline_s = 300; /* a person at a terminal can wait longer than a browser */
  int failed = srv_run_checked(&r, e, &p, backend, profile, &result, NULL, &err);
  srv_runner_free(&r);
  srv_supervisor_free(sup);
  if (failed) goto fail;
  if (trace_path && write_trace(result, trace_path, &err)) goto fail;
  if (trace_path && !strcmp(trace_path, "-")) {
    rc = 0;
    goto done;
  }
  rc = json ? print_json(result) : (print_result(result), 0);
  goto done;
fail:
  if (json) {
    cJSON *o = lab_error_json(&err);
    print_json(o);
    cJSON_Delete(o);
  } else {
    fprintf(stderr, "gpulab: %s [%s]\n", err.message, lab_err_code(err.code));
  }
  rc = err.code == LAB_E_USAGE ? 2 : 1;
done:
  cJSON_Delete(result);
  return rc;
}

int srv_cmd_experiments(int argc, char **argv) {
  bool names = argc == 1 && strcmp(argv[0], "--names") == 0, live = argc == 1 && strcmp(argv[0], "--live") == 0;
  if (argc > 1 || (argc == 1 && strcmp(argv[0], "--json") && !names && !live))
    return srv_cli_usage("experiments takes only --json, --names or --live");
  if (names || live) { /* one a line, for scripts; --live: those a GPU answers (not multi_gpu, simulated only) */
    for (int i = 0; i < lab_experiment_count(); i++) {
      const lab_experiment *e = lab_experiment_at(i);
      if (!live || lab_experiment_has_kernel(e) || lab_experiment_is_device_check(e)) printf("%s\n", e->name);
    }
    return 0;
  }
  if (argc == 1) {
    cJSON *o = lab_registry_json();
    int rc = print_json(o);
    cJSON_Delete(o);
    return rc;
  }
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    printf("%s — %s\n  %s\n", e->name, e->title, e->summary);
    for (int k = 0; k < e->n_params; k++) {
      const lab_param_spec *s = &e->params[k];
      printf("  --%s", s->name);
      if (s->type == LAB_P_INT || s->type == LAB_P_NUM) {
        /* as the parameter reads: --max_bytes=268435456, not 2.68435e+08 */
        char def[48], lo[48], hi[48];
        lab_param_value_text(def, sizeof def, s, s->def);
        lab_param_value_text(lo, sizeof lo, s, s->min);
        lab_param_value_text(hi, sizeof hi, s, s->max);
        printf("=%s (%s to %s%s%s)", def, lo, hi, s->unit ? " " : "", s->unit ? s->unit : "");
      }
      else if (s->type == LAB_P_BOOL) printf("=%s (true/false)", s->def ? "true" : "false");
      else printf("=%s", s->choices[(int)s->def]);
      printf("  %s\n", s->help);
    }
  }
  return 0;
}

int srv_cmd_profiles(int argc, char **argv) {
  if (argc > 1 || (argc == 1 && strcmp(argv[0], "--json")))
    return srv_cli_usage("profiles takes only --json");
  if (argc == 1) {
    cJSON *o = lab_profiles_json();
    int rc = print_json(o);
    cJSON_Delete(o);
    return rc;
  }
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    printf("%-10s %s\n           %d SMs, %.0f GB, pinned H2D %.0f GB/s, launch %.1f us, FP32 %.1f TFLOPS\n", p->name,
           p->label, p->sm_count, (double)p->memory_bytes / 1e9, p->h2d_pinned_gbps, p->launch_us, p->fp32_tflops);
  }
  return 0;
}
