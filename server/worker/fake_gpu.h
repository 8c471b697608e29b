/* A test-only fake GPU, so the class queue, its limits and the worker's
 * supervision are testable on a machine without one. Active only with
 * GPULAB_TEST_HOOKS=1 and GPULAB_FAKE_GPU_MS=N (0..600000) set together. */
#ifndef SRV_WORKER_FAKE_GPU_H
#define SRV_WORKER_FAKE_GPU_H

#include "device.h"
#include "error.h"
#include "registry.h"

#define SRV_FAKE_GPU_NAME "gpulab fake GPU (test)"

/* The simulated run time in ms, or -1 when the fake GPU is off. */
long srv_fake_gpu_ms(void);
/* A usable one-device runtime view named SRV_FAKE_GPU_NAME (h100-sxm sizes). */
void srv_fake_gpu_runtime_view(lab_runtime_view *rt);
/* Sleeps the configured time, then simulates e on params p (checked by
 * the worker's lab_experiment_params) with the
 * h100-sxm profile; the envelope stays "simulated" (it is) and names the
 * fake device. With GPULAB_FAKE_GPU_HANG=NAME, runs of experiment NAME
 * never end (for deadline tests); with GPULAB_FAKE_GPU_FAIL=CODE (an
 * error code such as cuda_error), every run fails with it after the sleep.
 * Returns 0, or -1 with err set. */
int srv_fake_gpu_run(const lab_experiment *e, const lab_params *p, cJSON **out, lab_error *err);
/* With GPULAB_FAKE_GPU_LOG=FILE: appends "RUN_ID PID\n" for a run the fake
 * GPU finished, so a test can count how often each run really ran. */
void srv_fake_gpu_log(double run_id);

#endif
