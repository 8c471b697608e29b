/* Who may join a class, and how wrong guesses are bounded. A right join
 * code takes one from the class's join window (a burst of --class-size,
 * then --join-rate a second), whatever address it comes from: a lecture
 * hall behind one NAT gets in together. A wrong join code or instructor
 * token is answered only after the comparison, and counts in a budget of
 * its own, per address and per class (kept in the store, so it holds
 * across servers): guesses bound their own load and never use up what
 * right joins need, so a right code or token is never refused for
 * another's guesses. Every refusal is counted for /metrics and the
 * instructor's view (metrics.h: srv_metrics_refused). */
#ifndef SRV_THROTTLE_H
#define SRV_THROTTLE_H

#include <stdint.h>

#include "store.h"

#define SRV_GUESS_ADDRESS_BURST 60 /* wrong guesses of one kind per address per minute */
#define SRV_GUESS_CLASS_BURST 600  /* wrong guesses of one kind per class per minute */

/* The class's join window as a token bucket: burst joins at once, the
 * whole bucket refilled in period_ms (so join_rate a second sustained). */
typedef struct srv_join_window {
  long burst;
  int64_t period_ms;
} srv_join_window;

srv_join_window srv_join_window_of(long class_size, long join_rate);

/* Takes one join from the class's window: 0 with *ticket (for
 * srv_join_return), or -1: rate_limited with *retry_after_s (the message
 * tells the learner it is the class's window, not them), or a store error. */
int srv_join_admit(srv_store *st, long class_size, long join_rate, int64_t *ticket, double *retry_after_s,
                   lab_error *err);
/* Gives a join back: it made no new learner (a browser joining again), or
 * it failed after it was admitted. Best effort (a store error is logged). */
void srv_join_return(srv_store *st, int64_t ticket);

typedef enum srv_guess { SRV_GUESS_JOIN_CODE, SRV_GUESS_INSTRUCTOR_TOKEN } srv_guess;

/* A wrong guess from addr, after the comparison: 0 when it fits the
 * address's and the class's guess budgets (it is counted; the caller
 * answers bad_join_code / instructor_only), else -1 with rate_limited and
 * *retry_after_s. Over budget it costs reads only, never a write, and once
 * this process has seen the budget spent, not even those (until it refills). */
int srv_guess_count(srv_store *st, srv_guess kind, const char *addr, double *retry_after_s, lab_error *err);

#endif
