/* The store's public functions (store.h): each calls the open store's implementation
 * (store_sqlite*.c or store_pg*.c), so callers never name the database they
 * use. */
#include "store_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"

const char *srv_store_kind(const srv_store *s) { return s->ops->kind; }

const char *srv_store_transport(const srv_store *s) {
  return s->ops->transport ? s->ops->transport(s) : "local file";
}

int srv_store_shared(const srv_store *s) { return s->ops->queue_claim != NULL; }

/* An operation only a store shared by several processes has. */
static int unshared(lab_error *err) {
  return lab_fail(err, LAB_E_USAGE, "store",
                  "this needs a store that several processes share: start with --store postgresql://… "
                  "(docs/deploy.md)");
}
#define SHARED_OP(op, ...) (s->ops->op ? s->ops->op(s, __VA_ARGS__) : unshared(err))

void srv_store_close(srv_store *s) {
  if (s) s->ops->close(s);
}

int srv_store_learner_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          srv_store_learner *out, lab_error *err) {
  return s->ops->learner_add(s, hash, name, out, err);
}

int srv_store_learner_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                           srv_store_learner *out, lab_error *err) {
  return s->ops->learner_find(s, hash, name, out, err);
}

int srv_store_learner_gpu_ms(srv_store *s, int64_t learner_id, double *ms, lab_error *err) {
  return s->ops->learner_gpu_ms(s, learner_id, ms, err);
}

int srv_store_session_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          int64_t learner_id, srv_store_session *out, lab_error *err) {
  return s->ops->session_add(s, hash, name, learner_id, out, err);
}

int srv_store_session_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], int64_t touch_after_ms,
                           srv_store_session *out, lab_error *err) {
  return s->ops->session_find(s, hash, touch_after_ms, out, err);
}

int srv_store_session_end(srv_store *s, int64_t session_id, lab_error *err) {
  return s->ops->session_end(s, session_id, err);
}

int srv_store_sessions_active(srv_store *s, int64_t *count, lab_error *err) {
  return s->ops->sessions_active(s, count, err);
}

int srv_store_run_add(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                      const char *backend, double reserve_ms, int64_t *run_id, lab_error *err) {
  return s->ops->run_add(s, session_id, experiment, params_json, backend, reserve_ms, run_id, err);
}

int srv_store_run_record(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                         const char *backend, const char *result_json, double cpu_ms, long keep, int64_t *run_id,
                         lab_error *err) {
  return s->ops->run_record(s, session_id, experiment, params_json, backend, result_json, cpu_ms, keep, run_id, err);
}

int srv_store_run_start(srv_store *s, int64_t run_id, lab_error *err) { return s->ops->run_start(s, run_id, err); }

int srv_store_run_finish(srv_store *s, int64_t run_id, const char *status, const char *error_code,
                         const char *result_json, double gpu_ms, lab_error *err) {
  return s->ops->run_finish(s, run_id, status, error_code, result_json, gpu_ms, err);
}

int srv_store_run_get(srv_store *s, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err) {
  return s->ops->run_get(s, session_id, run_id, out, err);
}

int srv_store_runs_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err) {
  return s->ops->runs_list(s, session_id, out, err);
}

int srv_store_runs_unfinished(srv_store *s, cJSON **out, lab_error *err) {
  return s->ops->runs_unfinished(s, out, err);
}

int srv_store_quiz_add(srv_store *s, int64_t session_id, const char *lesson, double score, double total, int passed,
                       const char *answers_json, lab_error *err) {
  return s->ops->quiz_add(s, session_id, lesson, score, total, passed, answers_json, err);
}

int srv_store_quiz_list(srv_store *s, int64_t session_id, cJSON **out, lab_error *err) {
  return s->ops->quiz_list(s, session_id, out, err);
}

int srv_store_class_overview(srv_store *s, cJSON **out, lab_error *err) {
  return s->ops->class_overview(s, out, err);
}

/* The learner entry of id, or NULL. Learners come in id order, so a
 * binary search keeps assembling linear in the rows whatever the class size. */
int srv_store_quiz_page(srv_store *s, int64_t learner_id, int64_t offset, long limit, cJSON **out, int64_t *total,
                        lab_error *err) {
  if (limit < 1 || limit > SRV_QUIZ_PAGE_MAX) limit = SRV_QUIZ_PAGE_MAX;
  return s->ops->quiz_page(s, learner_id, offset, limit, out, total, err);
}

int srv_store_handin_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *kit_json,
                         const char *summary_json, long keep, int64_t *id, long *kept, lab_error *err) {
  return s->ops->handin_add(s, session_id, learner_id, kit_json, summary_json, keep, id, kept, err);
}

int srv_store_handins_mine(srv_store *s, int64_t learner_id, cJSON **out, lab_error *err) {
  return s->ops->handins_mine(s, learner_id, out, err);
}

int srv_store_handins_class(srv_store *s, cJSON **out, lab_error *err) { return s->ops->handins_class(s, out, err); }

int srv_store_limit_check(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                          double max_cost, double *retry_after_s, lab_error *err) {
  return s->ops->limit_check(s, kind, subject, window_ms, max_count, max_cost, retry_after_s, err);
}

int srv_store_limit_add(srv_store *s, const char *kind, const char *subject, double cost, int64_t *event_id,
                        lab_error *err) {
  return s->ops->limit_add(s, kind, subject, cost, event_id, err);
}

int srv_store_limit_cost(srv_store *s, int64_t event_id, double cost, lab_error *err) {
  return s->ops->limit_cost(s, event_id, cost, err);
}

int srv_store_limit_undo(srv_store *s, int64_t event_id, lab_error *err) {
  return s->ops->limit_undo(s, event_id, err);
}

int srv_store_limit_take(srv_store *s, const char *kind, const char *subject, int64_t window_ms, long max_count,
                         double max_cost, double *retry_after_s, int64_t *event_id, lab_error *err) {
  return s->ops->limit_take(s, kind, subject, window_ms, max_count, max_cost, retry_after_s, event_id, err);
}

int srv_store_class_get(srv_store *s, srv_store_class *out, int *exists, lab_error *err) {
  return s->ops->class_get(s, out, exists, err);
}

int srv_store_class_create(srv_store *s, const srv_store_class *wanted, srv_store_class *out, int *created,
                           lab_error *err) {
  return s->ops->class_create(s, wanted, out, created, err);
}

int srv_store_class_update(srv_store *s, const char *config_json, const unsigned char *hash, lab_error *err) {
  return s->ops->class_update(s, config_json, hash, err);
}

int srv_store_queue_add(srv_store *s, int64_t session_id, int64_t learner_id, const char *experiment,
                        const char *params_json, double reserve_ms, long learner_cap, long queue_max,
                        const char *request_id, int64_t *run_id, int *mine, int *waiting, lab_error *err) {
  return SHARED_OP(queue_add, session_id, learner_id, experiment, params_json, reserve_ms, learner_cap, queue_max,
                   request_id, run_id, mine, waiting, err);
}

const char *const srv_store_run_state[SRV_RUN_STATES] = {"queued", "running", "done", "failed", "cancelled"};

int srv_store_run_totals(srv_store *s, srv_store_totals *out, lab_error *err) {
  memset(out, 0, sizeof *out);
  return SHARED_OP(run_totals, out, err);
}

int srv_store_runs_count_claim(srv_store *s, int64_t run_id, int max, srv_store_counted *out, int *n,
                               lab_error *err) {
  *n = 0;
  return SHARED_OP(runs_count_claim, run_id, max, out, n, err);
}

int srv_store_queue_claim(srv_store *s, int64_t worker_id, srv_store_claim *out, int *got, lab_error *err) {
  return SHARED_OP(queue_claim, worker_id, out, got, err);
}

int srv_store_queue_finish(srv_store *s, int64_t worker_id, int64_t run_id, const char *status,
                           const char *error_code, const char *result_json, double gpu_ms, lab_error *err) {
  return SHARED_OP(queue_finish, worker_id, run_id, status, error_code, result_json, gpu_ms, err);
}

int srv_store_queue_hand_back(srv_store *s, int64_t worker_id, int64_t run_id, const char *error_code,
                              const char *fail_json, int *requeued, lab_error *err) {
  return SHARED_OP(queue_hand_back, worker_id, run_id, error_code, fail_json, requeued, err);
}

int srv_store_queue_cancel(srv_store *s, int64_t session_id, int64_t run_id, lab_error *err) {
  return SHARED_OP(queue_cancel, session_id, run_id, err);
}

int srv_store_queue_wait(srv_store *s, double timeout_s, lab_error *err) { return SHARED_OP(queue_wait, timeout_s, err); }

int srv_store_queue_snapshot(srv_store *s, srv_store_queue_view **out, lab_error *err) {
  *out = NULL;
  return SHARED_OP(queue_snapshot, out, err);
}

void srv_store_queue_view_free(srv_store_queue_view *v) {
  if (!v) return;
  free(v->running);
  free(v->queued);
  free(v);
}

int srv_store_worker_add(srv_store *s, const srv_store_worker *w, int64_t *id, lab_error *err) {
  return SHARED_OP(worker_add, w, id, err);
}

int srv_store_worker_beat(srv_store *s, int64_t id, int64_t run_id, long restarts, lab_error *err) {
  return SHARED_OP(worker_beat, id, run_id, restarts, err);
}

int srv_store_worker_health_set(srv_store *s, int64_t id, const srv_store_worker_health *h, lab_error *err) {
  return SHARED_OP(worker_health, id, h, err);
}

int srv_store_worker_gone(srv_store *s, int64_t id, lab_error *err) { return SHARED_OP(worker_gone, id, err); }

int srv_store_workers_reap(srv_store *s, int *handed_back, int *failed, lab_error *err) {
  return SHARED_OP(workers_reap, handed_back, failed, err);
}

int srv_store_workers_list(srv_store *s, cJSON **out, lab_error *err) { return SHARED_OP(workers_list, out, err); }

/* ---- roles ------------------------------------------------------------------------ */

int srv_store_role_open(srv_store *s, srv_store_role_id id, srv_store_role **out, lab_error *err) {
  *out = NULL;
  if (s->ops->role_open) return s->ops->role_open(s, id, out, err);
  srv_store_role *r = calloc(1, sizeof *r); /* the only process: always the holder */
  if (!r) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  r->store = s;
  *out = r;
  return 0;
}

int srv_store_role_hold(srv_store_role *r, int *held, int *others, lab_error *err) {
  if (r->store->ops->role_hold) return r->store->ops->role_hold(r, held, others, err);
  *held = 1;
  *others = 0;
  return 0;
}

void srv_store_role_close(srv_store_role *r) {
  if (!r) return;
  if (r->store->ops->role_close) r->store->ops->role_close(r);
  else free(r);
}
