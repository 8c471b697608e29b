/* `gpulab doctor`: the learner's chosen step drawn as the timeline the
 * experiments draw ([{lane, label, start_us, end_us}], µs from the step's
 * start; lanes "cpu" and "gpu:N/streamK"), from the records the reader kept.
 * The host lane is flat: an outer call (.item(), a synchronize) hides the
 * calls inside it. At most DR_MAX_TIMELINE_SPANS spans: the shortest go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

typedef struct tl_span {
  double s, e;
  int32_t name;
  int16_t device;
  int32_t stream; /* -1: the host lane */
} tl_span;

static int by_start_longest(const void *x, const void *y) {
  const tl_span *a = x, *b = y;
  if (a->s != b->s) return (a->s > b->s) - (a->s < b->s);
  return (a->e < b->e) - (a->e > b->e);
}
static int by_length(const void *x, const void *y) {
  const tl_span *a = x, *b = y;
  double la = a->e - a->s, lb = b->e - b->s;
  return (la < lb) - (la > lb);
}

static double clip(double v, double a, double b) { return v < a ? a : v > b ? b : v; }

/* Adds to out the host calls overlapping [a, b), each clipped to it, the
 * lane kept flat; returns how many; *hidden counts the calls inside others. */
static long host_spans(const lab_doctor *d, double a, double b, tl_span *out, long *hidden) {
  long n = 0;
  for (long i = 0; i < d->nhost; i++) { /* sorted by ts; one pass over at most the cap */
    const dr_host *h = &d->host[i];
    if (h->ts >= b) break;
    if (h->ts + h->dur <= a) continue;
    out[n++] = (tl_span){clip(h->ts, a, b), clip(h->ts + h->dur, a, b), h->name, 0, -1};
  }
  qsort(out, (size_t)n, sizeof *out, by_start_longest);
  long k = 0;
  double end = a;
  for (long i = 0; i < n; i++) {
    if (k && out[i].s < end) {
      (*hidden)++;
      continue;
    }
    out[k++] = out[i];
    end = out[i].e;
  }
  return k;
}

int lab_dr_timeline(const lab_doctor *d, cJSON *r, double a, double b, const char *step, const char *why) {
  tl_span *sp = malloc(((size_t)d->nhost + (size_t)d->ngpu + 1) * sizeof *sp);
  if (!sp) return -1;
  long hidden = 0, n = host_spans(d, a, b, sp, &hidden);
  for (long i = 0; i < d->ngpu; i++) {
    const dr_gpu *g = &d->gpu[i];
    if (g->ts >= b) break;
    if (g->ts + g->dur <= a) continue;
    sp[n++] = (tl_span){clip(g->ts, a, b), clip(g->ts + g->dur, a, b), g->name, g->device, g->stream < 0 ? 0 : g->stream};
  }
  long left_out = hidden;
  if (n > DR_MAX_TIMELINE_SPANS) {
    qsort(sp, (size_t)n, sizeof *sp, by_length);
    left_out += n - DR_MAX_TIMELINE_SPANS;
    n = DR_MAX_TIMELINE_SPANS;
  }
  qsort(sp, (size_t)n, sizeof *sp, by_start_longest);
  cJSON *tl = cJSON_AddArrayToObject(r, "timeline");
  char lane[48];
  for (long i = 0; i < n && tl; i++) {
    cJSON *e = cJSON_CreateObject();
    if (!e) break;
    if (sp[i].stream < 0) snprintf(lane, sizeof lane, "cpu");
    else snprintf(lane, sizeof lane, "gpu:%d/stream%d", sp[i].device, (int)sp[i].stream);
    cJSON_AddStringToObject(e, "lane", lane);
    cJSON_AddStringToObject(e, "label", sp[i].name >= 0 ? d->names[sp[i].name].s : "(other)");
    /* to the nanosecond, as the trace's own times */
    cJSON_AddNumberToObject(e, "start_us", (double)(long long)((sp[i].s - a) * 1000 + 0.5) / 1000);
    cJSON_AddNumberToObject(e, "end_us", (double)(long long)((sp[i].e - a) * 1000 + 0.5) / 1000);
    cJSON_AddItemToArray(tl, e);
  }
  cJSON *of = cJSON_AddObjectToObject(r, "timeline_of");
  if (of) {
    cJSON_AddStringToObject(of, "step", step);
    cJSON_AddStringToObject(of, "why", why);
    cJSON_AddNumberToObject(of, "start_ms", (a - d->t0) / 1000);
    cJSON_AddNumberToObject(of, "spans", (double)n);
    cJSON_AddNumberToObject(of, "spans_left_out", (double)left_out);
  }
  free(sp);
  return tl && of ? 0 : -1;
}
