/* The store's public functions: each calls the open store's implementation
 * (store_sqlite.c today), so callers never name the database they use. */
#include "store.h"

#include <stdio.h>
#include <time.h>

void srv_store_close(srv_store *s) {
  if (s) s->ops->close(s);
}

int srv_store_session_add(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], const char *name,
                          srv_store_session *out, lab_error *err) {
  return s->ops->session_add(s, hash, name, out, err);
}

int srv_store_session_find(srv_store *s, const unsigned char hash[SRV_HASH_BYTES], srv_store_session *out,
                           lab_error *err) {
  return s->ops->session_find(s, hash, out, err);
}

int srv_store_session_end(srv_store *s, int64_t session_id, lab_error *err) {
  return s->ops->session_end(s, session_id, err);
}

int srv_store_session_gpu_ms(srv_store *s, int64_t session_id, double *ms, lab_error *err) {
  return s->ops->session_gpu_ms(s, session_id, ms, err);
}

int srv_store_sessions_active(srv_store *s, int64_t *count, lab_error *err) {
  return s->ops->sessions_active(s, count, err);
}

int srv_store_run_add(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                      const char *backend, int64_t *run_id, lab_error *err) {
  return s->ops->run_add(s, session_id, experiment, params_json, backend, run_id, err);
}

int srv_store_run_record(srv_store *s, int64_t session_id, const char *experiment, const char *params_json,
                         const char *backend, const char *result_json, int64_t *run_id, lab_error *err) {
  return s->ops->run_record(s, session_id, experiment, params_json, backend, result_json, run_id, err);
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

void srv_store_time_iso(int64_t ms, char out[32]) {
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  char day[24];
  if (ms < 0 || !gmtime_r(&t, &tm)) {
    snprintf(out, 32, "1970-01-01T00:00:00.000Z");
    return;
  }
  strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out, 32, "%.19s.%03dZ", day, (int)(ms % 1000));
}
