/* Runs learners' browsers simulated and reported (POST /api/class/simulated),
 * counted per learner since this server started, so the instructor page shows
 * each learner's activity on a class without a GPU. Kept in memory only: a
 * report is activity, never a stored or charged run. Thread-safe. */
#ifndef SRV_BROWSER_SIMS_H
#define SRV_BROWSER_SIMS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Learners counted one by one; past this many, a report still counts in the
 * total (16 bytes each: 1 MiB at most). */
#define SRV_BROWSER_SIMS_LEARNERS_MAX 65536

typedef struct srv_browser_sims {
  pthread_mutex_t mu;
  struct srv_browser_sim_count {
    int64_t learner;
    long n;
  } *v; /* sorted by learner */
  size_t len, cap;
  long total;
} srv_browser_sims;

void srv_browser_sims_init(srv_browser_sims *s);
void srv_browser_sims_free(srv_browser_sims *s);
/* Counts one report of learner's; returns the class's total since the start. */
long srv_browser_sims_add(srv_browser_sims *s, int64_t learner);
long srv_browser_sims_of(srv_browser_sims *s, int64_t learner);
long srv_browser_sims_total(srv_browser_sims *s);

#endif
