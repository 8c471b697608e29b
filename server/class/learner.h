/* Learners and the limits that follow them. A join creates a learner,
 * remembered by a long-lived cookie of its own (HttpOnly, apart from the
 * session's), so joining again from the same browser is the same learner
 * with the same limits and quota. Limits are token buckets kept in the
 * store (store.h), so they hold across re-joins, restarts and several
 * servers sharing one store. The joins that make a new learner take one
 * from the class's join window, whatever their address (throttle.h). */
#ifndef SRV_LEARNER_H
#define SRV_LEARNER_H

#include <stddef.h>
#include <stdint.h>

#include "class.h"

#define SRV_LEARNER_COOKIE "gpulab_learner"
#define SRV_LEARNER_COOKIE_MAX_AGE_S (180L * 24 * 3600) /* a term */

/* 1–40 characters of well-formed UTF-8, not blank, without control,
 * line-separator or bidi characters (which could disguise one name as
 * another's in the instructor's list). */
int srv_name_valid(const char *name);

/* The learner this join is for: the one the browser's learner cookie
 * names (cookie_header may be NULL), renamed to name; else a new learner,
 * whose cookie token goes to token_out ("" when the learner was known). */
int srv_learner_for_join(srv_store *st, const char *cookie_header, const char *name, srv_store_learner *out,
                         char token_out[65], lab_error *err);
/* The Set-Cookie line (with "\r\n") of the learner cookie. */
void srv_learner_cookie_line(char *out, size_t n, const char *token, int secure);

/* Runs answered at once (simulated, or the device check) of a learner:
 * a burst of cfg.sim_runs_per_minute using cfg.sim_cpu_seconds_per_minute
 * of CPU, refilled each minute. admit counts one
 * (or refuses: rate_limited, *retry_after_s); settle charges the CPU time
 * it took (ran = 1) or forgets it (ran = 0: refused after all). */
int srv_learner_sim_admit(srv_class *cls, int64_t learner_id, int64_t *ticket, double *retry_after_s,
                          lab_error *err);
void srv_learner_sim_settle(srv_class *cls, int64_t ticket, double cpu_ms, int ran);

/* Runs a learner's browser simulated and reports (POST
 * /api/class/simulated): a burst of SRV_BROWSER_SIMS_PER_MINUTE, refilled
 * each minute, so a script cannot inflate the instructor's count; nothing
 * is charged. admit counts one (or refuses: rate_limited, *retry_after_s). */
#define SRV_BROWSER_SIMS_PER_MINUTE 60
int srv_learner_browser_sim_admit(srv_store *st, int64_t learner_id, double *retry_after_s, lab_error *err);

/* GPU runs of a learner: a burst of per_minute queued, refilled each
 * minute. admit counts one (or refuses); undo forgets it. */
int srv_learner_gpu_admit(srv_store *st, int64_t learner_id, long per_minute, int64_t *ticket,
                          double *retry_after_s, lab_error *err);
void srv_learner_gpu_undo(srv_store *st, int64_t ticket);

/* Quiz attempts of a learner: a burst of SRV_QUIZ_ATTEMPTS_PER_MINUTE
 * scored, refilled each minute, so a script cannot fill the store (or
 * search the answer key) with attempts. admit counts one (or refuses:
 * rate_limited, *retry_after_s); srv_learner_quiz_undo forgets it. */
#define SRV_QUIZ_ATTEMPTS_PER_MINUTE 6
int srv_learner_quiz_admit(srv_store *st, int64_t learner_id, int64_t *ticket, double *retry_after_s,
                           lab_error *err);
void srv_learner_quiz_undo(srv_store *st, int64_t ticket);
/* CPU time this thread has used, in ms (what a simulation costs). */
double srv_thread_cpu_ms(void);

#endif
