/* Requests in flight per key (a client address, a learner), each key with
 * its own bound, and all of them together under one more: what bounds the
 * uploads to the readers (reader_run.h), so that a few addresses cannot
 * hold the HTTP threads that health, joins and runs need. */
#ifndef SRV_INFLIGHT_H
#define SRV_INFLIGHT_H

#define SRV_INFLIGHT_KEY_MAX 64 /* "addr:" + an IPv6 address, "learner:" + an id */

typedef struct srv_inflight srv_inflight;

/* total: requests in flight at once, all keys together (≥ 1). NULL when
 * out of memory or total < 1. */
srv_inflight *srv_inflight_new(int total);
void srv_inflight_free(srv_inflight *t);

/* Takes one place under each of keys[0..n) (key i holds at most max[i] at
 * once) and one of the total, all or none. Returns -1 when taken; else
 * the index of the key that was full, or n when the total was. */
int srv_inflight_take(srv_inflight *t, const char *const keys[], const int max[], int n);
/* Gives back what srv_inflight_take took for the same keys. */
void srv_inflight_give(srv_inflight *t, const char *const keys[], int n);
/* Requests in flight now, and the bound on them (for /metrics). */
int srv_inflight_count(srv_inflight *t, int *total);

#endif
