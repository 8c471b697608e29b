/* The periodic thread of ticker.h: a condition variable with a deadline is
 * the wait, so a stop wakes it instead of waiting a period out. */
#include "ticker.h"

#include <pthread.h>
#include <stdlib.h>

#include "abstime.h"

struct srv_ticker {
  pthread_t thread;
  pthread_mutex_t lock; /* guards stop */
  pthread_cond_t wake;
  int stop, at_start;
  double period_s;
  void (*tick)(void *arg);
  void *arg;
};

static void *run(void *arg) {
  srv_ticker *t = arg;
  pthread_mutex_lock(&t->lock);
  int first = 1;
  while (!t->stop) {
    if (!(first && t->at_start)) {
      struct timespec at = srv_abstime_after(t->period_s);
      pthread_cond_timedwait(&t->wake, &t->lock, &at);
      if (t->stop) break;
    }
    first = 0;
    pthread_mutex_unlock(&t->lock);
    t->tick(t->arg);
    pthread_mutex_lock(&t->lock);
  }
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

srv_ticker *srv_ticker_start(double period_s, int at_start, void (*tick)(void *arg), void *arg) {
  srv_ticker *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->period_s = period_s;
  t->at_start = at_start;
  t->tick = tick;
  t->arg = arg;
  if (pthread_mutex_init(&t->lock, NULL) != 0) goto no_lock;
  if (pthread_cond_init(&t->wake, NULL) != 0) goto no_cond;
  if (pthread_create(&t->thread, NULL, run, t) != 0) goto no_thread;
  return t;
no_thread:
  pthread_cond_destroy(&t->wake);
no_cond:
  pthread_mutex_destroy(&t->lock);
no_lock:
  free(t);
  return NULL;
}

void srv_ticker_stop(srv_ticker *t) {
  if (!t) return;
  pthread_mutex_lock(&t->lock);
  t->stop = 1;
  pthread_cond_signal(&t->wake);
  pthread_mutex_unlock(&t->lock);
  pthread_join(t->thread, NULL);
  pthread_cond_destroy(&t->wake);
  pthread_mutex_destroy(&t->lock);
  free(t);
}
