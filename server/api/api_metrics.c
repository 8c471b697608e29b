/* GET /metrics: Prometheus text format 0.0.4. Open like /api/health (it
 * holds counts, never names or tokens); the gauges are read here, the GPU
 * memory from the runtime view the worker last reported (a scrape never
 * waits for a busy GPU). */
#include <civetweb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cjson_compat.h"
#include "class.h"
#include "clock.h"
#include "conn_gate.h"
#include "http.h"
#include "inflight.h"
#include "metrics.h"
#include "reader_run.h"
#include "runs.h"
#include "workers_metrics.h"

/* The course's totals are one scan of the runs table: read at most every
 * TOTALS_FRESH_S per server, whoever scrapes; a store that does not answer
 * leaves them out of the scrape (gpulab_store_up says why). */
#define TOTALS_FRESH_S 5.0
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static srv_store_totals totals;
static double totals_at_s = -1;
static int totals_ok;

static void course_totals(srv_store *st, srv_metrics_gauges *g) {
  if (!srv_store_shared(st)) return;
  pthread_mutex_lock(&totals_lock);
  double now = lab_clock_s();
  if (totals_at_s < 0 || now - totals_at_s >= TOTALS_FRESH_S) {
    lab_error err;
    totals_ok = srv_store_run_totals(st, &totals, &err) == 0;
    totals_at_s = now;
  }
  if (totals_ok) {
    static const double le[SRV_QUEUE_WAIT_BUCKETS] = SRV_QUEUE_WAIT_LE_S;
    g->course_known = 1;
    g->course_states = SRV_RUN_STATES;
    g->course_state = srv_store_run_state;
    for (int i = 0; i < SRV_RUN_STATES; i++) g->course_runs[i] = totals.by_state[i];
    g->wait_buckets = SRV_QUEUE_WAIT_BUCKETS;
    for (int i = 0; i < SRV_QUEUE_WAIT_BUCKETS; i++) {
      g->wait_le_s[i] = le[i];
      g->wait_le[i] = totals.waited_le[i];
    }
    g->waited = totals.waited;
    g->waited_s = totals.waited_s;
  }
  pthread_mutex_unlock(&totals_lock);
}

static void gauges(srv_app *app, srv_metrics_gauges *g) {
  memset(g, 0, sizeof *g);
  g->sessions_active = -1;
  g->workers_alive = -1;
  g->connections_refused = srv_conn_gate_refused();
  srv_class_runs *cr = app->cls ? app->cls->runs : NULL;
  if (cr) {
    g->queue_length = srv_class_runs_waiting(cr);
    g->queue_running = srv_class_runs_running(cr);
    g->worker_restarts = srv_class_runs_restarts(cr);
    g->workers_alive = srv_class_runs_workers_alive(cr);
    g->workers_unusable = srv_class_runs_workers_unusable(cr);
    g->store_up = srv_class_runs_store_ok(cr);
  } else {
    g->worker_restarts = srv_supervisor_restarts(app->runner.sup);
  }
  int64_t active = 0;
  lab_error err;
  if (app->cls && srv_store_sessions_active(app->cls->store, &active, &err) == 0) g->sessions_active = (long)active;
  if (app->cls) course_totals(app->cls->store, g);
  if (app->runner.sim) {
    srv_gate_counts c;
    srv_sim_gate_counts(app->runner.sim, &c);
    g->run_kinds = SRV_RUN_KINDS;
    g->cpu_slots = c.slots;
    g->reader_slots = c.reader_slots;
    for (int k = 0; k < SRV_RUN_KINDS; k++) {
      g->run_kind[k] = srv_run_kind_name((srv_run_kind)k);
      g->runs_in_slots[k] = c.running[k];
      g->runs_waiting[k] = c.waiting[k];
      g->runs_busy[k] = c.busy[k];
      g->runs_abandoned[k] = c.abandoned[k];
    }
  }
  if (app->reader_uploads) {
    int max = 0;
    srv_reader_counts rc;
    g->reader_uploads = srv_inflight_count(app->reader_uploads, &max);
    g->reader_uploads_max = max;
    srv_reader_counts_read(&rc);
    memcpy(g->reader_refused, rc.refused, sizeof g->reader_refused);
    memcpy(g->reader_cut, rc.cut, sizeof g->reader_cut);
    memcpy(g->reader_linger, rc.linger, sizeof g->reader_linger);
  }
  pthread_mutex_lock(&app->runner.lock);
  if (app->runner.have_rt && app->runner.rt.status == LAB_RT_OK) {
    const lab_runtime_view *rt = &app->runner.rt;
    /* Only devices whose free memory was read: the worker holds a context on one GPU. */
    for (int i = 0; i < rt->device_count && i < 8 && rt->dev[i].mem_free_known; i++) {
      g->gpu_total_bytes[i] = (double)rt->dev[i].mem_total_bytes;
      g->gpu_used_bytes[i] = (double)(rt->dev[i].mem_total_bytes - rt->dev[i].mem_free_bytes);
      g->gpus = i + 1;
    }
  }
  pthread_mutex_unlock(&app->runner.lock);
}

int srv_api_metrics(struct mg_connection *conn, void *cbdata) {
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  srv_metrics_gauges g;
  gauges(cbdata, &g);
  srv_app *app = cbdata;
  cJSON *workers = srv_class_runs_workers(app->cls ? app->cls->runs : NULL); /* a shared store's */
  char *per_worker = workers ? srv_workers_metrics(workers) : NULL;
  cJSON_Delete(workers);
  g.workers_text = per_worker;
  char *text = srv_metrics_text(&g);
  free(per_worker);
  if (!text) return srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory; retry in a few seconds");
  char length[32];
  size_t len = strlen(text);
  snprintf(length, sizeof length, "%zu", len);
  mg_response_header_start(conn, 200);
  mg_response_header_add(conn, "Content-Type", "text/plain; version=0.0.4; charset=utf-8", -1);
  mg_response_header_add(conn, "Content-Length", length, -1);
  mg_response_header_add(conn, "Cache-Control", "no-store", -1);
  srv_add_common_headers(conn);
  mg_response_header_send(conn);
  if (strcmp(mg_get_request_info(conn)->request_method, "HEAD") != 0) mg_write(conn, text, len);
  free(text);
  return 200;
}
