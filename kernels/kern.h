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

/* Every experiment with a GPU side: kernels/NAME.cu defines
 *   int kern_run_NAME(const lab_params *p, cJSON **out, lab_error *err);
 * which measures on device 0, validates against the CPU reference and builds
 * the envelope (backend "cuda") with lab/NAME.c's builder. Returns 0, or -1
 * with err set; err->code LAB_E_CUDA marks a sticky error (the worker then
 * exits and is restarted), LAB_E_GPU_OOM an out-of-memory that was cleaned up.
 * `device` is answered by kern_runtime_view and the driver probe instead. */
#define KERN_EXPERIMENTS(X) \
  X(transfer)               \
  X(timing)                 \
  X(crossover)              \
  X(placement)              \
  X(memory)                 \
  X(train_step)             \
  X(precision)              \
  X(allocator)              \
  X(graphs)                 \
  X(profile)                \
  X(streams)

#define KERN_X_DECL(name) int kern_run_##name(const lab_params *p, cJSON **out, lab_error *err);
KERN_EXPERIMENTS(KERN_X_DECL)
#undef KERN_X_DECL

#ifdef __cplusplus
}
#endif

#endif
