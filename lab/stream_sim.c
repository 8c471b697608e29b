/* The one-stream discrete-event model: two clocks (host, GPU) and the rules
 * that move them — a launch costs the host launch_us, the GPU runs work in
 * order once it has arrived, a synchronize waits for the GPU and costs
 * sync_us. Every event can be drawn on the envelope's timeline. */
#include "stream_sim.h"

#include <stdio.h>

#include "cjson_compat.h"

#define CPU_LANE "cpu"
#define DEFAULT_GPU_LANE "gpu:0/stream0"
#define DEFAULT_MAX_EVENTS 200

static double max2(double a, double b) { return a > b ? a : b; }

static void record(lab_stream_sim *s, const char *lane, const char *label, double start_us, double end_us) {
  int cap = s->max_events > 0 ? s->max_events : DEFAULT_MAX_EVENTS;
  if (!s->timeline || s->events >= cap) return;
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
  char buf[96];
  snprintf(buf, sizeof buf, "launch %s", label ? label : "kernel");
  record(s, CPU_LANE, buf, s->host_us, s->host_us + s->prof->launch_us);
  s->host_us += s->prof->launch_us;
  /* A kernel never runs shorter than the GPU's minimum kernel time. */
  double run = max2(gpu_us, s->prof->kernel_min_us);
  double start = max2(s->host_us, s->gpu_free_us);
  s->gpu_free_us = start + run;
  record(s, s->gpu_lane, label, start, s->gpu_free_us);
  return s->gpu_free_us;
}

double lab_copy_us(const lab_profile *prof, double bytes, double gbps) {
  if (bytes < 0) bytes = 0;
  /* gbps is 1e9 bytes/s, i.e. 1e3 bytes per microsecond. */
  return prof->copy_latency_us + (gbps > 0 ? bytes / (gbps * 1e3) : 0);
}

double lab_stream_copy(lab_stream_sim *s, const char *label, double bytes, double gbps, int pinned) {
  char buf[96];
  /* From pageable memory the driver first copies into its own pinned
   * staging buffer: one more fixed cost on top of the transfer itself. */
  double run = lab_copy_us(s->prof, bytes, gbps) + (pinned ? 0 : s->prof->copy_latency_us);
  double issue = s->host_us;
  s->host_us += s->prof->launch_us;
  double start = max2(s->host_us, s->gpu_free_us);
  s->gpu_free_us = start + run;
  if (pinned) {
    snprintf(buf, sizeof buf, "enqueue %s", label ? label : "copy");
    record(s, CPU_LANE, buf, issue, s->host_us);
  } else {
    /* A pageable cudaMemcpy returns only when the copy is done. */
    s->host_us = s->gpu_free_us;
    snprintf(buf, sizeof buf, "%s (host waits: pageable)", label ? label : "copy");
    record(s, CPU_LANE, buf, issue, s->host_us);
  }
  record(s, s->gpu_lane, label, start, s->gpu_free_us);
  return s->gpu_free_us;
}

double lab_stream_sync(lab_stream_sim *s, const char *label) {
  double start = s->host_us;
  s->host_us = max2(s->host_us, s->gpu_free_us) + s->prof->sync_us;
  record(s, CPU_LANE, label ? label : "synchronize", start, s->host_us);
  return s->host_us;
}
