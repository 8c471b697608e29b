/* The experiment registry, generated from the one table in experiments.h:
 * each experiment's descriptor (name, texts, parameter spec, cross-parameter
 * check, GPU memory estimate, simulator, lesson), the one validation path
 * every caller shares, and the JSON that `GET /api/experiments` and
 * `gpulab experiments` print. */
#ifndef LAB_REGISTRY_H
#define LAB_REGISTRY_H

#include <stdbool.h>

#include "params.h"
#include "profiles.h"

/* The page's UI module is built without the simulators, which run in the
 * simulation module (a Web Worker, wasm/sim/): there LAB_NO_SIMULATORS makes
 * every descriptor's simulate NULL, so the linker leaves them out. */
#ifdef LAB_NO_SIMULATORS
#define LAB_SIMULATOR(fn) NULL
#else
#define LAB_SIMULATOR(fn) (fn)
#endif

typedef struct lab_experiment {
  const char *name;    /* "transfer": its stem */
  const char *title;   /* "Host-device copies" */
  const char *summary; /* one sentence on what it shows */
  const char *lesson;  /* the lesson that embeds it: "01-cuda-intuition" */
  const lab_param_spec *params;
  int n_params;
  /* What the bounds alone cannot say (e.g. size³ × repeats under a limit);
   * NULL when every in-bounds combination is fine. Returns 0, or -1 with
   * err naming the parameter to change. */
  int (*check)(const lab_params *p, lab_error *err);
  /* Device bytes one run with these (checked) params allocates, from the
   * kernels' own allocations; *param names the parameter that sets most of
   * it. Required of every experiment with a GPU side (a unit test walks the
   * table): class mode refuses runs above its memory limit with it. */
  double (*gpu_bytes)(const lab_params *p, const char **param);
  /* Builds the envelope from the model of `prof`. Returns 0, or -1 with
   * err set. */
  int (*simulate)(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err);
} lab_experiment;

int lab_experiment_count(void);
const lab_experiment *lab_experiment_at(int i);
const lab_experiment *lab_experiment_find(const char *name); /* NULL when unknown */
/* kernels/NAME.cu measures it on a GPU (the table's kern column). */
bool lab_experiment_has_kernel(const lab_experiment *e);
cJSON *lab_experiment_json(const lab_experiment *e);
cJSON *lab_registry_json(void); /* {"experiments":[…]} */

/* The one validation path: types and bounds of every parameter (NULL params
 * = all defaults), then the experiment's cross-parameter check. Plain mode,
 * class mode (before anything is queued, charged or stored), the worker,
 * the CLI and the browser all call it. Returns 0, or -1 with err set. */
int lab_experiment_params(const lab_experiment *e, const cJSON *params, lab_params *p, lab_error *err);
/* The GPU memory estimate of e for checked params p; 0 (and *param NULL)
 * for an experiment without one. */
double lab_experiment_gpu_bytes(const lab_experiment *e, const lab_params *p, const char **param);

/* The CPU cost of simulating one run, estimated from its checked params
 * before it runs (as gpu_bytes estimates GPU memory): milliseconds of CPU
 * time, every thread counted, on the reference machine its file's comment
 * names; *param names the parameter that sets most of it. Each experiment
 * defines lab_cpu_ms_STEM in lab/STEM.c (its head: LAB_CPU_MS(STEM), declared
 * just before the definition) and the registry's table takes it
 * from the experiments.h line, so a missing one fails the build (an
 * undefined reference), not a test. `bench/cpu_cost` prints every
 * estimate beside a measurement; servers refuse a simulation above their
 * CPU budget with it (server/gpu/sim_gate.h). */
#define LAB_CPU_MS(stem) double lab_cpu_ms_##stem(const lab_params *p, const char **param)
double lab_experiment_cpu_ms(const lab_experiment *e, const lab_params *p, const char **param);

/* e's cross-parameter check alone, for params built another way (the CLI
 * sets them from text). Returns 0, or -1 with err set. */
int lab_experiment_check(const lab_experiment *e, const lab_params *p, lab_error *err);

/* Runs e's simulator on params p that lab_experiment_params already checked
 * for e (nothing is parsed again: the server validates once and passes p
 * on) with the named profile (NULL = default). p of another experiment is
 * an internal error. */
int lab_simulate_checked(const lab_experiment *e, const lab_params *p, const char *profile, cJSON **out,
                         lab_error *err);
/* The same with a profile in hand. */
int lab_simulate_checked_with(const lab_experiment *e, const lab_params *p, const lab_profile *prof, cJSON **out,
                              lab_error *err);

/* Validates params for e and runs its simulator with the named profile
 * (NULL = default): lab_experiment_params, then lab_simulate_checked. */
int lab_simulate(const lab_experiment *e, const cJSON *params, const char *profile, cJSON **out, lab_error *err);
/* The same with a profile in hand (a calibrated one, say). */
int lab_simulate_with(const lab_experiment *e, const cJSON *params, const lab_profile *prof, cJSON **out,
                      lab_error *err);

#endif
