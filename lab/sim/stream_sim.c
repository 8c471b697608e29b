/* The one-stream discrete-event model: two clocks (host, GPU) and the rules
 * that move them — a launch costs the host launch_us, the GPU runs work in
 * order once it has arrived, a synchronize waits for the GPU and costs
 * sync_us. Every event can be drawn on the envelope's timeline. */
#include "stream_sim.h"

#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "text.h"

#define CPU_LANE "cpu"
#define DEFAULT_GPU_LANE "gpu:0/stream0"
#define DEFAULT_MAX_EVENTS 200

static double max2(double a, double b) { return a > b ? a : b; }

/* Whether the next event is kept: labels are formatted only then, since a
 * simulation with no timeline (graphs runs 100,000s of launches) would
 * otherwise spend most of its time in snprintf, in wasm above all. */
static int recording(const lab_stream_sim *s) {
  int cap = s->max_events > 0 ? s->max_events : DEFAULT_MAX_EVENTS;
  return s->timeline && s->events < cap;
}

static void record(lab_stream_sim *s, const char *lane, const char *label, double start_us, double end_us) {
  if (!recording(s)) return;
  cJSON *e = cJSON_CreateObject();
  if (!e) return;
  cJSON_AddStringToObject(e, "lane", lane);
  cJSON_AddStringToObject(e, "label", label ? label : "");
  cJSON_AddNumberToObject(e, "start_us", start_us);
  cJSON_AddNumberToObject(e, "end_us", end_us);
  cJSON_AddItemToArray(s->timeline, e);
  s->events++;
}

void lab_stream_init(lab_stream_sim *s, const lab_profile *prof, cJSON *env) {
  s->prof = prof;
  s->launch_us = prof->launch_us;
  s->sync_us = prof->sync_us;
  s->host_us = 0;
  s->gpu_free_us = 0;
  s->timeline = env ? cJSON_GetObjectItemCaseSensitive(env, "timeline") : NULL;
  s->gpu_lane = DEFAULT_GPU_LANE;
  s->events = 0;
  s->max_events = 0;
}

void lab_stream_host(lab_stream_sim *s, const char *label, double us) {
  if (us < 0) us = 0;
  record(s, CPU_LANE, label, s->host_us, s->host_us + us);
  s->host_us += us;
}

double lab_stream_kernel(lab_stream_sim *s, const char *label, double gpu_us) {
  if (recording(s)) {
    char buf[96];
    lab_text t;
    lab_text_init(&t, buf, sizeof buf);
    lab_text_add(&t, "launch ");
    lab_text_add(&t, label ? label : "kernel");
    record(s, CPU_LANE, buf, s->host_us, s->host_us + s->launch_us);
  }
  s->host_us += s->launch_us;
  /* A kernel never runs shorter than the GPU's minimum kernel time. */
  double run = max2(gpu_us, s->prof->kernel_min_us);
  double start = max2(s->host_us, s->gpu_free_us);
  s->gpu_free_us = start + run;
  record(s, s->gpu_lane, label, start, s->gpu_free_us);
  return s->gpu_free_us;
}

double lab_stream_kernels(lab_stream_sim *s, const char *label, double gpu_us, int count, double *first_start_us) {
  double run = max2(gpu_us, s->prof->kernel_min_us), first = -1;
  int i = 0;
  for (; i < count && recording(s); i++) { /* the same events as count calls of lab_stream_kernel */
    double end = lab_stream_kernel(s, label, gpu_us);
    if (first < 0) first = end - run;
  }
  /* Nothing more is kept: only the two clocks move. */
  double launch = s->launch_us, host = s->host_us, gpu_free = s->gpu_free_us;
  for (; i < count; i++) {
    host += launch;
    double start = max2(host, gpu_free);
    gpu_free = start + run;
    if (first < 0) first = start;
  }
  s->host_us = host;
  s->gpu_free_us = gpu_free;
  if (first_start_us) *first_start_us = first;
  return s->gpu_free_us;
}

double lab_copy_us(const lab_profile *prof, double bytes, double gbps) {
  if (bytes < 0) bytes = 0;
  /* gbps is 1e9 bytes/s, i.e. 1e3 bytes per microsecond. */
  return prof->copy_latency_us + (gbps > 0 ? bytes / (gbps * 1e3) : 0);
}

double lab_stream_copy(lab_stream_sim *s, const char *label, double bytes, double gbps, int pinned) {
  /* From pageable memory the driver first copies into its own pinned
   * staging buffer: one more fixed cost on top of the transfer itself. */
  double run = lab_copy_us(s->prof, bytes, gbps) + (pinned ? 0 : s->prof->copy_latency_us);
  double issue = s->host_us;
  s->host_us += s->launch_us;
  double start = max2(s->host_us, s->gpu_free_us);
  s->gpu_free_us = start + run;
  if (!pinned) s->host_us = s->gpu_free_us; /* a pageable cudaMemcpy returns only when the copy is done */
  if (recording(s)) { /* named only when kept; appended, not printed (lab/base/text.h) */
    char buf[96];
    lab_text t;
    lab_text_init(&t, buf, sizeof buf);
    lab_text_add(&t, pinned ? "enqueue " : "");
    lab_text_add(&t, label ? label : "copy");
    lab_text_add(&t, pinned ? "" : " (host waits: pageable)");
    record(s, CPU_LANE, buf, issue, s->host_us);
  }
  record(s, s->gpu_lane, label, start, s->gpu_free_us);
  return s->gpu_free_us;
}

double lab_stream_sync(lab_stream_sim *s, const char *label) {
  double start = s->host_us;
  s->host_us = max2(s->host_us, s->gpu_free_us) + s->sync_us;
  record(s, CPU_LANE, label ? label : "synchronize", start, s->host_us);
  return s->host_us;
}

/* ---- several streams and their engines ---- */

static const char *const engine_lane[LAB_ENGINE_COUNT] = {"gpu:0/engine/h2d", "gpu:0/engine/compute",
                                                          "gpu:0/engine/d2h"};

void lab_streams_init(lab_streams_sim *s, const lab_profile *prof, int n_streams, cJSON *env) {
  memset(s, 0, sizeof *s);
  s->prof = prof;
  s->n_streams = n_streams < 1 ? 1 : n_streams > LAB_SIM_MAX_STREAMS ? LAB_SIM_MAX_STREAMS : n_streams;
  s->timeline = env ? cJSON_GetObjectItemCaseSensitive(env, "timeline") : NULL;
  s->prefix = "";
  s->draw_engines = 1;
}

static void record_lane(lab_streams_sim *s, const char *lane, const char *label, double start_us, double end_us) {
  char name[96];
  lab_text t; /* appended, not printed (lab/base/text.h) */
  if (!s->timeline) return;
  lab_text_init(&t, name, sizeof name);
  lab_text_add(&t, s->prefix);
  lab_text_add(&t, lane);
  cJSON *e = cJSON_CreateObject();
  if (!e) return;
  cJSON_AddStringToObject(e, "lane", name);
  cJSON_AddStringToObject(e, "label", label ? label : "");
  cJSON_AddNumberToObject(e, "start_us", start_us);
  cJSON_AddNumberToObject(e, "end_us", end_us);
  cJSON_AddItemToArray(s->timeline, e);
}

double lab_streams_op(lab_streams_sim *s, int stream, lab_engine engine, const char *label, double run_us,
                      int host_waits, double *start_us) {
  char lane[32];
  if (stream < 0) stream = 0;
  if (stream >= s->n_streams) stream = s->n_streams - 1;
  if ((int)engine < 0 || engine >= LAB_ENGINE_COUNT) engine = LAB_ENGINE_COMPUTE;
  if (run_us < 0) run_us = 0;
  if (engine == LAB_ENGINE_COMPUTE && run_us < s->prof->kernel_min_us) run_us = s->prof->kernel_min_us;
  s->host_us += s->prof->launch_us;
  double start = max2(s->host_us, max2(s->stream_free_us[stream], s->engine_free_us[engine]));
  double end = start + run_us;
  s->stream_free_us[stream] = end;
  s->engine_free_us[engine] = end;
  s->engine_busy_us[engine] += run_us;
  if (host_waits) s->host_us = end;
  if (s->timeline) { /* the lane is named only for a timeline: most ops are samples, never drawn */
    lab_text t;
    lab_text_init(&t, lane, sizeof lane);
    lab_text_add(&t, "gpu:0/stream");
    lab_text_int(&t, stream);
    record_lane(s, lane, label, start, end);
    if (s->draw_engines) record_lane(s, engine_lane[engine], label, start, end);
  }
  if (start_us) *start_us = start;
  return end;
}

double lab_streams_copy(lab_streams_sim *s, int stream, lab_engine engine, const char *label, double bytes,
                        double gbps, int pinned, double *start_us) {
  double run = lab_copy_us(s->prof, bytes, gbps) + (pinned ? 0 : s->prof->copy_latency_us);
  return lab_streams_op(s, stream, engine, label, run, !pinned, start_us);
}

double lab_streams_event(const lab_streams_sim *s, int stream) {
  if (stream < 0 || stream >= s->n_streams) return s->host_us;
  return max2(s->host_us, s->stream_free_us[stream]);
}

void lab_streams_wait(lab_streams_sim *s, int stream, double event_us) {
  if (stream < 0 || stream >= s->n_streams) return;
  s->stream_free_us[stream] = max2(s->stream_free_us[stream], event_us);
}

double lab_streams_end(const lab_streams_sim *s) {
  double end = 0;
  for (int i = 0; i < s->n_streams; i++) end = max2(end, s->stream_free_us[i]);
  return end;
}
