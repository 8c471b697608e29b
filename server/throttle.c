/* The per-address throttle (see throttle.h): one store bucket per kind
 * and address, subject "addr:ADDRESS", refilled in a minute. */
#include "throttle.h"

#include <stdio.h>

#define PERIOD_MS 60000

int srv_address_check(srv_store *st, const char *kind, const char *addr, double *retry_after_s, lab_error *err) {
  char subject[80];
  snprintf(subject, sizeof subject, "addr:%s", addr);
  if (srv_store_limit_check(st, kind, subject, PERIOD_MS, SRV_ADDRESS_BURST, 0, retry_after_s, err) == 0) return 0;
  if (err->code != LAB_E_RATE_LIMITED) return -1;
  return lab_fail(err, LAB_E_RATE_LIMITED, NULL,
                  "too many %s attempts from your address (%.46s) in the last minute; retry in %.0f s", kind, addr,
                  *retry_after_s);
}

void srv_address_count(srv_store *st, const char *kind, const char *addr) {
  char subject[80];
  lab_error err = {0};
  snprintf(subject, sizeof subject, "addr:%s", addr);
  if (srv_store_limit_add(st, kind, subject, 0, NULL, &err) != 0)
    fprintf(stderr, "gpulab: could not count a %s attempt from %s: %s\n", kind, addr, err.message);
}

