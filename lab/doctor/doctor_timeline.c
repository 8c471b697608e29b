/* `gpulab doctor`: the learner's chosen step drawn as the timeline the
 * experiments draw ([{lane, label, start_us, end_us}], µs from the step's
 * start; lanes "cpu", "cpu:op" (the host operator the finding names) and
 * "gpu:N/streamK"), from the records the reader kept.
 * The host lane is flat: an outer call (.item(), a synchronize) hides the
 * calls inside it. At most DR_MAX_TIMELINE_SPANS spans, kept in a fixed
 * heap as the records pass: the shortest go. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

typedef struct tl_span {
  double s, e;
  int32_t name;
  int16_t device;
  int32_t stream; /* -1: the host lane, -2: the named host operator's */
} tl_span;

static int by_start_longest(const void *x, const void *y) {
  const tl_span *a = x, *b = y;
  if (a->s != b->s) return (a->s > b->s) - (a->s < b->s);
  return (a->e < b->e) - (a->e > b->e);
}

static double clip(double v, double a, double b) { return v < a ? a : v > b ? b : v; }

/* Microseconds to the nanosecond, as the trace's own times. Rounded as a
 * double: a trace whose step spans more than 2^63 ns (a fuzzed timestamp)
 * overflowed a conversion to long long. */
static double to_ns(double us) { return floor(us * 1000 + 0.5) / 1000; }

/* The spans kept so far: a min-heap on length of at most DR_MAX_TIMELINE_SPANS,
 * so memory stays fixed whatever the step holds. */
typedef struct keep {
  tl_span *h;
  long n, left_out;
} keep;

static double len(const tl_span *x) { return x->e - x->s; }

static void heap_down(keep *k, long i) {
  for (;;) {
    long l = 2 * i + 1, r = l + 1, m = i;
    if (l < k->n && len(&k->h[l]) < len(&k->h[m])) m = l;
    if (r < k->n && len(&k->h[r]) < len(&k->h[m])) m = r;
    if (m == i) return;
    tl_span t = k->h[i];
    k->h[i] = k->h[m];
    k->h[m] = t;
    i = m;
  }
}

static void offer(keep *k, tl_span x) {
  if (k->n < DR_MAX_TIMELINE_SPANS) {
    long i = k->n++;
    k->h[i] = x;
    while (i > 0 && len(&k->h[(i - 1) / 2]) > len(&k->h[i])) {
      tl_span t = k->h[i];
      k->h[i] = k->h[(i - 1) / 2];
      k->h[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
    return;
  }
  k->left_out++;
  if (len(&x) <= len(&k->h[0])) return; /* the shortest goes: this one */
  k->h[0] = x;
  heap_down(k, 0);
}

int lab_dr_timeline(const lab_doctor *d, cJSON *r, double a, double b, const char *step, const char *why, long op) {
  keep k = {malloc(DR_MAX_TIMELINE_SPANS * sizeof(tl_span)), 0, 0};
  if (!k.h) return -1;
  /* host calls, sorted by start and the longest first at one start: a call
   * that starts before the last kept one ends lies inside it, hidden */
  double end = a;
  int any = 0;
  for (long i = 0; i < d->nhost; i++) {
    const dr_host *h = &d->host[i];
    if (h->ts >= b) break;
    if (h->ts + h->dur <= a) continue;
    tl_span x = {clip(h->ts, a, b), clip(h->ts + h->dur, a, b), h->name, 0, -1};
    if (any && x.s < end) {
      k.left_out++;
      continue;
    }
    any = 1;
    end = x.e;
    offer(&k, x);
  }
  /* the operator the finding names, beside the flat host lane (where it would hide the calls inside it) */
  if (op >= 0 && d->ops[op].ts < b && d->ops[op].ts + d->ops[op].dur > a)
    offer(&k, (tl_span){clip(d->ops[op].ts, a, b), clip(d->ops[op].ts + d->ops[op].dur, a, b), d->ops[op].name, 0, -2});
  for (long i = 0; i < d->ngpu; i++) {
    const dr_gpu *g = &d->gpu[i];
    if (g->ts >= b) break;
    if (g->ts + g->dur <= a) continue;
    offer(&k, (tl_span){clip(g->ts, a, b), clip(g->ts + g->dur, a, b), g->name, g->device, g->stream < 0 ? 0 : g->stream});
  }
  long n = k.n;
  tl_span *sp = k.h;
  qsort(sp, (size_t)n, sizeof *sp, by_start_longest);
  cJSON *tl = cJSON_AddArrayToObject(r, "timeline");
  char lane[48];
  for (long i = 0; i < n && tl; i++) {
    cJSON *e = cJSON_CreateObject();
    if (!e) break;
    if (sp[i].stream == -2) snprintf(lane, sizeof lane, "cpu:op");
    else if (sp[i].stream < 0) snprintf(lane, sizeof lane, "cpu");
    else snprintf(lane, sizeof lane, "gpu:%d/stream%d", sp[i].device, (int)sp[i].stream);
    cJSON_AddStringToObject(e, "lane", lane);
    cJSON_AddStringToObject(e, "label", sp[i].name >= 0 ? d->names[sp[i].name].s : "(other)");
    cJSON_AddNumberToObject(e, "start_us", to_ns(sp[i].s - a));
    cJSON_AddNumberToObject(e, "end_us", to_ns(sp[i].e - a));
    cJSON_AddItemToArray(tl, e);
  }
  cJSON *of = cJSON_AddObjectToObject(r, "timeline_of");
  if (of) {
    cJSON_AddStringToObject(of, "step", step);
    cJSON_AddStringToObject(of, "why", why);
    cJSON_AddNumberToObject(of, "start_ms", (a - d->t0) / 1000);
    cJSON_AddNumberToObject(of, "spans", (double)n);
    cJSON_AddNumberToObject(of, "spans_left_out", (double)k.left_out);
  }
  free(sp);
  return tl && of ? 0 : -1;
}
