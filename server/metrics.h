/* Operations: counters the server keeps for `GET /metrics` (Prometheus text
 * format 0.0.4) and the one-line request log. Counters are process-wide
 * (one server per process) and thread-safe; gauges are read at scrape time
 * by the caller and passed in. */
#ifndef SRV_METRICS_H
#define SRV_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* One answered request, by HTTP status. */
void srv_metrics_request(int status);
/* One finished GPU run: its wall time and final status (done, failed…). */
void srv_metrics_run(double seconds, const char *status);
/* Zeroes every counter (tests). */
void srv_metrics_reset(void);

typedef struct srv_metrics_gauges {
  long queue_length;  /* runs waiting */
  long queue_running; /* runs on a GPU now */
  long worker_restarts; /* summed over the GPU workers (a counter: it only grows) */
  unsigned long connections_refused; /* over their address's share (conn_gate.h; a counter) */
  long sessions_active; /* -1 when not in class mode */
  long workers_alive;   /* a shared store's GPU workers alive with a usable GPU; -1 otherwise */
  long workers_unusable; /* a shared store's GPU workers alive without one */
  const char *workers_text; /* per-worker series (workers_metrics.h), appended as they are; or NULL */
  int store_up;         /* a shared store: 1 when it answered the last look */
  int gpus;             /* entries in gpu_used/gpu_total */
  double gpu_used_bytes[8], gpu_total_bytes[8];
  /* A shared store's course-wide totals (every server's runs; store.h:
   * run_totals), when course_known: runs by state, and the queue-wait
   * histogram of the runs that started (cumulative counts over wait_le_s). */
  int course_known;
  int course_states, wait_buckets;
  const char *const *course_state; /* names, course_states of them */
  long course_runs[8];
  double wait_le_s[16];
  long wait_le[16], waited;
  double waited_s;
  /* Runs that spend the server's own CPU (sim_gate.h), by kind: run_kind
   * names them ("simulated", "reader"), run_kinds of them (0: no gate). */
  int run_kinds;
  const char *run_kind[2];
  int cpu_slots, reader_slots;
  long runs_in_slots[2], runs_waiting[2];
  unsigned long runs_busy[2], runs_abandoned[2];
  /* Uploads to the readers (reader_run.h): in flight now and their bound
   * (reader_uploads_max 0: not counted), refused by reason (address,
   * learner, server), reader runs cut short by reason (deadline, cpu_budget). */
  long reader_uploads, reader_uploads_max;
  unsigned long reader_refused[3], reader_cut[2], reader_linger[4];
} srv_metrics_gauges;

/* The whole exposition, malloc'd (caller frees); NULL when out of memory. */
char *srv_metrics_text(const srv_metrics_gauges *g);

/* The request log's one key=value line (no newline): time, id (the
 * request id, request_id.h; "-" when none), remote, method, path (no query; bytes outside printable ASCII, spaces, quotes,
 * '\\' and '%' escaped as %XX so a path cannot forge a field or a line),
 * status, ms, session (its id, never its token; "-" when session_id ≤ 0).
 * Returns the length written. */
size_t srv_log_line(char *buf, size_t n, const char *when, const char *request_id, const char *remote,
                    const char *method, const char *path, int status, double ms, int64_t session_id);

/* Refusals of joins and of the instructor's view, by reason (throttle.h):
 * X(id, what, reason). what names the counter (gpulab_<what>_refused_total). */
#define SRV_REFUSALS(X) \
  X(JOIN_WINDOW, "join", "class_window") \
  X(JOIN_BAD_CODE, "join", "bad_join_code") \
  X(JOIN_GUESSES_ADDRESS, "join", "guesses_from_address") \
  X(JOIN_GUESSES_CLASS, "join", "guesses_in_class") \
  X(INSTRUCTOR_BAD_TOKEN, "instructor", "bad_token") \
  X(INSTRUCTOR_GUESSES_ADDRESS, "instructor", "guesses_from_address") \
  X(INSTRUCTOR_GUESSES_CLASS, "instructor", "guesses_in_class")

typedef enum srv_refusal {
#define SRV_REFUSAL_ENUM(id, what, reason) SRV_REFUSED_##id,
  SRV_REFUSALS(SRV_REFUSAL_ENUM)
#undef SRV_REFUSAL_ENUM
      SRV_REFUSAL_COUNT
} srv_refusal;

/* Counts one refusal; srv_metrics_refusals reads the count (this process's). */
void srv_metrics_refused(srv_refusal r);
unsigned long srv_metrics_refusals(srv_refusal r);
/* The reason label and counter family of r ("class_window", "join"). */
const char *srv_refusal_reason(srv_refusal r);
const char *srv_refusal_what(srv_refusal r);

#endif
