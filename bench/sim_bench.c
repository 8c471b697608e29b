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
 * experiment only (for a profiler). Beside them the training planner
 * (lab/plan): "plan", one plan's memory (GPT-2 124M, batch 8 x 1024 tokens,
 * on h100-sxm), and "plan_answer", the whole answer (verdict, largest
 * micro-batch, step time, levers: a dozen plans). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "clock.h"
#include "plan.h"
#include "registry.h"
#include "stats.h"

#define BATCH_MS 20.0
#define MAX_CALLS LAB_MAX_SAMPLES /* lab_summarize takes that many; a batch of the fastest experiment makes ~2,000 */

static double calls_ms[MAX_CALLS];

/* What a batch times: one call, 0 or -1 on failure (said on stderr); what
 * it answers is left in `answer` and freed after the clock stops. */
typedef int (*call_fn)(const void *ctx);
static cJSON *answer;

static int simulate(const void *ctx) {
  const lab_experiment *e = ctx;
  lab_error err;
  if (lab_simulate(e, NULL, "h100-sxm", &answer, &err) != 0) {
    fprintf(stderr, "sim_bench: %s: %s\n", e->name, err.message);
    return -1;
  }
  return 0;
}

static int plan_memory(const void *ctx) {
  lab_plan_memory m;
  lab_error err;
  if (lab_plan_memory_of(ctx, &m, &err) != 0) return fprintf(stderr, "sim_bench: plan: %s\n", err.message), -1;
  return 0;
}

static int plan_answer(const void *ctx) {
  lab_error err;
  if (!(answer = lab_plan_answer(ctx, &err))) return fprintf(stderr, "sim_bench: plan_answer: %s\n", err.message), -1;
  return 0;
}

/* The median ms of one call in a batch; -1 when a call fails. */
static double batch(call_fn fn, const void *ctx) {
  double spent = 0;
  int calls = 0;
  do {
    double t0 = lab_clock_ms();
    int rc = fn(ctx);
    double ms = lab_clock_ms() - t0;
    cJSON_Delete(answer);
    answer = NULL;
    if (rc != 0) return -1;
    spent += ms;
    calls_ms[calls++] = ms;
  } while (spent < BATCH_MS && calls < MAX_CALLS);
  lab_summary s;
  lab_summarize(calls_ms, (size_t)calls, &s);
  return s.median;
}

/* The median of `reps` batches after a warm-up batch; -1 on failure. */
static double timed(call_fn fn, const void *ctx, int reps) {
  double ms[100];
  for (int r = -1; r < reps; r++) {
    double m = batch(fn, ctx);
    if (m < 0) return -1;
    if (r >= 0) ms[r] = m;
  }
  lab_summary s;
  lab_summarize(ms, (size_t)reps, &s);
  return s.median;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1 || reps > 100) {
    fprintf(stderr, "sim_bench: reps must be 1 to 100\n");
    return 2;
  }
  const char *only = argc > 2 ? argv[2] : NULL;
  int shown = 0;
  printf("{");
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    if (only && strcmp(only, e->name) != 0) continue;
    double m = timed(simulate, e, reps);
    if (m < 0) return 1;
    printf("%s\"%s\":%.4f", shown++ ? "," : "", e->name, m);
  }
  static lab_plan_settings set; /* static: a profile and a model are a few KiB */
  lab_error err;
  cJSON *req = cJSON_Parse("{\"preset\":\"gpt2-124m\",\"seq\":1024,\"batch\":8,\"profile\":\"h100-sxm\"}");
  if (!req || lab_plan_settings_from_json(req, &set, &err) != 0) return fprintf(stderr, "sim_bench: plan settings\n"), 1;
  cJSON_Delete(req);
  static const struct {
    const char *name;
    call_fn fn;
  } plans[] = {{"plan", plan_memory}, {"plan_answer", plan_answer}};
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
    if (only && strcmp(only, plans[i].name) != 0) continue;
    double m = timed(plans[i].fn, &set, reps);
    if (m < 0) return 1;
    printf("%s\"%s\":%.4f", shown++ ? "," : "", plans[i].name, m);
  }
  printf("}\n");
  return 0;
}
