/* sgemm time = 2·m·n·k flops / (peak × efficiency). The efficiency model:
 * output tiles of 64×64 are spread over the SMs in waves, so a matrix with
 * fewer tiles than SMs leaves most of the GPU idle (wave utilisation), and a
 * short k loop cannot hide load latency (k / (k + 64)). */
#include "gpu_model.h"

#include <math.h>

#define TILE 64.0
#define K_HALF 64.0 /* k at which the inner loop reaches half its speed */

double lab_gemm_efficiency(const lab_profile *prof, double m, double n, double k) {
  if (m < 1) m = 1;
  if (n < 1) n = 1;
  if (k < 1) k = 1;
  double tiles = ceil(m / TILE) * ceil(n / TILE);
  double sms = prof->sm_count > 0 ? prof->sm_count : 1;
  double waves = ceil(tiles / sms);
  /* A partial tile does full work for part of the output. */
  double fill = (m * n) / (tiles * TILE * TILE);
  double wave_util = tiles / (waves * sms);
  return prof->gemm_efficiency * wave_util * fill * (k / (k + K_HALF));
}

double lab_gemm_us(const lab_profile *prof, double m, double n, double k) {
  double flops = 2.0 * m * n * k;
  double rate = prof->fp32_tflops * 1e12 * lab_gemm_efficiency(prof, m, n, k); /* flop/s */
  double us = rate > 0 ? flops / rate * 1e6 : 0;
  return us > prof->kernel_min_us ? us : prof->kernel_min_us;
}
