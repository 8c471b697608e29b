/* gpulab-worker: the process that owns the GPU. Started and supervised by
 * `gpulab` (server and CLI); it is the only binary linked with CUDA and
 * cuBLAS, whose thread-local storage would not fit CivetWeb's small thread
 * stacks. Reads one JSON job per line on stdin. */
#include "jobs.h"

int main(void) { return srv_worker_main(); }
