/* The watchdog thread (see watchdog.h): every half second it looks at the
 * requests in progress and the device probe, every store_every_s it writes
 * the store once (an event added and undone), and it logs each change of
 * its verdict once. */
#include "watchdog.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ticker.h"

#define SLOTS 1024   /* request threads tracked (CivetWeb's are ≤ max_connections) */
#define TICK_S 0.5

/* One slot per request thread, claimed at its first request. */
typedef struct req_slot {
  double started_s; /* 0: idle */
  char what[96];    /* "POST /api/experiments/crossover" */
} req_slot;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static req_slot slots[SLOTS];
static int slots_used;
static _Thread_local int my_slot = -1;

void srv_watchdog_request_begin(const char *method, const char *uri) {
  pthread_mutex_lock(&slots_lock);
  if (my_slot < 0 && slots_used < SLOTS) my_slot = slots_used++;
  if (my_slot >= 0) {
    slots[my_slot].started_s = lab_clock_s();
    snprintf(slots[my_slot].what, sizeof slots[my_slot].what, "%.10s %.80s", method ? method : "?", uri ? uri : "?");
  }
  pthread_mutex_unlock(&slots_lock);
}

void srv_watchdog_request_end(void) {
  if (my_slot < 0) return;
  pthread_mutex_lock(&slots_lock);
  slots[my_slot].started_s = 0;
  pthread_mutex_unlock(&slots_lock);
}

int srv_watchdog_requests(double *oldest_s, char *what, size_t n) {
  double now = lab_clock_s(), oldest = 0;
  int count = 0;
  if (n) what[0] = 0;
  pthread_mutex_lock(&slots_lock);
  for (int i = 0; i < slots_used; i++) {
    if (slots[i].started_s <= 0) continue;
    count++;
    if (now - slots[i].started_s > oldest) {
      oldest = now - slots[i].started_s;
      if (n) snprintf(what, n, "%s", slots[i].what);
    }
  }
  pthread_mutex_unlock(&slots_lock);
  if (oldest_s) *oldest_s = oldest;
  return count;
}

struct srv_watchdog {
  srv_watchdog_opts o;
  srv_ticker *ticker;
  pthread_mutex_t lock; /* guards reasons and store_problem */
  char reasons[768];
  char store_problem[360]; /* the last store write's failure, "" when it worked */
  double store_checked_s;
};

/* Appends one reason to a "; "-joined list. */
static void add_reason(char *list, size_t n, const char *reason) {
  size_t used = strlen(list);
  if (used + 3 < n) snprintf(list + used, n - used, "%s%s", used ? "; " : "", reason);
}

static void check_store(srv_watchdog *w) {
  lab_error err = {0};
  int64_t id = 0;
  char problem[sizeof w->store_problem] = "";
  if (srv_store_limit_add(w->o.store, "watchdog", "write-check", 0, &id, &err) != 0 ||
      srv_store_limit_undo(w->o.store, id, &err) != 0)
    snprintf(problem, sizeof problem, "the class store cannot be written (%s: %.250s)", lab_err_code(err.code),
             err.message);
  pthread_mutex_lock(&w->lock);
  memcpy(w->store_problem, problem, sizeof problem);
  pthread_mutex_unlock(&w->lock);
}

static void look(srv_watchdog *w) {
  char now_reasons[sizeof w->reasons] = "", line[200], what[96];
  double oldest = 0;
  int n = srv_watchdog_requests(&oldest, what, sizeof what);
  if (n && oldest > w->o.stuck_s) {
    snprintf(line, sizeof line, "a request has run for %.0f s, past every deadline it has (%s)", oldest, what);
    add_reason(now_reasons, sizeof now_reasons, line);
  }
  double probe = srv_runner_probe_running_s(w->o.runner);
  if (probe > w->o.probe_stuck_s) {
    snprintf(line, sizeof line, "the device check has not answered for %.0f s (GET /api/device answers its last view)",
             probe);
    add_reason(now_reasons, sizeof now_reasons, line);
  }
  double t = lab_clock_s();
  if (w->o.store && t - w->store_checked_s >= w->o.store_every_s) {
    w->store_checked_s = t;
    check_store(w);
  }
  pthread_mutex_lock(&w->lock);
  if (w->store_problem[0]) add_reason(now_reasons, sizeof now_reasons, w->store_problem);
  int was = w->reasons[0] != 0, is = now_reasons[0] != 0;
  /* Logged when the verdict changes, not every tick (the request's age
   * grows each time: the text of a reason is not compared). */
  if (is && !was) fprintf(stderr, "gpulab: watchdog: degraded: %s\n", now_reasons);
  if (!is && was) fprintf(stderr, "gpulab: watchdog: recovered (was: %s)\n", w->reasons);
  memcpy(w->reasons, now_reasons, sizeof now_reasons);
  pthread_mutex_unlock(&w->lock);
}

static void tick(void *arg) { look(arg); }

srv_watchdog *srv_watchdog_start(const srv_watchdog_opts *o) {
  srv_watchdog *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->o = *o;
  w->store_checked_s = -1e9; /* the store is written at the first look */
  if (pthread_mutex_init(&w->lock, NULL) != 0) {
    free(w);
    return NULL;
  }
  if (!(w->ticker = srv_ticker_start(TICK_S, 1, tick, w))) {
    pthread_mutex_destroy(&w->lock);
    free(w);
    return NULL;
  }
  return w;
}

void srv_watchdog_stop(srv_watchdog *w) {
  if (!w) return;
  srv_ticker_stop(w->ticker);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

int srv_watchdog_status(srv_watchdog *w, char *out, size_t n) {
  if (n) out[0] = 0;
  if (!w) return 0;
  pthread_mutex_lock(&w->lock);
  int bad = w->reasons[0] != 0;
  if (n) snprintf(out, n, "%s", w->reasons);
  pthread_mutex_unlock(&w->lock);
  return bad;
}
