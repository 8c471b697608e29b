/* Per-learner counts of the runs their browsers simulated (browser_sims.h):
 * a sorted array searched by halves, grown by doubling up to its bound. */
#include "browser_sims.h"

#include <stdlib.h>
#include <string.h>

void srv_browser_sims_init(srv_browser_sims *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->mu, NULL);
}

void srv_browser_sims_free(srv_browser_sims *s) {
  free(s->v);
  pthread_mutex_destroy(&s->mu);
  memset(s, 0, sizeof *s);
}

/* The index of learner's entry, or where it would go. */
static size_t find(const srv_browser_sims *s, int64_t learner) {
  size_t lo = 0, hi = s->len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->v[mid].learner < learner) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

long srv_browser_sims_add(srv_browser_sims *s, int64_t learner) {
  pthread_mutex_lock(&s->mu);
  long total = ++s->total;
  size_t i = find(s, learner);
  if (i < s->len && s->v[i].learner == learner) {
    s->v[i].n++;
  } else if (s->len < SRV_BROWSER_SIMS_LEARNERS_MAX) {
    if (s->len == s->cap) {
      size_t cap = s->cap ? 2 * s->cap : 64;
      void *grown = realloc(s->v, cap * sizeof *s->v);
      if (grown) {
        s->v = grown;
        s->cap = cap;
      }
    }
    if (s->len < s->cap) { /* out of memory: only the total counts it */
      memmove(s->v + i + 1, s->v + i, (s->len - i) * sizeof *s->v);
      s->v[i].learner = learner;
      s->v[i].n = 1;
      s->len++;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return total;
}

long srv_browser_sims_of(srv_browser_sims *s, int64_t learner) {
  pthread_mutex_lock(&s->mu);
  size_t i = find(s, learner);
  long n = i < s->len && s->v[i].learner == learner ? s->v[i].n : 0;
  pthread_mutex_unlock(&s->mu);
  return n;
}

long srv_browser_sims_total(srv_browser_sims *s) {
  pthread_mutex_lock(&s->mu);
  long n = s->total;
  pthread_mutex_unlock(&s->mu);
  return n;
}
