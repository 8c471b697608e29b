/* Learners, names and their limits (see learner.h). Each limit is a token
 * bucket in the store: a kind, a subject ("learner:12", "addr:10.0.0.7"),
 * a burst (and optionally a cost) refilled each minute. A request refused
 * for another reason after it was counted is uncounted, so a refusal never
 * uses up a learner's minute. */
#include "learner.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "session.h"
#include "utf8.h"

#define PERIOD_MS 60000 /* each bucket refills in a minute */

int srv_name_valid(const char *name) {
  size_t len = strlen(name), i = 0, chars = 0;
  int visible = 0;
  uint32_t cp;
  if (len > SRV_NAME_BYTES) return 0;
  while (i < len) {
    size_t n = lab_utf8_next(name + i, len - i, &cp);
    if (n == 0) return 0;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x2028 || cp == 0x2029 || lab_utf8_is_bidi_control(cp))
      return 0;
    if (cp != ' ' && cp != 0xa0 && cp != 0x3000) visible = 1;
    i += n;
    chars++;
  }
  return chars >= 1 && chars <= SRV_NAME_MAX && visible;
}

int srv_learner_for_join(srv_store *st, const char *cookie_header, const char *name, srv_store_learner *out,
                         char token_out[65], lab_error *err) {
  char token[SRV_TOKEN_HEX + 1];
  unsigned char hash[SRV_HASH_BYTES];
  token_out[0] = 0;
  if (cookie_header && srv_cookie_named(cookie_header, SRV_LEARNER_COOKIE, token) == 0) {
    srv_sha256(token, SRV_TOKEN_HEX, hash);
    if (srv_store_learner_find(st, hash, name, out, err) == 0) return 0;
    if (err->code != LAB_E_NO_SESSION) return -1; /* a store error, not an unknown cookie */
  }
  if (srv_token_new(token, err) != 0) return -1;
  srv_sha256(token, SRV_TOKEN_HEX, hash);
  if (srv_store_learner_add(st, hash, name, out, err) != 0) return -1;
  memcpy(token_out, token, SRV_TOKEN_HEX + 1);
  memset(token, 0, sizeof token);
  return 0;
}

void srv_learner_cookie_line(char *out, size_t n, const char *token, int secure) {
  snprintf(out, n, "Set-Cookie: " SRV_LEARNER_COOKIE "=%s; HttpOnly; SameSite=Strict; Path=/; Max-Age=%ld%s\r\n",
           token, SRV_LEARNER_COOKIE_MAX_AGE_S, secure ? "; Secure" : "");
}

/* A limit of one learner, with the message the learner reads. */
static int learner_window(srv_store *st, const char *kind, int64_t learner_id, long max_count, double max_cost_ms,
                          const char *what, double *retry_after_s, int64_t *ticket, lab_error *err) {
  char subject[40];
  snprintf(subject, sizeof subject, "learner:%lld", (long long)learner_id);
  *ticket = 0;
  /* One step, so two servers cannot both admit the last one the bucket holds. */
  if (srv_store_limit_take(st, kind, subject, PERIOD_MS, max_count, max_cost_ms, retry_after_s, ticket, err) != 0)
    return err->code != LAB_E_RATE_LIMITED
               ? -1
               : lab_fail(err, LAB_E_RATE_LIMITED, NULL, "%s; retry in %.0f s", what, *retry_after_s);
  return 0;
}

int srv_learner_sim_admit(srv_class *cls, int64_t learner_id, int64_t *ticket, double *retry_after_s,
                          lab_error *err) {
  char what[200];
  snprintf(what, sizeof what,
           "you may run %ld experiments answered at once (simulated) per minute, using %ld s of the server's CPU",
           cls->cfg.sim_runs_per_minute, cls->cfg.sim_cpu_seconds_per_minute);
  return learner_window(cls->store, "sim_run", learner_id, cls->cfg.sim_runs_per_minute,
                        (double)cls->cfg.sim_cpu_seconds_per_minute * 1000.0, what, retry_after_s, ticket, err);
}

void srv_learner_sim_settle(srv_class *cls, int64_t ticket, double cpu_ms, int ran) {
  lab_error err = {0};
  int rc = ran ? srv_store_limit_cost(cls->store, ticket, cpu_ms, &err) : srv_store_limit_undo(cls->store, ticket, &err);
  if (rc != 0) fprintf(stderr, "gpulab: could not settle a simulated run's limit: %s\n", err.message);
}

int srv_learner_browser_sim_admit(srv_store *st, int64_t learner_id, double *retry_after_s, lab_error *err) {
  char what[120];
  int64_t ticket;
  snprintf(what, sizeof what, "your browser may report %d simulated runs per minute", SRV_BROWSER_SIMS_PER_MINUTE);
  return learner_window(st, "browser_sim", learner_id, SRV_BROWSER_SIMS_PER_MINUTE, 0, what, retry_after_s, &ticket,
                        err);
}

int srv_learner_gpu_admit(srv_store *st, int64_t learner_id, long per_minute, int64_t *ticket,
                          double *retry_after_s, lab_error *err) {
  char what[160];
  snprintf(what, sizeof what, "you may queue %ld GPU runs per minute (or run it with backend \"simulated\")",
           per_minute);
  return learner_window(st, "gpu_run", learner_id, per_minute, 0, what, retry_after_s, ticket, err);
}

void srv_learner_gpu_undo(srv_store *st, int64_t ticket) {
  lab_error err = {0};
  if (ticket && srv_store_limit_undo(st, ticket, &err) != 0)
    fprintf(stderr, "gpulab: could not uncount a refused GPU run: %s\n", err.message);
}

int srv_learner_quiz_admit(srv_store *st, int64_t learner_id, int64_t *ticket, double *retry_after_s,
                           lab_error *err) {
  char what[120];
  snprintf(what, sizeof what, "you may submit %d quiz attempts per minute", SRV_QUIZ_ATTEMPTS_PER_MINUTE);
  return learner_window(st, "quiz", learner_id, SRV_QUIZ_ATTEMPTS_PER_MINUTE, 0, what, retry_after_s, ticket, err);
}

void srv_learner_quiz_undo(srv_store *st, int64_t ticket) {
  lab_error err = {0};
  if (ticket && srv_store_limit_undo(st, ticket, &err) != 0)
    fprintf(stderr, "gpulab: could not uncount a quiz attempt that was not stored: %s\n", err.message);
}

double srv_thread_cpu_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
