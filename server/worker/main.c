/* gpulab-worker: the process that owns the GPU. Started and supervised by
 * `gpulab` (server and CLI); it is the only binary linked with CUDA and
 * cuBLAS, whose thread-local storage would not fit CivetWeb's small thread
 * stacks. Reads one JSON job per line on stdin; at the end it resets the
 * device, so a leak checker sees what was not freed. Started as
 * `gpulab-worker --cold-sgemm N K` it measures a cold start instead
 * (kernels/cold.cu: the timing experiment runs it in a fresh process). */
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "kern.h"

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--cold-sgemm") == 0) {
    int n = atoi(argv[2]), k = atoi(argv[3]);
    if (n < 1 || n > 8192 || k < 1 || k > 100) return 2; /* the timing experiment's own bounds */
    return kern_cold_sgemm_main(n, k);
  }
  int status = srv_worker_main();
  kern_shutdown();
  return status;
}
