/* The start rule of lab_gpu_span_starts (see gpu_spans.h). */
#include "gpu_spans.h"

void lab_gpu_span_starts(const double *issue_us, const double *end_us, int n, double ready_us, double *start_us) {
  double prev = ready_us;
  for (int i = 0; i < n; i++) {
    double s = issue_us[i] > prev ? issue_us[i] : prev;
    if (issue_us[i] < 0) s = end_us[i];
    start_us[i] = s < end_us[i] ? s : end_us[i];
    prev = end_us[i];
  }
}
