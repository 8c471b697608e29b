/* The class store: the class itself (settings, join code, instructor
 * token's hash), learners, their sessions, runs, quiz attempts and the
 * windows their limits count in. One interface (a table of operations),
 * two backends: the embedded SQLite one (store_sqlite*.c) for one machine,
 * and PostgreSQL (store_pg*.c), which several servers and GPU workers share
 * and which also holds the GPU queue and the workers (docs/deploy.md).
 * Every function returns 0, or -1 with err set: a locked database is
 * store_busy, a full disk, an I/O error or a lost connection (retried at
 * the next call) store_unavailable. Thread-safe. */
#ifndef SRV_STORE_H
#define SRV_STORE_H

#include <stdint.h>

#include "error.h"

#define SRV_HASH_BYTES 32 /* SHA-256 */
#define SRV_NAME_MAX 40   /* a learner's display name, in characters */
#define SRV_NAME_BYTES (SRV_NAME_MAX * 4) /* … of UTF-8 */
#define SRV_WORKER_ALIVE_MS 10000 /* a GPU worker is alive while its heartbeat is at most this old */
#define SRV_STORE_ESTIMATES 32    /* experiments a queue view carries run-time estimates for */
/* Live sessions one learner holds at most: a browser that joins again (a
 * reload, a second tab) gets a new session and the oldest ones end, so a
 * script re-joining in a loop cannot grow the class's state. */
#define SRV_LIVE_SESSIONS_PER_LEARNER 3
#define SRV_QUIZ_PAGE_MAX 50 /* attempts one page of GET /api/instructor/attempts holds at most */

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

/* The class as a store keeps it: what every server of the class shares. */
typedef struct srv_store_class {
  char config_json[4096]; /* name, join code, limits: config.h's srv_class_config_shared_text */
  unsigned char instructor_hash[SRV_HASH_BYTES];
} srv_store_class;

/* A run a worker claimed from the shared queue. */
typedef struct srv_store_claim {
  int64_t run_id, session_id, learner_id;
  char experiment[32];
  char *params_json; /* malloc'd; the caller frees it */
  char request_id[65]; /* the request that queued it (request_id.h); "" when unknown */
} srv_store_claim;

/* The course's GPU runs as the store holds them (every server's): how many
 * in each state, and how long the started ones waited in the queue
 * (enqueue to the claim that ran them), as cumulative histogram counts over
 * SRV_QUEUE_WAIT_LE_S. */
#define SRV_QUEUE_WAIT_LE_S {0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
#define SRV_QUEUE_WAIT_BUCKETS 11
#define SRV_RUN_STATES 5 /* queued, running, done, failed, cancelled: srv_store_run_state */
extern const char *const srv_store_run_state[SRV_RUN_STATES];
typedef struct srv_store_totals {
  long by_state[SRV_RUN_STATES];
  long waited_le[SRV_QUEUE_WAIT_BUCKETS]; /* cumulative */
  long waited;                            /* runs that started */
  double waited_s;                        /* their waits summed */
} srv_store_totals;

/* A finished GPU run claimed for one process's run metrics (runs_count_claim). */
typedef struct srv_store_counted {
  int64_t run_id;
  char status[16]; /* done, failed or cancelled */
  double gpu_ms;   /* the worker's wall time of the GPU call */
} srv_store_counted;

/* One run in a queue view. */
typedef struct srv_store_queued_run {
  int64_t run_id, session_id, learner_id;
  int64_t worker_id; /* running: the worker that claimed it */
  char experiment[32];
  double elapsed_s; /* running: since it started */
} srv_store_queued_run;

/* The shared queue as it stands: what a server answers positions and
 * estimates from without asking the store at every poll. */
typedef struct srv_store_queue_view {
  srv_store_queued_run *running; /* malloc'd, n_running of them */
  srv_store_queued_run *queued;  /* malloc'd, in the order they will start */
  int n_running, n_queued;
  struct {
    char experiment[32];
    double run_s; /* mean of its recent GPU runs */
  } est[SRV_STORE_ESTIMATES];
  int n_est;
  double all_run_s; /* mean of all recent GPU runs; 0 when there were none */
  int workers_alive;    /* alive and with a usable GPU: those that take runs */
  int workers_unusable; /* alive but without a usable GPU: they take no runs */
} srv_store_queue_view;

/* What a worker can do, as it last checked: its GPU usable or not (and
 * why not), and that GPU's memory (-1 when not known). */
typedef struct srv_store_worker_health {
  int usable;
  char reason[200]; /* "" when usable */
  double mem_total_bytes, mem_used_bytes;
} srv_store_worker_health;

/* A GPU worker as it registers itself. */
typedef struct srv_store_worker {
  char kind[16];  /* "local" (inside a server), "worker" (gpulab worker), "slurm" (one under Slurm) */
  char host[128];
  int pid;
  int gpu; /* --gpu: the index among the GPUs visible to it */
  char cuda_visible_devices[128]; /* as it found it ("" when unset) */
  char slurm_job_id[32];
  const char *device_json; /* its device view (lab_device_json), or NULL */
  srv_store_worker_health health; /* as it registers */
} srv_store_worker;

/* Whether a store setting names PostgreSQL (a postgresql:// or postgres:// URI). */
int srv_store_spec_is_pg(const char *spec);
/* Opens the store a class setting names (config.h's "db"): a PostgreSQL URI
 * ("postgresql://…", store_pg*.c) or an SQLite file ("sqlite:PATH" or PATH). */
int srv_store_open_spec(const char *spec, srv_store **out, lab_error *err);
/* "sqlite" or "postgresql". */
const char *srv_store_kind(const srv_store *s);
/* How the store is reached, for logs: "local file", or a PostgreSQL
 * store's "TLS (TLSv1.3, cipher, sslmode=verify-full)" / "no TLS (sslmode=…)". */
const char *srv_store_transport(const srv_store *s);
/* Whether several processes share this store (and so it holds the GPU
 * queue and the workers): PostgreSQL. */
int srv_store_shared(const srv_store *s);
/* Where the store is, for messages: the file, or the URI without its
 * password. */
void srv_store_where(const char *spec, char *out, size_t n);

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

/* Sessions, each of one learner. session_add ends the learner's oldest
 * live sessions beyond SRV_LIVE_SESSIONS_PER_LEARNER (the new one counted).
 * session_find answers no_session for an
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

/* The instructor's view, one entry per learner, its size bounded by the
 * learners and lessons whatever they did: {"learners":[{"id","name",
 * "created","last_seen","active","sessions":{"live","total"},
 * "gpu_seconds_used","runs":{"total","queued","running","done","failed",
 * "cancelled"},"quiz":{"attempts","last_at","lessons":[{"lesson","attempts",
 * "best_score","total","passed","last_at"}]}}],
 * "waiting":[{"id","session_id","name","experiment","status","queued_at"}]}. */
int srv_store_class_overview(srv_store *s, cJSON **out, lab_error *err);
/* One page of a learner's quiz attempts, newest first, from offset:
 * [{"id","session_id","lesson","score","total","passed","at"}], at most
 * limit (1 to SRV_QUIZ_PAGE_MAX); *total is how many the learner has (0 for
 * an unknown learner). */
int srv_store_quiz_page(srv_store *s, int64_t learner_id, int64_t offset, long limit, cJSON **out, int64_t *total,
                        lab_error *err);

/* Measurement kit runs a learner handed in (POST /api/handins): the file as
 * the learner sent it (kept, never executed: read back only as data) and
 * its summary (lab/compare/compare.h, lab_compare_summary), stored in the
 * class's store and so gone with it. handin_add keeps the learner's newest
 * `keep` (the new one counted) and deletes the older ones in the same
 * step; *id is the new one's, *kept how many the learner has now. */
#define SRV_HANDINS_PER_LEARNER 3
int srv_store_handin_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *kit_json,
                         const char *summary_json, long keep, int64_t *id, long *kept, lab_error *err);
/* One learner's, newest first: [{"id","at","summary"}]. */
int srv_store_handins_mine(srv_store *s, int64_t learner_id, cJSON **out, lab_error *err);
/* The class's, newest first: [{"id","learner_id","name","at","summary"}]
 * (at most `keep` a learner: bounded by the class's learners). */
int srv_store_handins_class(srv_store *s, cJSON **out, lab_error *err);

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

/* limit_check and limit_add in one step: atomic across every process using
 * the store, so a limit holds whichever server a request reaches. */
int srv_store_limit_take(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                         double max_cost, double *retry_after_s, int64_t *event_id, lab_error *err);

/* The class. class_get: *exists is 0 while the store holds none. class_create:
 * stores `wanted` unless a class is there already (of concurrent creators
 * exactly one wins); *out is the class now stored and *created says whose
 * it is. class_update: new settings, and a new token hash unless NULL. */
int srv_store_class_get(srv_store *s, srv_store_class *out, int *exists, lab_error *err);
int srv_store_class_create(srv_store *s, const srv_store_class *wanted, srv_store_class *out, int *created,
                           lab_error *err);
int srv_store_class_update(srv_store *s, const char *config_json, const unsigned char *hash, lab_error *err);

/* ---- the shared GPU queue (a shared store only) ---------------------------
 * queue_add: run_add for the shared queue, refused atomically as the
 * in-process queue refuses (queue.h): too_many_queued when the learner has
 * learner_cap runs queued or running (0: no cap), queue_full when
 * queue_max runs wait and the learner already waits; *mine and *waiting say
 * how many there were. It wakes the workers within its transaction. */
int srv_store_queue_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *experiment,
                        const char *params_json, double reserve_ms, long learner_cap, long queue_max,
                        const char *request_id, int64_t *run_id, int *mine, int *waiting, lab_error *err);
/* Takes the next run fairly — the oldest queued run of the learner served
 * longest ago — and marks it running on worker_id, in one statement; *got
 * is 0 when nothing waits. A run worker_id handed back is left to another
 * worker while one with a usable GPU is alive. */
int srv_store_queue_claim(srv_store *s, int64_t worker_id, srv_store_claim *out, int *got, lab_error *err);
/* Ends a run worker_id claimed (as run_finish); not_cancellable when it is
 * no longer that worker's (it was handed back while the worker seemed dead). */
int srv_store_queue_finish(srv_store *s, int64_t worker_id, int64_t run_id, const char *status,
                           const char *error_code, const char *result_json, double gpu_ms, lab_error *err);
/* A run its worker could not finish (it is stopping, or the run failed
 * because of the worker: its GPU, not the learner's parameters): queued
 * again in its old place the first time (*requeued 1), for another worker;
 * failed with error_code and fail_json as its error after that. Either way
 * the learner is not charged for it, and it counts in the worker's
 * runs_failed. */
int srv_store_queue_hand_back(srv_store *s, int64_t worker_id, int64_t run_id, const char *error_code,
                              const char *fail_json, int *requeued, lab_error *err);
/* Cancels a queued run of that session: not_cancellable once a worker took
 * it or it ended, unknown_run when it is not the session's. */
int srv_store_queue_cancel(srv_store *s, int64_t session_id, int64_t run_id, lab_error *err);
/* The course's run totals (one query; callers cache it: metrics.c). */
int srv_store_run_totals(srv_store *s, srv_store_totals *out, lab_error *err);
/* Claims finished GPU runs that no process sharing the store has counted in
 * its run metrics yet: run_id > 0 that run only, else up to max of them
 * (oldest first). Each run is claimed by exactly one process, once, so the
 * servers' counters sum to the course's finished runs. *n: how many out
 * holds (max entries). */
int srv_store_runs_count_claim(srv_store *s, int64_t run_id, int max, srv_store_counted *out, int *n,
                               lab_error *err);
/* Sleeps until a run may have been queued (LISTEN/NOTIFY) or timeout_s passed. */
int srv_store_queue_wait(srv_store *s, double timeout_s, lab_error *err);
/* The queue now (caller frees with srv_store_queue_view_free). */
int srv_store_queue_snapshot(srv_store *s, srv_store_queue_view **out, lab_error *err);
void srv_store_queue_view_free(srv_store_queue_view *v);

/* ---- GPU workers (a shared store only) ------------------------------------
 * worker_add registers one (alive from now: it holds a lock on its store
 * connection while its process lives); worker_beat is its heartbeat, with
 * the run it has (0: none) and its GPU process's restarts; worker_gone
 * says it stopped. workers_reap takes a worker for dead when its heartbeat
 * is older than SRV_WORKER_ALIVE_MS or its connection is gone, and hands
 * its running run back once (queued again), failing it (worker_crashed)
 * the second time. worker_health_set stores what it found at its last device
 * check. workers_list: [{"id","kind","host","pid","gpu",
 * "cuda_visible_devices","slurm_job_id","device","state","alive",
 * "heartbeat_age_s","run_id","runs_done","restarts","started_at","usable",
 * "unusable_reason","runs_failed","gpu_memory_total_bytes",
 * "gpu_memory_used_bytes"}] (state: idle, busy, unusable or gone; memory
 * null when not known), the workers seen in the last hour, alive ones
 * first. */
int srv_store_worker_add(srv_store *s, const srv_store_worker *w, int64_t *id, lab_error *err);
int srv_store_worker_beat(srv_store *s, int64_t id, int64_t run_id, long restarts, lab_error *err);
int srv_store_worker_health_set(srv_store *s, int64_t id, const srv_store_worker_health *h, lab_error *err);
int srv_store_worker_gone(srv_store *s, int64_t id, lab_error *err);
int srv_store_workers_reap(srv_store *s, int *handed_back, int *failed, lab_error *err);
int srv_store_workers_list(srv_store *s, cJSON **out, lab_error *err);

/* ---- roles: a job one process of the class does at a time ---------------
 * (the Slurm keeper, slurm_workers.h). role_hold takes the role when it is
 * free, or checks that this process still has it: *held is 1 while it
 * does. With a shared store the role is an advisory lock of a connection
 * of the role's own, so it frees the moment its holder dies or that
 * connection breaks (and role_hold then says *held 0), and *others counts
 * the other processes that have the role open, ready to take it over. A
 * store one process owns (SQLite) always holds it, with no others.
 * role_close lets it go. */
typedef enum srv_store_role_id { SRV_STORE_ROLE_SLURM_KEEPER = 1 } srv_store_role_id;
typedef struct srv_store_role srv_store_role;
int srv_store_role_open(srv_store *s, srv_store_role_id id, srv_store_role **out, lab_error *err);
int srv_store_role_hold(srv_store_role *r, int *held, int *others, lab_error *err);
void srv_store_role_close(srv_store_role *r); /* NULL is allowed */

/* ms since the epoch now, on the clock the store's times use. */
int64_t srv_store_now_ms(void);
/* ms since the epoch as ISO 8601 UTC with ms: "2025-03-01T09:30:00.123Z". */
void srv_store_time_iso(int64_t ms, char out[32]);

/* Test hook (SQLite only): caps the database at its current size plus
 * extra_pages, so a test can see a full disk answered as store_unavailable. */
int srv_store_sqlite_cap_pages(srv_store *s, long extra_pages, lab_error *err);

#endif
