/* Counters for /metrics and the request log line (see metrics.h). The run
 * time histogram's buckets span a fake 0.1 s run to the longest deadline
 * a class is likely to allow (300 s). */
#include "metrics.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_STATUS 600
static _Atomic unsigned long requests[N_STATUS];

static const double bucket_le[] = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
#define N_BUCKETS (sizeof bucket_le / sizeof bucket_le[0])
#define N_RUN_STATUS 4
static const char *const run_status[N_RUN_STATUS] = {"done", "failed", "cancelled", "other"};

static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long run_buckets[N_BUCKETS]; /* not cumulative; summed when printed */
static unsigned long run_count, runs_by_status[N_RUN_STATUS];
static double run_sum_s;

static _Atomic unsigned long refusals[SRV_REFUSAL_COUNT];
static const char *const refusal_what[] = {
#define X_WHAT(id, what, reason) what,
    SRV_REFUSALS(X_WHAT)
#undef X_WHAT
};
static const char *const refusal_reason[] = {
#define X_REASON(id, what, reason) reason,
    SRV_REFUSALS(X_REASON)
#undef X_REASON
};

void srv_metrics_refused(srv_refusal r) {
  if ((unsigned)r < SRV_REFUSAL_COUNT) refusals[r]++;
}
unsigned long srv_metrics_refusals(srv_refusal r) { return (unsigned)r < SRV_REFUSAL_COUNT ? refusals[r] : 0; }
const char *srv_refusal_reason(srv_refusal r) { return (unsigned)r < SRV_REFUSAL_COUNT ? refusal_reason[r] : "?"; }
const char *srv_refusal_what(srv_refusal r) { return (unsigned)r < SRV_REFUSAL_COUNT ? refusal_what[r] : "?"; }

void srv_metrics_request(int status) {
  if (status >= 100 && status < N_STATUS) requests[status]++;
}

void srv_metrics_run(double seconds, const char *status) {
  int k = N_RUN_STATUS - 1;
  for (int i = 0; i < N_RUN_STATUS - 1; i++)
    if (status && strcmp(status, run_status[i]) == 0) k = i;
  pthread_mutex_lock(&runs_lock);
  runs_by_status[k]++;
  if (k == 2) { /* a cancelled run never ran: it has no run time */
    pthread_mutex_unlock(&runs_lock);
    return;
  }
  for (size_t i = 0; i < N_BUCKETS; i++)
    if (seconds <= bucket_le[i]) {
      run_buckets[i]++;
      break;
    }
  run_count++;
  run_sum_s += seconds;
  pthread_mutex_unlock(&runs_lock);
}

void srv_metrics_reset(void) {
  for (int i = 0; i < N_STATUS; i++) requests[i] = 0;
  for (int i = 0; i < SRV_REFUSAL_COUNT; i++) refusals[i] = 0;
  pthread_mutex_lock(&runs_lock);
  memset(run_buckets, 0, sizeof run_buckets);
  memset(runs_by_status, 0, sizeof runs_by_status);
  run_count = 0;
  run_sum_s = 0;
  pthread_mutex_unlock(&runs_lock);
}

typedef struct sbuf {
  char *p;
  size_t len, cap;
  int failed;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
  if (b->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = 1;
      return;
    }
    if ((size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap * 2 + (size_t)n;
    char *grown = realloc(b->p, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->p = grown;
    b->cap = cap;
  }
}

/* Each family once, with its reasons in table order (zeros too, so a
 * dashboard sees the series before the first refusal). */
static void put_refusals(sbuf *b) {
  static const char *const help[] = {
      "join", "Joins refused, by reason: class_window (the class's join window: --class-size, --join-rate), "
              "bad_join_code, guesses_from_address and guesses_in_class (the wrong-guess budgets).",
      "instructor", "Instructor requests refused, by reason: bad_token, guesses_from_address and guesses_in_class "
                    "(the wrong-guess budgets; a right token is never refused)."};
  for (size_t f = 0; f < sizeof help / sizeof help[0]; f += 2) {
    put(b, "# HELP gpulab_%s_refused_total %s\n# TYPE gpulab_%s_refused_total counter\n", help[f], help[f + 1],
        help[f]);
    for (int i = 0; i < SRV_REFUSAL_COUNT; i++)
      if (strcmp(refusal_what[i], help[f]) == 0)
        put(b, "gpulab_%s_refused_total{reason=\"%s\"} %lu\n", help[f], refusal_reason[i], (unsigned long)refusals[i]);
  }
}

/* The course-wide families (a shared store): the same on every server, so
 * a dashboard takes max() over the servers, not sum(). */
static void put_course(sbuf *b, const srv_metrics_gauges *g) {
  if (!g->course_known) return;
  put(b, "# HELP gpulab_course_runs GPU runs of the whole course in the shared store, by state (every server's; "
         "read at most every few seconds).\n# TYPE gpulab_course_runs gauge\n");
  for (int i = 0; i < g->course_states && i < 8; i++)
    put(b, "gpulab_course_runs{state=\"%s\"} %ld\n", g->course_state[i], g->course_runs[i]);
  put(b, "# HELP gpulab_queue_wait_seconds Time GPU runs of the course waited in the queue, from enqueue to the claim "
         "that ran them (from the shared store: every server's runs).\n# TYPE gpulab_queue_wait_seconds histogram\n");
  for (int i = 0; i < g->wait_buckets && i < 16; i++)
    put(b, "gpulab_queue_wait_seconds_bucket{le=\"%g\"} %ld\n", g->wait_le_s[i], g->wait_le[i]);
  put(b, "gpulab_queue_wait_seconds_bucket{le=\"+Inf\"} %ld\ngpulab_queue_wait_seconds_sum %.3f\n"
         "gpulab_queue_wait_seconds_count %ld\n",
      g->waited, g->waited_s, g->waited);
}

/* Runs on the server's own CPU, by kind, and the reader uploads: what a
 * crowd of readers or of simulations does to the slots, in one place. */
static void put_cpu_runs(sbuf *b, const srv_metrics_gauges *g) {
  if (g->run_kinds > 0) {
    put(b, "# HELP gpulab_cpu_slots Runs the server computes at once on its own CPU (--sim-slots), and of them the "
           "most reader runs.\n# TYPE gpulab_cpu_slots gauge\ngpulab_cpu_slots{kind=\"all\"} %d\n"
           "gpulab_cpu_slots{kind=\"reader\"} %d\n",
        g->cpu_slots, g->reader_slots);
    static const char *const family[4][2] = {
        {"cpu_runs_running", "Runs holding a slot now, by kind (simulated; reader: explain, doctor)."},
        {"cpu_runs_waiting", "Runs waiting for a slot now, by kind."},
        {"cpu_runs_busy_total", "Runs refused with 503 busy: every slot held and no room to wait, by kind."},
        {"cpu_runs_abandoned_total", "Runs whose client hung up before or while they ran (not run, or stopped), by "
                                     "kind."}};
    for (int f = 0; f < 4; f++) {
      put(b, "# HELP gpulab_%s %s\n# TYPE gpulab_%s %s\n", family[f][0], family[f][1], family[f][0],
          f < 2 ? "gauge" : "counter");
      for (int k = 0; k < g->run_kinds && k < 2; k++) {
        unsigned long v = f == 0   ? (unsigned long)g->runs_in_slots[k]
                          : f == 1 ? (unsigned long)g->runs_waiting[k]
                          : f == 2 ? g->runs_busy[k]
                                   : g->runs_abandoned[k];
        put(b, "gpulab_%s{kind=\"%s\"} %lu\n", family[f][0], g->run_kind[k], v);
      }
    }
  }
  if (g->reader_uploads_max <= 0) return;
  static const char *const refused_reason[3] = {"address", "learner", "server"};
  static const char *const cut_reason[2] = {"deadline", "cpu_budget"};
  put(b, "# HELP gpulab_reader_uploads Uploads to the readers (explain, doctor) in flight now.\n"
         "# TYPE gpulab_reader_uploads gauge\ngpulab_reader_uploads %ld\n"
         "# HELP gpulab_reader_uploads_max Uploads to the readers the server takes at once (a quarter of its "
         "threads).\n"
         "# TYPE gpulab_reader_uploads_max gauge\ngpulab_reader_uploads_max %ld\n"
         "# HELP gpulab_reader_refused_total Uploads to the readers refused with 503 busy before a byte was read, by "
         "reason: address (4 in flight from it), learner (2 of theirs), server (all it takes).\n"
         "# TYPE gpulab_reader_refused_total counter\n",
      g->reader_uploads, g->reader_uploads_max);
  for (int i = 0; i < 3; i++)
    put(b, "gpulab_reader_refused_total{reason=\"%s\"} %lu\n", refused_reason[i], g->reader_refused[i]);
  put(b, "# HELP gpulab_reader_cut_total Reader runs stopped past their deadline or the CPU budget, by reason.\n"
         "# TYPE gpulab_reader_cut_total counter\n");
  for (int i = 0; i < 2; i++) put(b, "gpulab_reader_cut_total{reason=\"%s\"} %lu\n", cut_reason[i], g->reader_cut[i]);
  static const char *const linger_end[4] = {"client", "idle", "time", "bytes"};
  put(b, "# HELP gpulab_reader_linger_total Lingering closes after a cut upload, by how they ended: client (it "
         "closed, having read the answer), idle (no byte for 10 s), time (30 s in all), bytes (the route's largest "
         "upload dropped). A client still sending when the server ends one may read a reset instead of the answer.\n"
         "# TYPE gpulab_reader_linger_total counter\n");
  for (int i = 0; i < 4; i++) put(b, "gpulab_reader_linger_total{end=\"%s\"} %lu\n", linger_end[i], g->reader_linger[i]);
}

char *srv_metrics_text(const srv_metrics_gauges *g) {
  sbuf b = {.p = malloc(4096), .cap = 4096};
  if (!b.p) return NULL;
  b.p[0] = 0;
  put(&b, "# HELP gpulab_requests_total HTTP requests answered, by status code.\n"
          "# TYPE gpulab_requests_total counter\n");
  for (int i = 100; i < N_STATUS; i++) {
    unsigned long n = requests[i];
    if (n) put(&b, "gpulab_requests_total{code=\"%d\"} %lu\n", i, n);
  }
  put(&b, "# HELP gpulab_queue_length GPU runs waiting in the queue.\n# TYPE gpulab_queue_length gauge\n"
          "gpulab_queue_length %ld\n",
      g->queue_length);
  put(&b, "# HELP gpulab_queue_running GPU runs on a GPU now.\n# TYPE gpulab_queue_running gauge\n"
          "gpulab_queue_running %ld\n",
      g->queue_running);
  pthread_mutex_lock(&runs_lock);
  put(&b, "# HELP gpulab_run_seconds Wall time of finished GPU runs this server counted (worker call, queue wait "
          "excluded; with a shared store, each run counted by one server only: sum over the servers).\n"
          "# TYPE gpulab_run_seconds histogram\n");
  unsigned long cum = 0;
  for (size_t i = 0; i < N_BUCKETS; i++) {
    cum += run_buckets[i];
    put(&b, "gpulab_run_seconds_bucket{le=\"%g\"} %lu\n", bucket_le[i], cum);
  }
  put(&b, "gpulab_run_seconds_bucket{le=\"+Inf\"} %lu\ngpulab_run_seconds_sum %.6f\ngpulab_run_seconds_count %lu\n",
      run_count, run_sum_s, run_count);
  put(&b, "# HELP gpulab_runs_total Finished GPU runs this server counted, by final status (a shared store: each by one server).\n# TYPE gpulab_runs_total counter\n");
  for (int i = 0; i < N_RUN_STATUS; i++)
    put(&b, "gpulab_runs_total{status=\"%s\"} %lu\n", run_status[i], runs_by_status[i]);
  pthread_mutex_unlock(&runs_lock);
  put(&b, "# HELP gpulab_worker_restarts_total GPU worker processes replaced after a crash, hang or sticky error.\n"
          "# TYPE gpulab_worker_restarts_total counter\ngpulab_worker_restarts_total %ld\n",
      g->worker_restarts);
  put(&b, "# HELP gpulab_gpu_memory_used_bytes Device memory in use, as the GPU worker last saw it.\n"
          "# TYPE gpulab_gpu_memory_used_bytes gauge\n");
  for (int i = 0; i < g->gpus && i < 8; i++)
    put(&b, "gpulab_gpu_memory_used_bytes{gpu=\"%d\"} %.0f\n", i, g->gpu_used_bytes[i]);
  put(&b, "# HELP gpulab_gpu_memory_total_bytes Device memory in all.\n# TYPE gpulab_gpu_memory_total_bytes gauge\n");
  for (int i = 0; i < g->gpus && i < 8; i++)
    put(&b, "gpulab_gpu_memory_total_bytes{gpu=\"%d\"} %.0f\n", i, g->gpu_total_bytes[i]);
  put(&b, "# HELP gpulab_connections_refused_total Connections refused at once: their address held its share.\n"
          "# TYPE gpulab_connections_refused_total counter\ngpulab_connections_refused_total %lu\n",
      g->connections_refused);
  if (g->sessions_active >= 0)
    put(&b, "# HELP gpulab_sessions_active Lab sessions joined and not ended.\n"
            "# TYPE gpulab_sessions_active gauge\ngpulab_sessions_active %ld\n",
        g->sessions_active);
  if (g->workers_alive >= 0)
    put(&b, "# HELP gpulab_workers_alive GPU workers of the class with a heartbeat in the last 10 s and a usable GPU.\n"
            "# TYPE gpulab_workers_alive gauge\ngpulab_workers_alive %ld\n"
            "# HELP gpulab_workers_usable GPU workers that take runs (alive, with a usable GPU).\n"
            "# TYPE gpulab_workers_usable gauge\ngpulab_workers_usable %ld\n"
            "# HELP gpulab_workers_unusable GPU workers alive without a usable GPU: they take no runs.\n"
            "# TYPE gpulab_workers_unusable gauge\ngpulab_workers_unusable %ld\n"
            "# HELP gpulab_store_up Whether the shared class store answered this server's last look (1) or not (0).\n"
            "# TYPE gpulab_store_up gauge\ngpulab_store_up %d\n",
        g->workers_alive, g->workers_alive, g->workers_unusable, g->store_up);
  put_course(&b, g);
  put_cpu_runs(&b, g);
  if (g->workers_text) put(&b, "%s", g->workers_text);
  put_refusals(&b);
  if (b.failed) {
    free(b.p);
    return NULL;
  }
  return b.p;
}


static size_t put_escaped(char *buf, size_t n, size_t at, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *p = (const unsigned char *)(s ? s : "-"); *p && at + 4 < n; p++) {
    if (*p > 0x20 && *p < 0x7f && *p != '"' && *p != '%' && *p != '\\') {
      buf[at++] = (char)*p;
    } else {
      buf[at++] = '%';
      buf[at++] = hex[*p >> 4];
      buf[at++] = hex[*p & 15];
    }
  }
  buf[at] = 0;
  return at;
}

size_t srv_log_line(char *buf, size_t n, const char *when, const char *request_id, const char *remote,
                    const char *method, const char *path, int status, double ms, int64_t session_id) {
  if (n < 8) return 0;
  size_t at = 0;
  const char *keys[] = {"time=", " id=", " remote=", " method=", " path="};
  const char *vals[] = {when, request_id && request_id[0] ? request_id : "-", remote, method, path};
  buf[0] = 0;
  for (int i = 0; i < 5; i++) {
    int w = snprintf(buf + at, n - at, "%s", keys[i]);
    if (w < 0 || (size_t)w >= n - at) return strlen(buf); /* cut short */
    at = put_escaped(buf, n, at + (size_t)w, vals[i]);
  }
  int w = session_id > 0 ? snprintf(buf + at, n - at, " status=%d ms=%.1f session=%lld", status, ms,
                                     (long long)session_id)
                          : snprintf(buf + at, n - at, " status=%d ms=%.1f session=-", status, ms);
  (void)w; /* snprintf cut it at the buffer's end if need be */
  return strlen(buf);
}
