/* Simulator speed, the same C compiled natively and to WebAssembly: each
 * experiment's simulation (crossover's real CPU matmuls included) run
 * `reps` times after one warm-up; prints the median ms per run as JSON so
 * bench/run.sh can set wasm beside native. `sim_bench REPS NAME` runs one
 * experiment only (for a profiler). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "clock.h"
#include "registry.h"
#include "stats.h"

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1 || reps > 100) {
    fprintf(stderr, "sim_bench: reps must be 1 to 100\n");
    return 2;
  }
  const char *only = argc > 2 ? argv[2] : NULL;
  printf("{");
  for (int i = 0, shown = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    double ms[100];
    if (only && strcmp(only, e->name) != 0) continue;
    lab_error err;
    for (int r = -1; r < reps; r++) {
      cJSON *out = NULL;
      double t0 = lab_clock_ms();
      if (lab_simulate(e, NULL, "h100-sxm", &out, &err) != 0) {
        fprintf(stderr, "sim_bench: %s: %s\n", e->name, err.message);
        return 1;
      }
      double t1 = lab_clock_ms();
      cJSON_Delete(out);
      if (r >= 0) ms[r] = t1 - t0;
    }
    lab_summary s;
    lab_summarize(ms, (size_t)reps, &s);
    printf("%s\"%s\":%.4f", shown++ ? "," : "", e->name, s.median);
  }
  printf("}\n");
  return 0;
}
