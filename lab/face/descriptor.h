/* What an experiment is to the registry: its descriptor (lab_experiment:
 * name, texts, parameter spec, cross-parameter check, GPU memory estimate,
 * simulator) and the head of its CPU cost estimate. Each experiment's file
 * defines its descriptor against this header; the registry (registry.h)
 * lists them all, so the experiments include this and not the registry. */
#ifndef LAB_DESCRIPTOR_H
#define LAB_DESCRIPTOR_H

#include "cjson_compat.h"
#include "error.h"
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

/* The CPU cost of simulating one run, estimated from its checked params
 * before it runs (as gpu_bytes estimates GPU memory): milliseconds of CPU
 * time, every thread counted, on the reference machine its file's comment
 * names; *param names the parameter that sets most of it. Each experiment
 * defines lab_cpu_ms_STEM in lab/experiments/STEM.c (its head: LAB_CPU_MS(STEM), declared
 * just before the definition) and the registry's table takes it
 * from the experiments.h line, so a missing one fails the build (an
 * undefined reference), not a test. `bench/cpu_cost` prints every
 * estimate beside a measurement; servers refuse a simulation above their
 * CPU budget with it (server/gpu/sim_gate.h). */
#define LAB_CPU_MS(stem) double lab_cpu_ms_##stem(const lab_params *p, const char **param)

#endif
