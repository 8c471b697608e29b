/* The class store: learners, their sessions, runs, quiz attempts and the
 * windows their limits count in. One
 * interface (a table of operations) so a networked database can replace the
 * embedded SQLite one (store_sqlite.c) when a class outgrows one machine.
 * Every function returns 0, or -1 with err set: a locked database is
 * store_busy, a full disk or I/O error store_unavailable. Thread-safe. */
#ifndef SRV_STORE_H
#define SRV_STORE_H

#include <stdint.h>

#include "error.h"

#define SRV_HASH_BYTES 32 /* SHA-256 */
#define SRV_NAME_MAX 40   /* a learner's display name, in characters */
#define SRV_NAME_BYTES (SRV_NAME_MAX * 4) /* … of UTF-8 */

typedef struct srv_store srv_store;

/* A learner: one person in one browser, remembered by a long-lived cookie
 * (only its hash is stored). Limits and quotas belong to the learner, so
 * joining again (a new session) lifts none of them. */
typedef struct srv_store_learner {
  int64_t id;
  char name[SRV_NAME_BYTES + 1]; /* the name given at the latest join */
  double gpu_ms_used; /* charged when a run is queued (an estimate), settled when it ran, refunded if it never did */
  double cpu_ms_used; /* CPU time of the runs answered at once (simulated) */
} srv_store_learner;

/* A session as the server uses it; the token itself is never stored. */
typedef struct srv_store_session {
  int64_t id;
  int64_t learner_id; /* 0 for a session from before learners existed (it must join again) */
  char name[SRV_NAME_BYTES + 1];
  int64_t created_ms;   /* unix time, ms */
  int64_t last_seen_ms; /* as last noted (see session_find) */
  double gpu_ms_used;   /* the learner's, as srv_store_learner */
  double cpu_ms_used;   /* the learner's */
} srv_store_session;

/* The operations a store implements; the srv_store_* functions below call
 * them. JSON outputs are new cJSON values the caller owns. */
typedef struct srv_store_ops {
  void (*close)(srv_store *s);
  int (*learner_add)(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                     srv_store_learner *out, lab_error *err);
  int (*learner_find)(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                      srv_store_learner *out, lab_error *err);
  int (*session_add)(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name, int64_t learner_id,
                     srv_store_session *out, lab_error *err);
  int (*session_find)(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], int64_t touch_after_ms,
                      srv_store_session *out, lab_error *err);
  int (*session_end)(srv_store *s, int64_t session_id, lab_error *err);
  int (*learner_gpu_ms)(srv_store *s, int64_t learner_id, double *ms, lab_error *err);
  int (*sessions_active)(srv_store *s, int64_t *count, lab_error *err);
  int (*run_add)(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                 const char *backend, double reserve_ms, int64_t *run_id, lab_error *err);
  int (*run_record)(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                    const char *backend, const char *result_json, double cpu_ms, long keep, int64_t *run_id,
                    lab_error *err);
  int (*run_start)(srv_store *s, int64_t run_id, lab_error *err);
  int (*run_finish)(srv_store *s, int64_t run_id, const char *status, const char *error_code,
                    const char *result_json, double gpu_ms, lab_error *err);
  int (*run_get)(srv_store *s, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err);
  int (*runs_list)(srv_store *s, int64_t session_id, cJSON **out, lab_error *err);
  int (*runs_unfinished)(srv_store *s, cJSON **out, lab_error *err);
  int (*quiz_add)(srv_store *s, int64_t session_id, const char *lesson, double score, double total, int passed,
                  const char *answers_json, lab_error *err);
  int (*quiz_list)(srv_store *s, int64_t session_id, cJSON **out, lab_error *err);
  int (*class_overview)(srv_store *s, cJSON **out, lab_error *err);
  int (*limit_check)(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                     double max_cost, double *retry_after_s, lab_error *err);
  int (*limit_add)(srv_store *s, const char *kind, const char *subject, double cost, int64_t *event_id,
                   lab_error *err);
  int (*limit_cost)(srv_store *s, int64_t event_id, double cost, lab_error *err);
  int (*limit_undo)(srv_store *s, int64_t event_id, lab_error *err);
} srv_store_ops;

/* Every implementation's handle starts with this. */
struct srv_store {
  const srv_store_ops *ops;
};

/* Opens (creating if needed) the embedded SQLite store at path: WAL,
 * foreign keys, a busy timeout, the schema (older schemas are upgraded).
 * Once open, a database file removed or replaced under it makes every
 * operation fail with store_unavailable. */
int srv_store_open(const char *path, srv_store **out, lab_error *err);
/* NULL is allowed. */
void srv_store_close(srv_store *s);

/* Learners. learner_find answers no_session for an unknown cookie hash;
 * a name given (not NULL) becomes the learner's name. */
int srv_store_learner_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          srv_store_learner *out, lab_error *err);
int srv_store_learner_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                           srv_store_learner *out, lab_error *err);
/* GPU time charged to the learner (queued runs' estimates included). */
int srv_store_learner_gpu_ms(srv_store *s, int64_t learner_id, double *ms, lab_error *err);

/* Sessions, each of one learner. session_find answers no_session for an
 * unknown or ended one, and notes last_seen when it is older than
 * touch_after_ms (so a busy learner costs a write at most that often). */
int srv_store_session_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          int64_t learner_id, srv_store_session *out, lab_error *err);
int srv_store_session_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], int64_t touch_after_ms,
                           srv_store_session *out, lab_error *err);
int srv_store_session_end(srv_store *s, int64_t session_id, lab_error *err);
/* Sessions joined and not ended. */
int srv_store_sessions_active(srv_store *s, int64_t *count, lab_error *err);

/* Runs. run_add: status queued, reserve_ms charged to the learner at
 * once. run_start: running. run_finish: status done|failed|cancelled,
 * error_code NULL unless failed, result_json the full envelope (or NULL);
 * adds gpu_ms to the session's total and settles the learner's charge to
 * gpu_ms (a run that never started is refunded in full). */
int srv_store_run_add(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                      const char *backend, double reserve_ms, int64_t *run_id, lab_error *err);
/* A run answered at once (simulated): stored as done in one step, so it can
 * never be left looking queued; cpu_ms is charged to the learner, and of
 * the learner's runs answered at once only the newest `keep` are kept. */
int srv_store_run_record(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                         const char *backend, const char *result_json, double cpu_ms, long keep, int64_t *run_id,
                         lab_error *err);
int srv_store_run_start(srv_store *s, int64_t run_id, lab_error *err);
int srv_store_run_finish(srv_store *s, int64_t run_id, const char *status, const char *error_code,
                         const char *result_json, double gpu_ms, lab_error *err);
/* One run of that session: {"id","experiment","params","backend","status",
 * "error_code","result","queued_at","started_at","finished_at","gpu_ms"}
 * (times ISO 8601 UTC or null). Another session's run → unknown_run. */
int srv_store_run_get(srv_store *s, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err);
/* That session's runs, newest first, without results:
 * [{"id","experiment","backend","status","error_code","queued_at","started_at","finished_at"}]. */
int srv_store_runs_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err);
/* Every queued or running run, oldest first (for start-up recovery):
 * [{"id","session_id","learner_id","experiment","params","backend","status","queued_at"}]. */
int srv_store_runs_unfinished(srv_store *s, cJSON **out, lab_error *err);

/* Quiz attempts; quiz_list: [{"lesson","score","total","passed","at"}], newest first. */
int srv_store_quiz_add(srv_store *s, int64_t session_id, const char *lesson, double score, double total, int passed,
                       const char *answers_json, lab_error *err);
int srv_store_quiz_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err);

/* The instructor's view: {"learners":[{"id","name","created","last_seen",
 * "active","gpu_seconds_used","learner_id","runs":{"total","queued","running","done",
 * "failed","cancelled"},"quiz":[{"lesson","score","total","passed","at"}]}],
 * "waiting":[{"id","session_id","name","experiment","status","queued_at"}]}. */
int srv_store_class_overview(srv_store *s, cJSON **out, lab_error *err);

/* Limits: a token bucket for each kind of event ("gpu_run", "join", …)
 * and subject (a learner id, a client address), kept as the events with
 * their costs. The bucket holds max_count events and max_cost of cost
 * (≤ 0: no cost limit) and refills both in window_ms: a burst of
 * max_count, then max_count per window_ms sustained. limit_check is 0
 * while it admits one more; else rate_limited with *retry_after_s = when it
 * will. limit_add records one now; limit_cost sets its cost once known
 * (the CPU time a run took); limit_undo removes it (a request refused
 * after all). Old events are dropped as new ones come. */
int srv_store_limit_check(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                          double max_cost, double *retry_after_s, lab_error *err);
int srv_store_limit_add(srv_store *s, const char *kind, const char *subject, double cost, int64_t *event_id,
                        lab_error *err);
int srv_store_limit_cost(srv_store *s, int64_t event_id, double cost, lab_error *err);
int srv_store_limit_undo(srv_store *s, int64_t event_id, lab_error *err);

/* ms since the epoch now, on the clock the store's times use. */
int64_t srv_store_now_ms(void);
/* ms since the epoch as ISO 8601 UTC with ms: "2025-03-01T09:30:00.123Z". */
void srv_store_time_iso(int64_t ms, char out[32]);

/* Test hook (SQLite only): caps the database at its current size plus
 * extra_pages, so a test can see a full disk answered as store_unavailable. */
int srv_store_sqlite_cap_pages(srv_store *s, long extra_pages, lab_error *err);

#endif
