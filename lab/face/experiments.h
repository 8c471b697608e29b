/* Every experiment, named once. Everything else about an experiment lives in
 * files named after its stem: lab/experiments/STEM.c (its descriptor lab_exp_STEM:
 * parameters, cross-parameter check, GPU memory estimate, simulator,
 * lesson; and lab_cpu_ms_STEM, its simulation's CPU estimate),
 * kernels/STEM.cu (kern_run_STEM), the client's renderer
 * (ui_result_STEM), tests/unit/check_STEM.c (make_STEM_suite) and
 * tests/gpu/check_STEM.py. The registry, the worker's dispatch, the
 * client's result dispatch and the unit-test suite list are generated from
 * this list, so adding an experiment is its stem files, one line here and
 * its name in the README's list (docs/adding-an-experiment.md).
 *
 * X(stem, gpu, cpu, needs), where gpu says what answers it on a GPU: kern
 * when kernels/STEM.cu measures it, check when the device check does
 * (device: the driver probe and the worker's runtime view, so it runs
 * wherever the server is, with a usable GPU or not); cpu is 1 when a run
 * in the browser also gets the server's CPU line (crossover: the server's
 * BLAS sgemm beside the browser's one WebAssembly thread); needs is what
 * its point needs of a device beyond a GPU (lab_need, device_profile.h):
 * any, nvidia (NVIDIA's driver and CUDA runtime), link (a host link:
 * copies, pinned vs pageable), graphs, or link_streams; on a profile whose
 * platform lacks it (lab/sim/platform.h: an Apple GPU has no host link)
 * the experiment answers not_applicable instead of a simulation. Code
 * reads the columns through the registry (lab_experiment_has_kernel,
 * _is_device_check, _server_cpu, _applies), never by an experiment's name.
 * The order is the order learners see. */
#ifndef LAB_EXPERIMENTS_H
#define LAB_EXPERIMENTS_H

#define LAB_EXPERIMENTS(X) \
  X(device, check, 0, nvidia)       \
  X(placement, kern, 0, any)        \
  X(memory, kern, 0, any)           \
  X(train_step, kern, 0, any)       \
  X(transfer, kern, 0, link)        \
  X(timing, kern, 0, any)           \
  X(crossover, kern, 1, any)        \
  X(precision, kern, 0, any)        \
  X(allocator, kern, 0, any)        \
  X(graphs, kern, 0, graphs)        \
  X(profile, kern, 0, any)          \
  X(streams, kern, 0, link_streams)

/* Expands `then(stem)` only for the entries whose gpu column is kern:
 * LAB_EXPERIMENTS(LAB_IF_KERN) with LAB_KERN_THEN defined first. */
#define LAB_GPU_kern(stem) LAB_KERN_THEN(stem)
#define LAB_GPU_check(stem)
#define LAB_IF_KERN(stem, gpu, cpu, needs) LAB_GPU_##gpu(stem)
/* 1 for the gpu column's value kern, 0 for check. */
#define LAB_GPU_IS_KERN_kern 1
#define LAB_GPU_IS_KERN_check 0
/* The needs column's values as lab_need bits (device_profile.h). */
#define LAB_NEEDS_any 0u
#define LAB_NEEDS_nvidia ((unsigned)LAB_NEED_NVIDIA)
#define LAB_NEEDS_link ((unsigned)LAB_NEED_HOST_LINK)
#define LAB_NEEDS_graphs ((unsigned)LAB_NEED_GRAPHS)
#define LAB_NEEDS_link_streams ((unsigned)(LAB_NEED_HOST_LINK | LAB_NEED_STREAMS))

#endif
