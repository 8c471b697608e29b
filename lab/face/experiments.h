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
 * X(stem, gpu, cpu), where gpu says what answers it on a GPU: kern when
 * kernels/STEM.cu measures it, check when the device check does (device:
 * the driver probe and the worker's runtime view, so it runs wherever the
 * server is, with a usable GPU or not); cpu is 1 when a run in the browser
 * also gets the server's CPU line (crossover: the server's BLAS sgemm
 * beside the browser's one WebAssembly thread). Code reads the columns
 * through the registry (lab_experiment_has_kernel, _is_device_check,
 * _server_cpu), never by an experiment's name. The order is the order
 * learners see. */
#ifndef LAB_EXPERIMENTS_H
#define LAB_EXPERIMENTS_H

#define LAB_EXPERIMENTS(X) \
  X(device, check, 0)      \
  X(placement, kern, 0)    \
  X(memory, kern, 0)       \
  X(train_step, kern, 0)   \
  X(transfer, kern, 0)     \
  X(timing, kern, 0)       \
  X(crossover, kern, 1)    \
  X(precision, kern, 0)    \
  X(allocator, kern, 0)    \
  X(graphs, kern, 0)       \
  X(profile, kern, 0)      \
  X(streams, kern, 0)

/* Expands `then(stem)` only for the entries whose gpu column is kern:
 * LAB_EXPERIMENTS(LAB_IF_KERN) with LAB_KERN_THEN defined first. */
#define LAB_GPU_kern(stem) LAB_KERN_THEN(stem)
#define LAB_GPU_check(stem)
#define LAB_IF_KERN(stem, gpu, cpu) LAB_GPU_##gpu(stem)
/* 1 for the gpu column's value kern, 0 for check. */
#define LAB_GPU_IS_KERN_kern 1
#define LAB_GPU_IS_KERN_check 0

#endif
