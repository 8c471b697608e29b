/* Every experiment, named once. Everything else about an experiment lives in
 * files named after its stem: lab/STEM.c (its descriptor lab_exp_STEM:
 * parameters, cross-parameter check, GPU memory estimate, simulator,
 * lesson; and lab_cpu_ms_STEM, its simulation's CPU estimate),
 * kernels/STEM.cu (kern_run_STEM), the client's view
 * (ui_result_STEM), tests/unit/check_STEM.c (make_STEM_suite) and
 * tests/gpu/check_STEM.py. The registry, the worker's dispatch, the
 * client's result dispatch and the unit-test suite list are generated from
 * this list, so adding an experiment is its stem files, one line here and
 * its name in the README's list (docs/adding-an-experiment.md).
 *
 * X(stem, kern): kern is 1 when kernels/STEM.cu measures it on a GPU and 0
 * when it has no kernel entry (device: the driver probe and the worker's
 * runtime view answer it). The order is the order learners see. */
#ifndef LAB_EXPERIMENTS_H
#define LAB_EXPERIMENTS_H

#define LAB_EXPERIMENTS(X) \
  X(device, 0)             \
  X(placement, 1)          \
  X(memory, 1)             \
  X(train_step, 1)         \
  X(transfer, 1)           \
  X(timing, 1)             \
  X(crossover, 1)          \
  X(precision, 1)          \
  X(allocator, 1)          \
  X(graphs, 1)             \
  X(profile, 1)            \
  X(streams, 1)

/* Expands `then(stem)` only for the entries whose kern column is 1:
 * LAB_EXPERIMENTS(LAB_IF_KERN) with LAB_KERN_THEN defined first. */
#define LAB_KERN_0(stem)
#define LAB_KERN_1(stem) LAB_KERN_THEN(stem)
#define LAB_IF_KERN(stem, kern) LAB_KERN_##kern(stem)

#endif
