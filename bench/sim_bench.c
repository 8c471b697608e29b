/* Simulator speed, the same C compiled natively and to WebAssembly: each
 * experiment's simulation (crossover's real CPU matmuls included) timed in
 * `reps` batches after a warm-up batch; prints the median ms per
 * simulation as JSON so bench/run.sh can set wasm beside native. A batch
 * repeats the simulation until it has spent BATCH_MS in it (at least once)
 * and keeps the median of its calls: one `graphs` run is ~50 µs, and a
 * wasm engine tiers a function up only after it has run a while; the
 * median of single calls also holds on a loaded machine, where a batch's
 * total would count the other processes' time slices. Only the simulation
 * is timed, not freeing its result. `sim_bench REPS NAME` runs one
 * experiment only (for a profiler). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "clock.h"
#include "registry.h"
#include "stats.h"

#define BATCH_MS 20.0
#define MAX_CALLS LAB_MAX_SAMPLES /* lab_summarize takes that many; a batch of the fastest experiment makes ~2,000 */

static double calls_ms[MAX_CALLS];

/* The median ms of one call in a batch; -1 when a simulation fails. */
static double batch(const lab_experiment *e) {
  double spent = 0;
  int calls = 0;
  lab_error err;
  do {
    cJSON *out = NULL;
    double t0 = lab_clock_ms();
    if (lab_simulate(e, NULL, "h100-sxm", &out, &err) != 0) {
      fprintf(stderr, "sim_bench: %s: %s\n", e->name, err.message);
      return -1;
    }
    double ms = lab_clock_ms() - t0;
    spent += ms;
    calls_ms[calls++] = ms;
    cJSON_Delete(out);
  } while (spent < BATCH_MS && calls < MAX_CALLS);
  lab_summary s;
  lab_summarize(calls_ms, (size_t)calls, &s);
  return s.median;
}

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
    for (int r = -1; r < reps; r++) {
      double m = batch(e);
      if (m < 0) return 1;
      if (r >= 0) ms[r] = m;
    }
    lab_summary s;
    lab_summarize(ms, (size_t)reps, &s);
    printf("%s\"%s\":%.4f", shown++ ? "," : "", e->name, s.median);
  }
  printf("}\n");
  return 0;
}
