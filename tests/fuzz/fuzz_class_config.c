/* libFuzzer: a class configuration file (server/class/config.c), read on top of
 * the defaults. Any input: no crash, no leak; an accepted file leaves
 * every limit within the bounds `gpulab help` states. */
#include <stdint.h>
#include <stdlib.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static srv_class_config cfg;
  char msg[512];
  srv_class_config_defaults(&cfg);
  if (srv_class_config_parse("/fuzz/class.json", (const char *)data, size, &cfg, msg, sizeof msg) == 0) {
    if (cfg.runs_per_minute < 1 || cfg.queue_max < 1 || cfg.max_connections < 1 || cfg.gpu_count < 1 ||
        cfg.gpu_count > SRV_MAX_GPUS || cfg.session_idle_s < 1)
      abort();
  }
  return 0;
}
