/* What a store backend implements and shares with the other, seen by the
 * store's own files only (server/store/): the operations table every
 * handle starts with, the PostgreSQL constructor the factory calls, and
 * the helpers that assemble answers from a backend's rows. Callers use
 * store.h; store_dispatch.c only dispatches through the table. */
#ifndef SRV_STORE_BACKEND_H
#define SRV_STORE_BACKEND_H

#include "store.h"

/* The operations a store implements; the srv_store_* functions below call
 * them. JSON outputs are new cJSON values the caller owns. The ones from
 * class_get on may be NULL in a store one process owns (SQLite): the
 * shared queue and the workers need a store several processes share. */
typedef struct srv_store_ops {
  const char *kind; /* "sqlite" or "postgresql" */
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
  int (*quiz_page)(srv_store *s, int64_t learner_id, int64_t offset, long limit, cJSON **out, int64_t *total,
                   lab_error *err);
  int (*handin_add)(srv_store *s, int64_t session_id, int64_t learner_id, const char *kit_json,
                    const char *summary_json, long keep, int64_t *id, long *kept, lab_error *err);
  int (*handins_mine)(srv_store *s, int64_t learner_id, cJSON **out, lab_error *err);
  int (*handins_class)(srv_store *s, cJSON **out, lab_error *err);
  int (*limit_check)(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                     double max_cost, double *retry_after_s, lab_error *err);
  int (*limit_add)(srv_store *s, const char *kind, const char *subject, double cost, int64_t *event_id,
                   lab_error *err);
  int (*limit_cost)(srv_store *s, int64_t event_id, double cost, lab_error *err);
  int (*limit_undo)(srv_store *s, int64_t event_id, lab_error *err);
  int (*limit_take)(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                    double max_cost, double *retry_after_s, int64_t *event_id, lab_error *err);
  int (*class_get)(srv_store *s, srv_store_class *out, int *exists, lab_error *err);
  int (*class_create)(srv_store *s, const srv_store_class *wanted, srv_store_class *out, int *created,
                      lab_error *err);
  int (*class_update)(srv_store *s, const char *config_json, const unsigned char *hash, lab_error *err);
  /* the shared GPU queue */
  int (*queue_add)(srv_store *s, int64_t session_id, int64_t learner_id, const char *experiment,
                   const char *params_json, double reserve_ms, long learner_cap, long queue_max,
                   const char *request_id, int64_t *run_id, int *mine, int *waiting, lab_error *err);
  int (*queue_claim)(srv_store *s, int64_t worker_id, srv_store_claim *out, int *got, lab_error *err);
  int (*queue_finish)(srv_store *s, int64_t worker_id, int64_t run_id, const char *status, const char *error_code,
                      const char *result_json, double gpu_ms, lab_error *err);
  int (*queue_hand_back)(srv_store *s, int64_t worker_id, int64_t run_id, const char *error_code,
                         const char *fail_json, int *requeued, lab_error *err);
  int (*queue_cancel)(srv_store *s, int64_t session_id, int64_t run_id, lab_error *err);
  int (*queue_wait)(srv_store *s, double timeout_s, lab_error *err);
  int (*queue_snapshot)(srv_store *s, srv_store_queue_view **out, lab_error *err);
  int (*run_totals)(srv_store *s, srv_store_totals *out, lab_error *err);
  int (*runs_count_claim)(srv_store *s, int64_t run_id, int max, srv_store_counted *out, int *n, lab_error *err);
  /* the GPU workers */
  int (*worker_add)(srv_store *s, const srv_store_worker *w, int64_t *id, lab_error *err);
  int (*worker_beat)(srv_store *s, int64_t id, int64_t run_id, long restarts, lab_error *err);
  int (*worker_health)(srv_store *s, int64_t id, const srv_store_worker_health *h, lab_error *err);
  int (*worker_gone)(srv_store *s, int64_t id, lab_error *err);
  int (*workers_reap)(srv_store *s, int *handed_back, int *failed, lab_error *err);
  int (*workers_list)(srv_store *s, cJSON **out, lab_error *err);
  /* roles (store.h); NULL in a store one process owns: always held */
  int (*role_open)(srv_store *s, srv_store_role_id id, srv_store_role **out, lab_error *err);
  int (*role_hold)(srv_store_role *r, int *held, int *others, lab_error *err);
  void (*role_close)(srv_store_role *r);
  const char *(*transport)(const srv_store *s); /* how it is reached, for the start's log; NULL: a local file */
} srv_store_ops;

/* Every implementation's handle starts with this. */
struct srv_store {
  const srv_store_ops *ops;
};

/* Every role's handle starts with this. */
struct srv_store_role {
  srv_store *store;
};

/* Opens the PostgreSQL store at uri (a libpq URI; the password may also come
 * from PGPASSWORD or ~/.pgpass). The first process to open an empty
 * database creates the schema, and newer gpulabs upgrade it, under an
 * advisory lock: processes starting together wait for it. */
int srv_store_pg_open(const char *uri, srv_store **out, lab_error *err);
/* For the stores: builds that answer from its three lists (all taken, even
 * on failure): each quiz summary row {"learner_id","lesson","attempts",
 * "best_score","total","passed","last_at"} goes to its learner's
 * "quiz"."lessons", adding to "attempts" and "last_at". */
int srv_store_overview_assemble(cJSON *learners, cJSON *quiz, cJSON *waiting, cJSON **out, lab_error *err);
/* Adds a learner's "runs" (counts: total, queued, running, done, failed,
 * cancelled), "sessions" {"live","total"} and an empty "quiz" summary to its
 * entry; 0, or -1 when out of memory. */
int srv_store_learner_runs(cJSON *entry, const double counts[6], double live, double total);
#endif
