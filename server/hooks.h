/* Test hooks: with GPULAB_TEST_HOOKS=1 the API accepts "_crash", "_hang"
 * and "_sticky" runs and the worker misbehaves on purpose, so tests can see
 * the supervision replace it without a GPU. Off unless set exactly to 1. */
#ifndef SRV_HOOKS_H
#define SRV_HOOKS_H

#include <stdlib.h>
#include <string.h>

static inline int srv_test_hooks_enabled(void) {
  const char *v = getenv("GPULAB_TEST_HOOKS");
  return v && strcmp(v, "1") == 0;
}

#endif
