/* time = 2·m·n·k flop / (peak × efficiency). The efficiency model: output
 * tiles are spread over the SMs in waves, so a matrix with fewer tiles than
 * a whole number of waves leaves SMs idle (wave utilisation), a partial
 * tile does full work for part of the output (fill), and a short k loop
 * cannot hide the pipeline's start (k / (k + k_half)). SIMT sgemm tiles
 * are 64×64 with k_half 64; tensor-core tiles are the profile's
 * (tc_tile_m × tc_tile_n for 2-byte inputs) with k_half 256, halved tiles
 * and doubled k_half for 4-byte TF32 inputs; estimates fitted to the
 * published per-size runs of the fidelity suite. The shape
 * factor is capped by power_cap: a power-limited card runs large products
 * at a lower clock, small ones at full clock. */
#include "gpu_model.h"

#include <math.h>

#define SIMT_TILE 64.0
#define SIMT_K_HALF 64.0 /* k at which the sgemm inner loop reaches half its speed */
#define TC_K_HALF 256.0  /* the same for tensor-core kernels, whose pipelines are deeper */

/* Wave utilisation × fill × k factor of tiles tm × tn on sms SMs, in (0, 1]. */
static double shape(double m, double n, double k, double tm, double tn, double sms, double k_half) {
  if (m < 1) m = 1;
  if (n < 1) n = 1;
  if (k < 1) k = 1;
  if (sms < 1) sms = 1;
  double tiles = ceil(m / tm) * ceil(n / tn);
  double waves = ceil(tiles / sms);
  double fill = (m * n) / (tiles * tm * tn);
  double wave_util = tiles / (waves * sms);
  return wave_util * fill * (k / (k + k_half));
}

static double capped(const lab_profile *prof, double s) {
  double cap = prof->power_cap > 0 && prof->power_cap < 1 ? prof->power_cap : 1;
  return s < cap ? s : cap;
}

double lab_gemm_efficiency(const lab_profile *prof, double m, double n, double k) {
  return prof->gemm_efficiency * capped(prof, shape(m, n, k, SIMT_TILE, SIMT_TILE, prof->sm_count, SIMT_K_HALF));
}

double lab_tc_efficiency(const lab_profile *prof, double m, double n, double k, int in_bytes) {
  double tm = prof->tc_tile_m > 0 ? prof->tc_tile_m : 128, tn = prof->tc_tile_n > 0 ? prof->tc_tile_n : 128;
  /* 4-byte inputs (TF32): half the elements per tile and per pipeline stage in the same shared memory. */
  double scale = in_bytes > 2 ? in_bytes / 2.0 : 1;
  return prof->tc_efficiency * capped(prof, shape(m, n, k, tm / scale, tn, prof->sm_count, TC_K_HALF * scale));
}

double lab_gemm_us(const lab_profile *prof, double m, double n, double k) {
  double flops = 2.0 * m * n * k;
  double rate = prof->fp32_tflops * 1e12 * lab_gemm_efficiency(prof, m, n, k); /* flop/s */
  double us = rate > 0 ? flops / rate * 1e6 : 0;
  return us > prof->kernel_min_us ? us : prof->kernel_min_us;
}
