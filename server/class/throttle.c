/* The class's join window and the wrong-guess budgets (see throttle.h):
 * store buckets of kind "join" (subject "class") and "guess:join_code" /
 * "guess:instructor_token" (subjects "addr:ADDRESS" and "class"). */
#include "throttle.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"

#define GUESS_PERIOD_MS 60000
#define MEMO_SLOTS 64 /* budgets remembered as spent; a slot lost to another costs one store read */

srv_join_window srv_join_window_of(long class_size, long join_rate) {
  srv_join_window w = {class_size > 0 ? class_size : 1, 1000};
  if (join_rate < 1) join_rate = 1;
  /* burst/rate seconds refill the whole bucket; rounded up so the rate is never above join_rate */
  w.period_ms = (w.burst * 1000 + join_rate - 1) / join_rate;
  if (w.period_ms < 1) w.period_ms = 1;
  return w;
}

int srv_join_admit(srv_store *st, long class_size, long join_rate, int64_t *ticket, double *retry_after_s,
                   lab_error *err) {
  srv_join_window w = srv_join_window_of(class_size, join_rate);
  *ticket = 0;
  /* One step, so servers sharing a store cannot both admit the last join the window holds. */
  if (srv_store_limit_take(st, "join", "class", w.period_ms, w.burst, 0, retry_after_s, ticket, err) == 0) return 0;
  if (err->code != LAB_E_RATE_LIMITED) return -1;
  srv_metrics_refused(SRV_REFUSED_JOIN_WINDOW);
  return lab_fail(err, LAB_E_RATE_LIMITED, NULL,
                  "too many learners are joining this class at once: it admits %ld joins together, then %ld a "
                  "second (nothing is wrong with your code or name); join again in %.0f s",
                  w.burst, join_rate, *retry_after_s < 1 ? 1 : *retry_after_s);
}

void srv_join_return(srv_store *st, int64_t ticket) {
  lab_error err = {0};
  if (ticket && srv_store_limit_undo(st, ticket, &err) != 0)
    fprintf(stderr, "gpulab: could not give back a join to the class's window: %s\n", err.message);
}

typedef struct guess_kind {
  const char *bucket, *what;
  srv_refusal by_address, by_class;
} guess_kind;

static const guess_kind guess_kinds[] = {
    [SRV_GUESS_JOIN_CODE] = {"guess:join_code", "wrong join codes", SRV_REFUSED_JOIN_GUESSES_ADDRESS,
                             SRV_REFUSED_JOIN_GUESSES_CLASS},
    [SRV_GUESS_INSTRUCTOR_TOKEN] = {"guess:instructor_token", "wrong instructor tokens",
                                    SRV_REFUSED_INSTRUCTOR_GUESSES_ADDRESS, SRV_REFUSED_INSTRUCTOR_GUESSES_CLASS},
};

/* Budgets this process saw spent, until they refill: a guesser past its
 * budget is answered from here and costs the store nothing at all. The
 * store stays the truth (only time or more guesses change a spent bucket),
 * so a slot overwritten or a server without the memo only reads again. */
typedef struct memo_slot {
  char key[96]; /* bucket and subject */
  int64_t until_ms;
} memo_slot;
static memo_slot memo[MEMO_SLOTS];
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static memo_slot *memo_at(const char *key) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (const char *p = key; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
  return &memo[h % MEMO_SLOTS];
}

/* Seconds until a remembered spent budget refills, or 0 when none is remembered. */
static double memo_wait_s(const guess_kind *k, const char *subject) {
  char key[96];
  snprintf(key, sizeof key, "%s %s", k->bucket, subject);
  int64_t now = srv_store_now_ms();
  double wait = 0;
  pthread_mutex_lock(&memo_lock);
  memo_slot *m = memo_at(key);
  if (strcmp(m->key, key) == 0 && m->until_ms > now) wait = (double)(m->until_ms - now) / 1000.0;
  pthread_mutex_unlock(&memo_lock);
  return wait > 0 && wait < 1 ? 1 : wait;
}

static void memo_spent(const guess_kind *k, const char *subject, double retry_after_s) {
  char key[96];
  snprintf(key, sizeof key, "%s %s", k->bucket, subject);
  pthread_mutex_lock(&memo_lock);
  memo_slot *m = memo_at(key);
  snprintf(m->key, sizeof m->key, "%s", key);
  m->until_ms = srv_store_now_ms() + (int64_t)(retry_after_s * 1000.0);
  pthread_mutex_unlock(&memo_lock);
}

/* One guess budget: take 0 checks it (a read), take 1 checks and counts (a write). */
static int budget(srv_store *st, const guess_kind *k, const char *subject, long burst, int take, int64_t *ticket,
                  double *retry_after_s, lab_error *err) {
  return take ? srv_store_limit_take(st, k->bucket, subject, GUESS_PERIOD_MS, burst, 0, retry_after_s, ticket, err)
              : srv_store_limit_check(st, k->bucket, subject, GUESS_PERIOD_MS, burst, 0, retry_after_s, err);
}

int srv_guess_count(srv_store *st, srv_guess kind, const char *addr, double *retry_after_s, lab_error *err) {
  const guess_kind *k = &guess_kinds[kind == SRV_GUESS_INSTRUCTOR_TOKEN];
  char subject[80];
  snprintf(subject, sizeof subject, "addr:%s", addr);
  *retry_after_s = 0;
  int64_t ticket = 0;
  /* A budget remembered as spent first (no store access), then reads (a
   * guesser over budget costs no write), then each take, atomic; the
   * address's is given back when the class's refuses. */
  int by_class = 0, rc = 0;
  if ((*retry_after_s = memo_wait_s(k, subject)) == 0 && (*retry_after_s = memo_wait_s(k, "class")) > 0) by_class = 1;
  if (*retry_after_s > 0) rc = lab_fail(err, LAB_E_RATE_LIMITED, NULL, NULL);
  if (rc == 0) rc = budget(st, k, subject, SRV_GUESS_ADDRESS_BURST, 0, NULL, retry_after_s, err);
  if (rc == 0) {
    by_class = 1;
    rc = budget(st, k, "class", SRV_GUESS_CLASS_BURST, 0, NULL, retry_after_s, err);
  }
  if (rc == 0) {
    by_class = 0;
    rc = budget(st, k, subject, SRV_GUESS_ADDRESS_BURST, 1, &ticket, retry_after_s, err);
  }
  if (rc == 0) {
    by_class = 1;
    rc = budget(st, k, "class", SRV_GUESS_CLASS_BURST, 1, NULL, retry_after_s, err);
    lab_error ignored;
    if (rc != 0) (void)srv_store_limit_undo(st, ticket, &ignored); /* refused: not counted after all */
  }
  if (rc == 0) return 0;
  if (err->code != LAB_E_RATE_LIMITED) { /* the store failed: the guess stays a wrong one */
    fprintf(stderr, "gpulab: could not count %s from %s: %s\n", k->what, addr, err->message);
    *retry_after_s = 0;
    return 0;
  }
  memo_spent(k, by_class ? "class" : subject, *retry_after_s);
  srv_metrics_refused(by_class ? k->by_class : k->by_address);
  if (by_class)
    return lab_fail(err, LAB_E_RATE_LIMITED, NULL,
                    "this class has had %d %s in the last minute, from many addresses (a right one is never refused "
                    "for them); check yours and retry in %.0f s",
                    SRV_GUESS_CLASS_BURST, k->what, *retry_after_s);
  return lab_fail(err, LAB_E_RATE_LIMITED, NULL,
                  "your address (%.46s) has sent %d %s in the last minute (a right one is never refused for them); "
                  "check yours and retry in %.0f s",
                  addr, SRV_GUESS_ADDRESS_BURST, k->what, *retry_after_s);
}
