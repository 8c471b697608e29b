/* The C interface of the GPU side: only C types cross it. Built from the
 * .cu files in kernels/ with nvcc, or from kernels/none.c without CUDA. */
#ifndef KERN_H
#define KERN_H

/* The lab/ headers are plain C: give them C linkage when nvcc includes them. */
#ifdef __cplusplus
extern "C" {
#endif

#include "device.h"
#include "error.h"
#include "params.h"

/* Fills the runtime view (cudaGetDeviceCount, properties, free memory).
 * Never fails: a failure is described in rt->status. */
void kern_runtime_view(lab_runtime_view *rt);

/* The child side of the timing experiment's cold start: run as
 * `gpulab-worker --cold-sgemm N K` in a fresh process; prints one JSON line
 * of times and returns the exit status (kernels/cold.cu). */
int kern_cold_sgemm_main(int n, int k);
/* Releases the device at the worker's exit (cudaDeviceReset), so leak
 * checkers see what was never freed. */
void kern_shutdown(void);

/* Every experiment whose kern column in lab/face/experiments.h is 1:
 * kernels/NAME.cu defines
 *   int kern_run_NAME(const lab_params *p, cJSON **out, lab_error *err);
 * which measures on device 0 with params already checked by
 * lab_experiment_params (the worker validates its job line once), reads
 * them through the typed struct lab_params_NAME_of(p) (lab/NAME.h: a
 * misspelt parameter does not compile), validates against the CPU reference and builds the
 * envelope (backend "cuda") with lab/NAME.c's builder. Returns 0, or -1
 * with err set; err->code LAB_E_CUDA marks a sticky error (the worker then
 * exits and is restarted), LAB_E_GPU_OOM an out-of-memory that was cleaned
 * up. `device` is answered by kern_runtime_view and the driver probe. */
typedef int (*kern_run_fn)(const lab_params *p, cJSON **out, lab_error *err);

/* The entry's head, written once: kernels/NAME.cu defines it as
 * `KERN_ENTRY(NAME) { … }` and the worker's dispatch (server/worker/jobs.c)
 * declares every one from the table. kern.h does not include the table, so
 * a new table line rebuilds the dispatch and the lists, not every .cu. */
#ifdef __cplusplus
#define KERN_LINKAGE extern "C"
#else
#define KERN_LINKAGE
#endif
#define KERN_ENTRY(name) KERN_LINKAGE int kern_run_##name(const lab_params *p, cJSON **out, lab_error *err)

#ifdef __cplusplus
}
#endif

#endif
