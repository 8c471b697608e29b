/* Calibrates the CPU cost estimates (lab_experiment_cpu_ms): simulates
 * every experiment at its defaults, at each size parameter's maximum, at
 * all of them at once (when its check allows) and at points named in
 * extra[] below, timing the process's CPU (CLOCK_PROCESS_CPUTIME_ID: every
 * thread, OpenBLAS's too) around each run and the 300 ms after it (OpenBLAS's
 * threads spin a while after a call: that belongs to the run, not the
 * next), the most of up to 3 runs. Prints
 * estimate, measured and their ratio; estimates should sit at 1-2x
 * measured where a run takes more than the 1 ms floor. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "registry.h"

static double process_cpu_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Points where the models' terms are large, beyond one-parameter maxima. */
static const char *const extra[][2] = {
    {"train_step", "{\"batch\":8192,\"features\":2048,\"classes\":256,\"steps\":100}"},
    {"train_step", "{\"batch\":8192,\"features\":512,\"classes\":64,\"steps\":1000}"},
    {"train_step", "{\"batch\":64,\"features\":2048,\"classes\":256,\"steps\":300}"},
    {"crossover", "{\"max_size\":1024,\"samples\":5}"},
    {"crossover", "{\"max_size\":1024,\"samples\":15}"},
    {"crossover", "{\"max_size\":256,\"samples\":1}"},
    {"precision", "{\"max_size\":8192,\"train_steps\":1000,\"samples\":30}"},
    {"graphs", "{\"kernels\":10000,\"samples\":30,\"sweep\":false}"},
};

static double worst = 0, best = 1e9;

static void point(const lab_experiment *e, const char *label, const cJSON *params) {
  lab_params p;
  lab_error err;
  if (lab_experiment_params(e, params, &p, &err) != 0) return; /* its check refuses this corner */
  const char *param = NULL;
  double est = lab_experiment_cpu_ms(e, &p, &param), ms = 0;
  for (int r = 0; r < 3 && (r == 0 || ms < 1000); r++) {
    cJSON *out = NULL;
    double t0 = process_cpu_ms();
    int rc = lab_simulate(e, params, NULL, &out, &err);
    usleep(300 * 1000);
    double used = process_cpu_ms() - t0;
    cJSON_Delete(out);
    if (rc != 0) {
      printf("%-11s %-58s failed: %s\n", e->name, label, err.message);
      return;
    }
    if (used > ms) ms = used;
  }
  double ratio = ms > 0 ? est / ms : 0;
  printf("%-11s %-58s %10.1f %10.1f %7.2f %s\n", e->name, label, est, ms, ratio, param);
  if (ms >= 5) { /* below that the 1 ms floor is most of the estimate */
    if (ratio > worst) worst = ratio;
    if (ratio < best) best = ratio;
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  printf("%-11s %-58s %10s %10s %7s %s\n", "experiment", "params", "est_ms", "cpu_ms", "est/cpu", "param");
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    if (only && strcmp(only, e->name) != 0) continue;
    point(e, "{}", NULL);
    cJSON *all = cJSON_CreateObject();
    int sizes = 0;
    for (int k = 0; k < e->n_params; k++) {
      const lab_param_spec *s = &e->params[k];
      if (s->type != LAB_P_INT && s->type != LAB_P_NUM) continue;
      sizes++;
      cJSON *one = cJSON_CreateObject();
      cJSON_AddNumberToObject(one, s->name, s->max);
      cJSON_AddNumberToObject(all, s->name, s->max);
      char *text = cJSON_PrintUnformatted(one);
      point(e, text, one);
      cJSON_free(text);
      cJSON_Delete(one);
    }
    char *text = cJSON_PrintUnformatted(all);
    if (sizes > 1) point(e, text, all);
    cJSON_free(text);
    cJSON_Delete(all);
    for (size_t x = 0; x < sizeof extra / sizeof extra[0]; x++) {
      if (strcmp(extra[x][0], e->name) != 0) continue;
      cJSON *p = cJSON_Parse(extra[x][1]);
      point(e, extra[x][1], p);
      cJSON_Delete(p);
    }
  }
  printf("est/cpu over the runs of 5 ms or more: %.2f to %.2f\n", best, worst);
  return 0;
}
