/* Event quantization (see sim_measure.h). */
#include "sim_measure.h"

#include <math.h>

double lab_event_us(double us) {
  if (!(us > 0)) return 0;
  return floor(us / LAB_EVENT_RESOLUTION_US + 0.5) * LAB_EVENT_RESOLUTION_US;
}

double lab_event_ms(double ms) { return lab_event_us(ms * 1e3) / 1e3; }
