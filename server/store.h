/* The class store: sessions, runs and quiz attempts of a lab session. One
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

/* A session as the server uses it; the token itself is never stored. */
typedef struct srv_store_session {
  int64_t id;
  char name[SRV_NAME_BYTES + 1];
  int64_t created_ms;  /* unix time, ms */
  double gpu_ms_used;  /* GPU time its runs took */
} srv_store_session;

/* The operations a store implements; the srv_store_* functions below call
 * them. JSON outputs are new cJSON values the caller owns. */
typedef struct srv_store_ops {
  void (*close)(srv_store *s);
  int (*session_add)(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                     srv_store_session *out, lab_error *err);
  int (*session_find)(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], srv_store_session *out,
                      lab_error *err);
  int (*session_end)(srv_store *s, int64_t session_id, lab_error *err);
  int (*session_gpu_ms)(srv_store *s, int64_t session_id, double *ms, lab_error *err);
  int (*sessions_active)(srv_store *s, int64_t *count, lab_error *err);
  int (*run_add)(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                 const char *backend, int64_t *run_id, lab_error *err);
  int (*run_record)(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                    const char *backend, const char *result_json, int64_t *run_id, lab_error *err);
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
} srv_store_ops;

/* Every implementation's handle starts with this. */
struct srv_store {
  const srv_store_ops *ops;
};

/* Opens (creating if needed) the embedded SQLite store at path: WAL,
 * foreign keys, a busy timeout, the schema. */
int srv_store_open(const char *path, srv_store **out, lab_error *err);
/* NULL is allowed. */
void srv_store_close(srv_store *s);

/* Sessions. session_find answers no_session for an unknown or ended one
 * (and notes last_seen, at most once a minute). */
int srv_store_session_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          srv_store_session *out, lab_error *err);
int srv_store_session_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], srv_store_session *out,
                           lab_error *err);
int srv_store_session_end(srv_store *s, int64_t session_id, lab_error *err);
int srv_store_session_gpu_ms(srv_store *s, int64_t session_id, double *ms, lab_error *err);
/* Sessions joined and not ended. */
int srv_store_sessions_active(srv_store *s, int64_t *count, lab_error *err);

/* Runs. run_add: status queued. run_start: running. run_finish: status
 * done|failed|cancelled, error_code NULL unless failed, result_json the full
 * envelope (or NULL); adds gpu_ms to the session's total. */
int srv_store_run_add(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                      const char *backend, int64_t *run_id, lab_error *err);
/* A run answered at once (simulated): stored as done in one step, so it can
 * never be left looking queued. */
int srv_store_run_record(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                         const char *backend, const char *result_json, int64_t *run_id, lab_error *err);
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
 * [{"id","session_id","experiment","params","backend","status","queued_at"}]. */
int srv_store_runs_unfinished(srv_store *s, cJSON **out, lab_error *err);

/* Quiz attempts; quiz_list: [{"lesson","score","total","passed","at"}], newest first. */
int srv_store_quiz_add(srv_store *s, int64_t session_id, const char *lesson, double score, double total, int passed,
                       const char *answers_json, lab_error *err);
int srv_store_quiz_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err);

/* The instructor's view: {"learners":[{"id","name","created","last_seen",
 * "active","gpu_seconds_used","runs":{"total","queued","running","done",
 * "failed","cancelled"},"quiz":[{"lesson","score","total","passed","at"}]}],
 * "waiting":[{"id","session_id","name","experiment","status","queued_at"}]}. */
int srv_store_class_overview(srv_store *s, cJSON **out, lab_error *err);

/* ms since the epoch as ISO 8601 UTC with ms: "2025-03-01T09:30:00.123Z". */
void srv_store_time_iso(int64_t ms, char out[32]);

/* Test hook (SQLite only): caps the database at its current size plus
 * extra_pages, so a test can see a full disk answered as store_unavailable. */
int srv_store_sqlite_cap_pages(srv_store *s, long extra_pages, lab_error *err);

#endif
