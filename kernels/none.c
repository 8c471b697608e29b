/* The GPU side of a build without nvcc: every entry says "not built", so the
 * server and CLI run in CPU mode and the verdict tells the learner why. */
#include <stdio.h>
#include <string.h>

#include "experiments.h"
#include "kern.h"

void kern_runtime_view(lab_runtime_view *rt) { lab_runtime_view_not_built(rt); }

int kern_cold_sgemm_main(int n, int k) {
  (void)n, (void)k;
  fprintf(stderr, "gpulab-worker: built without CUDA: there is no cold start to measure\n");
  return 2;
}

void kern_shutdown(void) {}

#define LAB_KERN_THEN(name) KERN_ENTRY(name);
LAB_EXPERIMENTS(LAB_IF_KERN)
#undef LAB_KERN_THEN

#define LAB_KERN_THEN(name)                                                                     \
  KERN_ENTRY(name) {                                                                          \
    (void)p;                                                                                  \
    *out = NULL;                                                                              \
    return lab_fail(err, LAB_E_NO_GPU, NULL, "gpulab was built without CUDA, so " #name       \
                    " cannot run on a GPU; use backend \"simulated\" or rebuild with nvcc"); \
  }
LAB_EXPERIMENTS(LAB_IF_KERN)
#undef LAB_KERN_THEN
