/* Calibration: fit a device profile to real GPU runs (transfer and timing),
 * then check that the simulator with that profile reproduces the runs'
 * headline figures within ±25 %. Portable: the fit is plain arithmetic on
 * envelopes, so it is tested here with envelopes of a known profile. */
#ifndef LAB_CALIBRATE_H
#define LAB_CALIBRATE_H

#include "device.h"
#include "profiles.h"

#define LAB_CALIBRATE_TOLERANCE_PCT 25.0

/* The built-in profile nearest to a GPU (the same device name, then the
 * same compute capability, else the default: a device with no compute
 * capability, an Apple or AMD GPU, starts from the default), used as the
 * starting point of the fit. */
const lab_profile *lab_calibrate_base(const lab_gpu_info *gpu);

/* real_transfer / real_timing: envelopes of real runs (backend "cuda", or
 * "pytorch" from the measurement kit: simulated in the PyTorch view, its
 * launch cost fitted to torch_op_us).
 * gpu: the device they ran on (name, SMs, memory). On success *out is the
 * fitted profile (named "calibrated") and *report (caller owns) is
 * {"profile":{…},"base":"h100-sxm","checks":[{"experiment","metric","real",
 * "simulated","error_pct","ok"}],"tolerance_pct":25,"ok":bool}. */
int lab_calibrate(const cJSON *real_transfer, const cJSON *real_timing, const lab_gpu_info *gpu, lab_profile *out,
                  cJSON **report, lab_error *err);

#endif
