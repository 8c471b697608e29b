/* Guessing, throttled per client address: wrong join codes, wrong
 * instructor tokens, and the joins that make a new learner each take one
 * from a token bucket in the store (a burst of SRV_ADDRESS_BURST, then one
 * a second), so a code cannot be tried thousands of times a second while a
 * classroom behind one NAT still gets in. Malformed requests do not count. */
#ifndef SRV_THROTTLE_H
#define SRV_THROTTLE_H

#include "store.h"

#define SRV_ADDRESS_BURST 60 /* per address per minute */

/* The per-address throttle of `kind` ("join", "instructor"): 0 while addr
 * may try again, else -1 with rate_limited and *retry_after_s. */
int srv_address_check(srv_store *st, const char *kind, const char *addr, double *retry_after_s, lab_error *err);
/* Counts one attempt of addr (best effort: a store error is logged). */
void srv_address_count(srv_store *st, const char *kind, const char *addr);

#endif
