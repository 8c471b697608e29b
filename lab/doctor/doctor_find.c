/* `gpulab doctor`'s analysis: from the records doctor_read.c kept, per
 * ProfilerStep (or the whole trace) the GPU's busy time and idle gaps with
 * the host's blocking call in each, then the findings in a beginner's words
 * with their numbers, certainty, lesson section and experiment. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"
#include "lesson_titles.h"

#define TOP_GAPS 3
#define MAX_STEPS_OUT 32
#define MAX_STREAMS 8
#define TEXT_MAX 2048 /* two names of 256 bytes fit whole: a name is never cut mid-character */

/* What the host was doing over a stretch of time, by its operators: the
 * outermost operator covering the most of it and the innermost record (an
 * operator, a Python function, a runtime call) inside that one still
 * covering at least half as much: "aten::item → cudaStreamSynchronize";
 * and the innermost annotated region (record_function) around them. */
typedef struct host_act {
  long outer, inner; /* d->ops; inner in d->host when inner_call; -1: none */
  long region;       /* d->ops, a user_annotation holding outer; -1: none */
  int inner_call;
  double outer_cover, inner_cover; /* us of the stretch each covers */
} host_act;

typedef struct gap {
  host_act act;
  double start, len;
  int host;  /* DH_* or -1: Python or CPU work between ops */
  long next; /* the GPU op that ends the gap (d->gpu), -1: the window's end */
  long call; /* the other runtime call covering most of the gap (d->host), -1: none */
} gap;

/* A runtime call this long is not a launch or an async copy: CUDA setting
 * something up once (the context on the first CUDA call, the first
 * cudaMalloc, cuDNN and cuBLAS handles and workspaces, a first launch
 * loading its module). A launch costs 5 to 20 us; the real cold traces
 * (tests/doctor/real/README.md) show 6.5 ms to 24.6 s. */
#define COLD_CALL_US 1000.0

typedef struct window {
  char name[40];
  double a, b, busy, kernel_us, short_kernels;
  long kernels;
  gap gaps[TOP_GAPS];
  int ngaps;
  int32_t stream_id[MAX_STREAMS];
  double stream_us[MAX_STREAMS];
  int nstreams;
  double cls_us[DC_COUNT], cls_bytes[DC_COUNT];
  long cls_n[DC_COUNT];
} window;

static int by_gpu_ts(const void *x, const void *y) {
  double a = ((const dr_gpu *)x)->ts, b = ((const dr_gpu *)y)->ts;
  return (a > b) - (a < b);
}
/* by start, the longest first at one start: an outer call before those inside it */
static int by_host_ts(const void *x, const void *y) {
  const dr_host *p = x, *q = y;
  if (p->ts != q->ts) return (p->ts > q->ts) - (p->ts < q->ts);
  return (p->dur < q->dur) - (p->dur > q->dur);
}
static int by_step_ts(const void *x, const void *y) {
  double a = ((const dr_step *)x)->ts, b = ((const dr_step *)y)->ts;
  return (a > b) - (a < b);
}

/* The median of a 0.1 us histogram, in us; 0 when empty. */
static double hist_median(const uint32_t *h, long count) {
  if (count <= 0) return 0;
  long half = (count + 1) / 2, seen = 0;
  for (int i = 0; i < DR_HIST_BINS; i++)
    if ((seen += h[i]) >= half) return (i + 0.5) / 10.0;
  return DR_HIST_BINS / 10.0;
}


static double overlap(double a0, double a1, double b0, double b1) {
  double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
  return hi > lo ? hi - lo : 0;
}

/* A walk over records sorted by ts (dr_gpu and dr_host both lead with ts
 * and dur) through windows that start later and later (the steps, made
 * not to overlap; their gaps): at each window's start, the records that
 * started before it and still run ("live", in ts order), then those that
 * start inside it. Each record is passed once, and looked at again only
 * while it runs across a window's start: at most SWEEP_LIVE of those (a
 * GPU runs at most 128 kernels at once; more in a trace are counted in
 * left_out and left out of the windows they cross), so the walk is
 * O(records + windows * SWEEP_LIVE), never records * windows. */
#define SWEEP_LIVE 1024
typedef struct sweep {
  const char *base;
  size_t size;
  long n, next, left_out;
  int nlive;
  long live[SWEEP_LIVE];
} sweep;
_Static_assert(offsetof(dr_gpu, dur) == sizeof(double) && offsetof(dr_host, dur) == sizeof(double),
               "a sweep reads ts then dur");

static double rec_ts(const sweep *s, long i) {
  double v;
  memcpy(&v, s->base + (size_t)i * s->size, sizeof v);
  return v;
}
static double rec_end(const sweep *s, long i) {
  double v[2];
  memcpy(v, s->base + (size_t)i * s->size, sizeof v);
  return v[0] + v[1];
}

static sweep *sweep_new(const void *base, size_t size, long n) {
  sweep *s = malloc(sizeof *s);
  if (s) *s = (sweep){.base = base, .size = size, .n = n};
  return s;
}

/* To the window starting at a (never before the last one's start). */
static void sweep_to(sweep *s, double a) {
  int k = 0;
  for (int j = 0; j < s->nlive; j++)
    if (rec_end(s, s->live[j]) > a) s->live[k++] = s->live[j];
  s->nlive = k;
  for (; s->next < s->n && rec_ts(s, s->next) < a; s->next++) {
    if (rec_end(s, s->next) <= a) continue;
    if (s->nlive < SWEEP_LIVE) s->live[s->nlive++] = s->next;
    else s->left_out++;
  }
}

/* The records of the window [a, b) after sweep_to(a), one by one: *it
 * starts at 0; -1 at the end. */
static long sweep_each(const sweep *s, long *it, double b) {
  long k = (*it)++;
  if (k < s->nlive) return s->live[k];
  long i = s->next + (k - s->nlive);
  return i < s->n && rec_ts(s, i) < b ? i : -1;
}

/* What the host was doing in [g0,g1): the blocking call covering most of it
 * (by priority when several nest: the data loader, .item(), a blocking
 * copy, a synchronize), or -1 when none covers a third of it. The host's
 * walk is at the gap's start. */
static int explain_gap(const lab_doctor *d, const sweep *hs, double g0, double g1, long *call) {
  double cover[DH_COUNT] = {0}, best = 0;
  long it = 0;
  *call = -1;
  for (long i; (i = sweep_each(hs, &it, g1)) >= 0;) {
    double o = overlap(g0, g1, d->host[i].ts, d->host[i].ts + d->host[i].dur);
    if (d->host[i].kind < DH_COUNT) cover[d->host[i].kind] += o;
    else if (o > best && o >= (g1 - g0) / 3) best = o, *call = i;
  }
  for (int k = 0; k < DH_COUNT; k++)
    if (cover[k] >= (g1 - g0) / 3) return k;
  return -1;
}

/* Whether operator i is a better outer one of its kind than *best: it
 * covers more, or as much and is longer (holds the other); a Python
 * function, shorter (the outermost is the script itself). */
static int better(const lab_doctor *d, long i, double c, long best, double best_c) {
  if (best < 0 || c > best_c) return 1;
  if (c < best_c) return 0;
  return d->ops[i].kind == DO_PYTHON ? d->ops[i].dur < d->ops[best].dur : d->ops[i].dur > d->ops[best].dur;
}

/* The operators (os) and runtime calls (hs) of [a, b), both walks at a:
 * the outermost operator covering at least `need` (a cpu_op; else an
 * annotation, else a Python function), then the shortest record inside it
 * that covers at least half as much, and the shortest annotation holding
 * the outer one (a region such as "## forward ##" or the PARAM benchmark's
 * names an operator's context, not what the host ran). Reads only what the
 * walks hold there. */
static void host_activity(const lab_doctor *d, const sweep *os, const sweep *hs, double a, double b, double need,
                          host_act *act) {
  *act = (host_act){-1, -1, -1, 0, 0, 0};
  long it = 0, best[3] = {-1, -1, -1};
  double cover[3] = {0};
  for (long i; (i = sweep_each(os, &it, b)) >= 0;) {
    const dr_host *o = &d->ops[i];
    double c = overlap(a, b, o->ts, o->ts + o->dur);
    if (c <= 0 || c < need) continue;
    if (better(d, i, c, best[o->kind], cover[o->kind])) best[o->kind] = i, cover[o->kind] = c;
  }
  int k = best[DO_CPU_OP] >= 0 ? DO_CPU_OP : best[DO_ANNOTATION] >= 0 ? DO_ANNOTATION : DO_PYTHON;
  act->outer = best[k], act->outer_cover = cover[k];
  if (act->outer < 0) return;
  const dr_host *out = &d->ops[act->outer];
  double lo = out->ts, hi = out->ts + out->dur, inner_need = act->outer_cover / 2;
  act->inner = act->outer, act->inner_cover = act->outer_cover;
  double inner_dur = out->dur;
  double region_dur = 0;
  it = 0;
  for (long i; (i = sweep_each(os, &it, b)) >= 0;) {
    const dr_host *o = &d->ops[i];
    if (o->kind == DO_ANNOTATION && i != act->outer && o->ts <= lo && o->ts + o->dur >= hi &&
        (act->region < 0 || o->dur < region_dur))
      act->region = i, region_dur = o->dur;
    if (o->ts < lo || o->ts + o->dur > hi || o->dur >= inner_dur) continue;
    double c = overlap(a, b, o->ts, o->ts + o->dur);
    if (c >= inner_need && c > 0) act->inner = i, act->inner_cover = c, inner_dur = o->dur;
  }
  it = 0;
  for (long i; hs && (i = sweep_each(hs, &it, b)) >= 0;) {
    const dr_host *h = &d->host[i];
    if (h->ts < lo || h->ts + h->dur > hi || h->dur >= inner_dur) continue;
    double c = overlap(a, b, h->ts, h->ts + h->dur);
    if (c >= inner_need && c > 0) act->inner = i, act->inner_cover = c, act->inner_call = 1, inner_dur = h->dur;
  }
}

static const char *name_of(const lab_doctor *d, int32_t id);

/* The inner call's name, NULL when the outer operator is the innermost. */
static const char *inner_name(const lab_doctor *d, const host_act *act) {
  if (act->inner == act->outer && !act->inner_call) return NULL;
  return name_of(d, act->inner_call ? d->host[act->inner].name : d->ops[act->inner].name);
}

/* "outer → inner (inside region)" (the outer alone when it is the
 * innermost) into out, of CHAIN_MAX bytes: three whole names. */
#define CHAIN_MAX (3 * LAB_DOCTOR_MAX_NAME_BYTES + 32)
static void act_words(const lab_doctor *d, const host_act *act, char *out) {
  int o = snprintf(out, CHAIN_MAX, "%s", name_of(d, d->ops[act->outer].name));
  if (inner_name(d, act)) o += snprintf(out + o, (size_t)(CHAIN_MAX - o), " → %s", inner_name(d, act));
  if (act->region >= 0) snprintf(out + o, (size_t)(CHAIN_MAX - o), " (inside %s)", name_of(d, d->ops[act->region].name));
}

/* The operator's facts: host_op, host_op_inner, host_region, host_op_ms. */
static void act_facts(cJSON *facts, const lab_doctor *d, const host_act *act) {
  cJSON_AddStringToObject(facts, "host_op", name_of(d, d->ops[act->outer].name));
  if (inner_name(d, act)) cJSON_AddStringToObject(facts, "host_op_inner", inner_name(d, act));
  if (act->region >= 0) cJSON_AddStringToObject(facts, "host_region", name_of(d, d->ops[act->region].name));
  cJSON_AddNumberToObject(facts, "host_op_ms", round(act->outer_cover) / 1000);
}

/* The host call that launched the GPU op ending the gap, when tied. */
static const dr_host *launcher(const lab_doctor *d, const gap *g) {
  if (g->next < 0 || d->gpu[g->next].launch < 0) return NULL;
  return &d->host[d->gpu[g->next].launch];
}

static const char *name_of(const lab_doctor *d, int32_t id) { return id >= 0 ? d->names[id].s : "(other)"; }

static void add_gap(window *w, double s, double e, long next) {
  if (e - s <= 0) return;
  int i;
  if (w->ngaps < TOP_GAPS) i = w->ngaps++;
  else if (e - s > w->gaps[TOP_GAPS - 1].len) i = TOP_GAPS - 1;
  else return;
  w->gaps[i] = (gap){{-1, -1, -1, 0, 0, 0}, s, e - s, -1, next, -1};
  for (; i > 0 && w->gaps[i].len > w->gaps[i - 1].len; i--) {
    gap t = w->gaps[i];
    w->gaps[i] = w->gaps[i - 1];
    w->gaps[i - 1] = t;
  }
}

/* One window's GPU work, the GPU's walk at its start. */
static void analyse(const lab_doctor *d, window *w, const sweep *gs, double short_us) {
  double end = w->a;
  long it = 0;
  for (long i; (i = sweep_each(gs, &it, w->b)) >= 0;) {
    const dr_gpu *g = &d->gpu[i];
    double s = g->ts > w->a ? g->ts : w->a, e = g->ts + g->dur < w->b ? g->ts + g->dur : w->b;
    if (e <= w->a) continue;
    if (s > end) add_gap(w, end, s, i);
    if (e > end) {
      w->busy += e - (s > end ? s : end);
      end = e;
    }
    w->cls_us[g->cls] += e - s;
    w->cls_bytes[g->cls] += g->bytes;
    w->cls_n[g->cls]++;
    if (g->kind == DR_KERNEL) {
      w->kernels++;
      w->kernel_us += e - s;
      if (g->dur < short_us) w->short_kernels++;
    }
    int k = 0;
    while (k < w->nstreams && w->stream_id[k] != g->stream) k++;
    if (k == w->nstreams && k < MAX_STREAMS) w->stream_id[w->nstreams++] = g->stream;
    if (k < MAX_STREAMS) w->stream_us[k] += e - s;
  }
  if (end < w->b) add_gap(w, end, w->b, -1);
}

static int by_gap_start(const void *x, const void *y) {
  double a = (*(gap *const *)x)->start, b = (*(gap *const *)y)->start;
  return (a > b) - (a < b);
}

/* Every window's GPU work in one walk, then every gap's host calls in
 * another (the gaps in order of their start: the windows do not overlap,
 * nor do a window's gaps). Returns the records left out (over SWEEP_LIVE
 * running across a window's start), or -1 when out of memory. */
static long analyse_all(const lab_doctor *d, window *w, int nwin, double short_us) {
  sweep *gs = sweep_new(d->gpu, sizeof *d->gpu, d->ngpu), *hs = sweep_new(d->host, sizeof *d->host, d->nhost);
  sweep *os = sweep_new(d->ops, sizeof *d->ops, d->nops);
  gap **order = malloc((size_t)nwin * TOP_GAPS * sizeof *order);
  long left_out = -1, ngaps = 0;
  if (!gs || !hs || !os || !order) goto out;
  for (int i = 0; i < nwin; i++) {
    sweep_to(gs, w[i].a);
    analyse(d, &w[i], gs, short_us);
    for (int k = 0; k < w[i].ngaps; k++) order[ngaps++] = &w[i].gaps[k];
  }
  qsort(order, (size_t)ngaps, sizeof *order, by_gap_start);
  for (long i = 0; i < ngaps; i++) {
    gap *g = order[i];
    sweep_to(hs, g->start);
    sweep_to(os, g->start);
    g->host = explain_gap(d, hs, g->start, g->start + g->len, &g->call);
    /* the operator that covers most of a GPU gap; in a trace without GPU
     * work the one gap is the whole step: its largest operator */
    host_activity(d, os, hs, g->start, g->start + g->len, d->gpu_events ? g->len / 2 : 0, &g->act);
    /* no blocking call covers it, but the op after it was launched by one (a blocking cudaMemcpy, a synchronize) */
    const dr_host *h = launcher(d, g);
    if (g->host < 0 && h && h->kind < DH_COUNT) g->host = h->kind;
  }
  left_out = gs->left_out + hs->left_out + os->left_out;
out:
  free(gs);
  free(hs);
  free(os);
  free(order);
  return left_out;
}

static const char *const host_words[DH_COUNT] = {
    "waiting for the data loader's next batch (DataLoader __next__)",
    "reading a value to Python (.item(): aten::_local_scalar_dense waits for the GPU)",
    "a blocking copy between device and host (cudaMemcpy)",
    "waiting for the GPU to finish (a cuda*Synchronize call)"};
static const char *const host_ids[DH_COUNT] = {"data_loader", "item", "blocking_copy", "synchronize"};

typedef struct teach {
  const char *lesson, *section, *experiment;
} teach;

static cJSON *finding(cJSON *list, const char *id, const char *certainty, const char *title, const char *text,
                      teach t, cJSON *params) {
  cJSON *f = cJSON_CreateObject();
  cJSON_AddStringToObject(f, "id", id);
  cJSON_AddStringToObject(f, "certainty", certainty);
  cJSON_AddStringToObject(f, "title", title);
  cJSON_AddStringToObject(f, "text", text);
  cJSON *facts = cJSON_AddObjectToObject(f, "facts");
  char href[128];
  cJSON *l = cJSON_AddObjectToObject(f, "lesson");
  cJSON_AddStringToObject(l, "id", t.lesson);
  cJSON_AddStringToObject(l, "section", t.section);
  const char *heading = lab_lesson_section_title(t.lesson, t.section);
  if (heading) cJSON_AddStringToObject(l, "title", heading);
  snprintf(href, sizeof href, "#lesson/%s/%s", t.lesson, t.section);
  cJSON_AddStringToObject(l, "href", href);
  cJSON *e = cJSON_AddObjectToObject(f, "experiment");
  cJSON_AddStringToObject(e, "name", t.experiment);
  cJSON_AddItemToObject(e, "params", params ? params : cJSON_CreateObject());
  snprintf(href, sizeof href, "#lab/%s", t.experiment);
  cJSON_AddStringToObject(e, "href", href);
  cJSON_AddItemToArray(list, f);
  return facts;
}

static double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }
static double r1(double v) { return round(v * 10) / 10; }
static double r3(double v) { return round(v * 1000) / 1000; }

static void size_words(double bytes, char *out, size_t cap) {
  if (bytes >= 1 << 30) snprintf(out, cap, "%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20) snprintf(out, cap, "%.1f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10) snprintf(out, cap, "%.1f KiB", bytes / (1 << 10));
  else snprintf(out, cap, "%.0f bytes", bytes);
}

static cJSON *step_json(const lab_doctor *d, const window *w, double t0) {
  cJSON *s = cJSON_CreateObject();
  double wall = w->b - w->a;
  cJSON_AddStringToObject(s, "name", w->name);
  cJSON_AddNumberToObject(s, "start_ms", r3((w->a - t0) / 1000));
  cJSON_AddNumberToObject(s, "wall_ms", r3(wall / 1000));
  cJSON_AddNumberToObject(s, "gpu_busy_pct", r1(pct(w->busy, wall)));
  cJSON_AddNumberToObject(s, "kernels", (double)w->kernels);
  cJSON *st = cJSON_AddArrayToObject(s, "streams");
  for (int i = 0; i < w->nstreams; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "stream", w->stream_id[i]);
    cJSON_AddNumberToObject(o, "busy_pct", r1(pct(w->stream_us[i], wall)));
    cJSON_AddItemToArray(st, o);
  }
  cJSON *gs = cJSON_AddArrayToObject(s, "gaps");
  for (int i = 0; i < w->ngaps; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "start_ms", r3((w->gaps[i].start - w->a) / 1000));
    cJSON_AddNumberToObject(o, "ms", r3(w->gaps[i].len / 1000));
    cJSON_AddStringToObject(o, "host", w->gaps[i].host >= 0 ? host_ids[w->gaps[i].host] : "python_or_cpu");
    if (w->gaps[i].act.outer >= 0) {
      char chain[CHAIN_MAX];
      act_words(d, &w->gaps[i].act, chain);
      cJSON_AddStringToObject(o, "host_op", chain);
      cJSON_AddNumberToObject(o, "host_op_ms", r3(w->gaps[i].act.outer_cover / 1000));
    }
    const dr_host *h = launcher(d, &w->gaps[i]);
    if (h) {
      const dr_gpu *next = &d->gpu[w->gaps[i].next];
      cJSON_AddStringToObject(o, "next_gpu_op", name_of(d, next->name));
      cJSON_AddStringToObject(o, "launched_by", name_of(d, h->name));
      cJSON_AddNumberToObject(o, "launched_at_ms", r3((h->ts - w->a) / 1000));
      cJSON_AddNumberToObject(o, "launch_to_start_us", r1(next->ts - h->ts));
      cJSON_AddStringToObject(o, "tied_by", next->tied == DT_FLOWS      ? "ac2g_flow"
                                            : next->tied == DT_EXTERNAL ? "external_id"
                                                                        : "correlation");
    }
    cJSON_AddItemToArray(gs, o);
  }
  return s;
}

static cJSON *params_int(const char *k, double v, const char *k2, double v2) {
  cJSON *p = cJSON_CreateObject();
  if (k) cJSON_AddNumberToObject(p, k, v);
  if (k2) cJSON_AddNumberToObject(p, k2, v2);
  return p;
}

/* What a gap is, when no blocking call explains it, from what the trace holds (docs/doctor.md): */
enum { GAP_BLOCKING, GAP_STREAM_WAIT, GAP_COLD, GAP_LAUNCHES, GAP_HOST_OP, GAP_UNRECORDED };

/* Many short kernels with gaps spread over the step: the evidence a launch-bound verdict needs. */
static int launch_evidence(const window *w, double idle) {
  double top = 0;
  for (int k = 0; k < w->ngaps; k++) top += w->gaps[k].len;
  return w->kernels >= 20 && w->short_kernels >= w->kernels / 2.0 && top < idle / 2;
}

static int gap_kind(const lab_doctor *d, const window *w, const gap *g, double idle) {
  if (g->host >= 0) return GAP_BLOCKING;
  const dr_host *lh = launcher(d, g);
  if (lh && lh->ts < g->start) return GAP_STREAM_WAIT; /* queued before the GPU went idle */
  if (g->call >= 0 && d->host[g->call].dur >= COLD_CALL_US) return GAP_COLD;
  if (launch_evidence(w, idle) && !d->profiler_range) return GAP_LAUNCHES;
  return g->act.outer >= 0 ? GAP_HOST_OP : GAP_UNRECORDED;
}

static int is_collective(const lab_doctor *d, long op) {
  const char *n = name_of(d, d->gpu[op].name);
  return d->gpu[op].cls == DC_COMM || strstr(n, "nccl") || strstr(n, "rccl");
}

static void idle_finding(cJSON *list, const lab_doctor *d, const window *w, char *text) {
  const gap *g = &w->gaps[0];
  double wall = w->b - w->a, idle = wall - w->busy;
  static const teach by_host[DH_COUNT + 1] = {
      {"02-cuda-toolbox", "pinned", "profile"},   {"01-cuda-intuition", "async", "profile"},
      {"01-cuda-intuition", "copies", "profile"}, {"01-cuda-intuition", "timing", "timing"},
      {"02-cuda-toolbox", "profiling", "graphs"}};
  int h = w->ngaps ? g->host : -1, kind = w->ngaps ? gap_kind(d, w, g, idle) : GAP_UNRECORDED;
  const dr_host *lh = w->ngaps ? launcher(d, g) : NULL, *call = w->ngaps && g->call >= 0 ? &d->host[g->call] : NULL;
  char what[CHAIN_MAX + 128], chain[2 * LAB_DOCTOR_MAX_NAME_BYTES + 8] = "";
  const host_act *act = w->ngaps && g->act.outer >= 0 ? &g->act : NULL;
  double call_in_gap = call ? overlap(g->start, g->start + g->len, call->ts, call->ts + call->dur) : 0;
  if (act) act_words(d, act, chain);
  if (h >= 0) snprintf(what, sizeof what, "%s", host_words[h]);
  else if (kind == GAP_STREAM_WAIT)
    snprintf(what, sizeof what, "already done queuing: the GPU op after it (%s) had been launched %.2f ms before it began",
             name_of(d, d->gpu[g->next].name), (g->start - lh->ts) / 1000);
  else if (kind == GAP_COLD)
    /* the call may hold a third of the gap only: the H100's cold step spent 117 of its 262 ms gap initialising the
     * model's weights on the CPU before the context's 122 ms call (tests/doctor/gpu) */
    snprintf(what, sizeof what, "inside one runtime call, %s, for %.2f ms of it (%.0f%%)", name_of(d, call->name),
             call_in_gap / 1000, pct(call_in_gap, g->len));
  else if (kind == GAP_LAUNCHES) snprintf(what, sizeof what, "running Python between many short launches");
  else if (kind == GAP_HOST_OP) snprintf(what, sizeof what, "in a CPU operator, %s, for %.2f ms of it (%.0f%%)", chain,
                                         g->act.outer_cover / 1000, pct(g->act.outer_cover, g->len));
  else
    snprintf(what, sizeof what, "busy with something no runtime call in the trace covers (Python or CPU operators, or "
                                "time the trace did not record)");
  snprintf(text, TEXT_MAX,
           "In %s the GPU was busy %.0f%% of %.2f ms and idle %.0f%% (%.2f ms)%s. The largest gap, %.2f ms, came while the "
           "host was %s. %s",
           w->name, pct(w->busy, wall), wall / 1000, pct(idle, wall), idle / 1000,
           w->ngaps && g->len < idle / 10 ? ", spread over many short gaps" : "", w->ngaps ? g->len / 1000 : 0, what,
           h == DH_ITEM ? "Each .item() makes Python wait for the GPU to finish everything queued; read the loss every N steps instead."
           : h == DH_LOADER ? "The GPU waits for the next batch: use more DataLoader workers, pin_memory=True and non_blocking copies."
           : h == DH_SYNC  ? "A synchronize stops the host from queuing more work; keep them out of the step (time with CUDA events)."
           : h == DH_COPY  ? "A blocking copy waits for the GPU and for the bytes; keep results on the GPU, or copy asynchronously."
           : kind == GAP_STREAM_WAIT
               ? (is_collective(d, g->next)
                      ? "That op is a collective: it starts when every rank has reached it, so this GPU waited for its peers "
                        "(a slower rank, its data loading, or an unequal share of the work), not for this host."
                      : "Its stream was waiting on something else: another stream's work, an event (cudaStreamWaitEvent) or a "
                        "collective; faster launches would not shorten this gap.")
           : kind == GAP_COLD
               ? "A call that long is the GPU runtime setting up once (the context on the first CUDA or HIP call, the first "
                 "allocations, cuDNN and cuBLAS handles, a kernel's module loaded on its first launch): a cold start, not the "
                 "step's real cost. Profile after a warm-up, with "
                 "torch.profiler.schedule(wait=1, warmup=1, active=3) and prof.step() each step."
           : kind == GAP_HOST_OP
               ? "Nothing was queued for the GPU while the host ran it: the GPU waits for that operator. See why it is slow "
                 "(record_shapes=True shows its inputs), move it out of the step or run it on the GPU; faster launches would "
                 "not shorten this gap."
           : kind == GAP_LAUNCHES
               ? "Most kernels are shorter than a launch and the idle time is spread over many small gaps: the host cannot "
                 "queue kernels fast enough; fewer, larger operations, torch.compile or CUDA graphs help."
               : "Look at what the host runs inside this gap in the trace viewer (with_stack=True names the Python lines); "
                 "faster launches would not shorten it.");
  size_t o = strlen(text);
  /* a blocking call or a cold start named above: the operator it ran in says where in the step */
  if (act && (h >= 0 || kind == GAP_COLD) && o < TEXT_MAX)
    snprintf(text + o, TEXT_MAX - o, " The host was in %s for %.2f ms of the gap.", chain, act->outer_cover / 1000);
  o = strlen(text);
  if (lh && kind != GAP_STREAM_WAIT && o < TEXT_MAX)
    snprintf(text + o, TEXT_MAX - o, " The GPU op after the gap (%s) was launched by %s %.2f ms %s the gap began.",
             name_of(d, d->gpu[g->next].name), name_of(d, lh->name), fabs(lh->ts - g->start) / 1000,
             lh->ts >= g->start ? "after" : "before");
  cJSON *params = h == DH_ITEM ? params_int("log_every", 10, NULL, 0)
                  : h == DH_LOADER || h == DH_COPY ? cJSON_CreateObject() : NULL;
  if (h == DH_LOADER || h == DH_COPY) cJSON_AddBoolToObject(params, "pinned", 1);
  static const char *const ids[] = {"gpu_idle", "stream_wait", "cold_start", "gpu_idle", "gpu_idle", "gpu_idle"};
  static const char *const titles[] = {"The GPU waits for the host", "A stream waits on something else",
                                       "A cold start: CUDA setting up", "The GPU waits for the host",
                                       "The GPU waits for the host", "The GPU waits for the host"};
  static const char *const certainty[] = {"measured", "likely", "likely", "likely", "likely", "possible"};
  static const char *const host_of[] = {NULL, "stream_wait", "cold_start", "launches", "host_op", "not_recorded"};
  teach t = h >= 0 ? by_host[h]
            : kind == GAP_STREAM_WAIT ? (teach){"02-cuda-toolbox", "streams", "streams"}
            : kind == GAP_COLD || kind == GAP_HOST_OP ? (teach){"02-cuda-toolbox", "profiling", "profile"}
                                                      : by_host[DH_COUNT];
  cJSON *facts = finding(list, ids[kind], certainty[kind], titles[kind], text, t, params);
  cJSON_AddStringToObject(facts, "step", w->name);
  cJSON_AddNumberToObject(facts, "wall_ms", r3(wall / 1000));
  cJSON_AddNumberToObject(facts, "gpu_busy_pct", r1(pct(w->busy, wall)));
  cJSON_AddNumberToObject(facts, "idle_pct", r1(pct(idle, wall)));
  cJSON_AddNumberToObject(facts, "largest_gap_ms", r3(w->ngaps ? g->len / 1000 : 0));
  cJSON_AddNumberToObject(facts, "gap_start_ms", r3(w->ngaps ? (g->start - d->t0) / 1000 : 0));
  cJSON_AddStringToObject(facts, "host", h >= 0 ? host_ids[h] : host_of[kind]);
  if (kind == GAP_STREAM_WAIT) {
    cJSON_AddStringToObject(facts, "waited_on", name_of(d, d->gpu[g->next].name));
    cJSON_AddBoolToObject(facts, "collective", is_collective(d, g->next));
  }
  if (call && kind == GAP_COLD) {
    cJSON_AddStringToObject(facts, "call", name_of(d, call->name));
    cJSON_AddNumberToObject(facts, "call_ms", r3(call->dur / 1000));
  }
  if (act && kind != GAP_STREAM_WAIT) {
    static const char *const cats[] = {"cpu_op", "user_annotation", "python_function"};
    act_facts(facts, d, act);
    cJSON_AddStringToObject(facts, "host_op_category", cats[d->ops[act->outer].kind]);
    cJSON_AddNumberToObject(facts, "host_op_gap_pct", r1(pct(act->outer_cover, g->len)));
  }
  if (lh) {
    cJSON_AddStringToObject(facts, "launched_by", name_of(d, lh->name));
    cJSON_AddNumberToObject(facts, "launched_after_gap_start_ms", r3((lh->ts - g->start) / 1000));
  }
}

static void gpu_time_finding(cJSON *list, const lab_doctor *d, const window *all, char *text) {
  double mm = all->cls_us[DC_MATMUL] + all->cls_us[DC_MATMUL_TC];
  double copies = all->cls_us[DC_H2D_PAGEABLE] + all->cls_us[DC_H2D_PINNED] + all->cls_us[DC_D2H] + all->cls_us[DC_D2D] +
                  all->cls_us[DC_COPY_OTHER];
  double total = 0;
  for (int i = 0; i < DC_COUNT; i++) total += all->cls_us[i];
  double tc = pct(all->cls_us[DC_MATMUL_TC], mm);
  snprintf(text, TEXT_MAX,
           "Of %.2f ms of GPU work: matmuls %.0f%%, elementwise %.0f%%, reductions and norms %.0f%%, communication %.0f%%, "
           "other kernels %.0f%%, copies %.0f%%, memsets %.0f%%. %s",
           total / 1000, pct(mm, total), pct(all->cls_us[DC_ELEMENTWISE], total), pct(all->cls_us[DC_REDUCE], total),
           pct(all->cls_us[DC_COMM], total), pct(all->cls_us[DC_OTHER_KERNEL], total), pct(copies, total),
           pct(all->cls_us[DC_MEMSET], total),
           mm <= 0 ? "No matmul kernel ran."
           : tc >= 50 ? "Most matmul time is in kernels whose names suggest tensor cores (likely, from the names only)."
                      : "Most matmul time is in kernels whose names do not suggest tensor cores: on Ampere or newer, TF32 "
                        "(torch.backends.cuda.matmul.allow_tf32) or bf16 autocast may speed them up (a guess from names).");
  size_t o = strlen(text);
  if (d->profiler_range && o < TEXT_MAX)
    snprintf(text + o, TEXT_MAX - o, " These %ld GPU ops were recorded by CUPTI's range profiler, which replays each kernel to "
             "count its metrics: their times are longer than in a normal run, so no launch-bound verdict is drawn from them.",
             d->profiler_range);
  int mm_main = mm >= total / 2 && tc < 50;
  cJSON *facts = finding(list, "gpu_time", mm > 0 ? "likely" : "measured", "Where the GPU's time goes", text,
                         mm_main ? (teach){"02-cuda-toolbox", "precision", "precision"} : (teach){"02-cuda-toolbox", "profiling", "profile"},
                         NULL);
  cJSON_AddNumberToObject(facts, "gpu_ms", r3(total / 1000));
  cJSON_AddNumberToObject(facts, "matmul_pct", r1(pct(mm, total)));
  cJSON_AddNumberToObject(facts, "tensor_core_matmul_pct", r1(tc));
  cJSON_AddNumberToObject(facts, "elementwise_pct", r1(pct(all->cls_us[DC_ELEMENTWISE], total)));
  cJSON_AddNumberToObject(facts, "reduce_pct", r1(pct(all->cls_us[DC_REDUCE], total)));
  cJSON_AddNumberToObject(facts, "communication_pct", r1(pct(all->cls_us[DC_COMM], total)));
  cJSON_AddNumberToObject(facts, "copy_pct", r1(pct(copies, total)));
  cJSON_AddNumberToObject(facts, "memset_pct", r1(pct(all->cls_us[DC_MEMSET], total)));
  if (d->profiler_range) cJSON_AddNumberToObject(facts, "profiler_range_ops", (double)d->profiler_range);
}

static void copy_finding(cJSON *list, const window *all, int nwin, int steps, char *text) {
  double pb = all->cls_bytes[DC_H2D_PAGEABLE], qb = all->cls_bytes[DC_H2D_PINNED];
  double pt = all->cls_us[DC_H2D_PAGEABLE], qt = all->cls_us[DC_H2D_PINNED];
  char ps[32], qs[32];
  size_words(pb, ps, sizeof ps);
  size_words(qb, qs, sizeof qs);
  double pbw = pt > 0 ? pb / pt / 1e3 : 0, qbw = qt > 0 ? qb / qt / 1e3 : 0; /* bytes/us -> GB/s */
  snprintf(text, TEXT_MAX,
           "%s, %ld host-to-device copies from pageable memory moved %s at %.1f GB/s and %ld from pinned memory moved %s "
           "at %.1f GB/s. %s",
           steps ? "Inside the profiler steps" : "In the trace", all->cls_n[DC_H2D_PAGEABLE], ps, pbw,
           all->cls_n[DC_H2D_PINNED], qs, qbw,
           all->cls_n[DC_H2D_PAGEABLE]
               ? "A pageable copy is staged through a bounce buffer and blocks the host: DataLoader(pin_memory=True) and "
                 ".to(device, non_blocking=True) copy faster and let the copy overlap compute."
               : "The copies come from pinned memory: they can overlap compute when made with non_blocking=True.");
  double biggest = pb > qb ? pb : qb;
  double per = nwin > 0 ? biggest / nwin : biggest, mb = 1 << 20;
  while (mb < per && mb < 1024.0 * (1 << 20)) mb *= 2;
  cJSON *facts = finding(list, "host_to_device", "measured", "Copies from host to GPU inside the step", text,
                         (teach){"02-cuda-toolbox", "pinned", "transfer"}, params_int("max_bytes", mb, NULL, 0));
  cJSON_AddNumberToObject(facts, "pageable_copies", (double)all->cls_n[DC_H2D_PAGEABLE]);
  cJSON_AddNumberToObject(facts, "pageable_bytes", pb);
  cJSON_AddNumberToObject(facts, "pageable_gbps", r1(pbw));
  cJSON_AddNumberToObject(facts, "pinned_copies", (double)all->cls_n[DC_H2D_PINNED]);
  cJSON_AddNumberToObject(facts, "pinned_bytes", qb);
  cJSON_AddNumberToObject(facts, "pinned_gbps", r1(qbw));
}

static void launch_finding(cJSON *list, const lab_doctor *d, const window *all, int nwin, double short_us, char *text) {
  double med = hist_median(d->kernel_hist, d->kernels), per_step = nwin ? (double)all->kernels / nwin : 0;
  snprintf(text, TEXT_MAX,
           "%.0f of %ld kernels (%.0f%%) ran shorter than %.1f us, about what it costs the host to launch one; the median "
           "kernel took %.1f us (%.0f kernels a step). The GPU finishes each before the next arrives, so the step is paced "
           "by Python and launches: bigger batches, fusing operations (torch.compile) or CUDA graphs help.",
           all->short_kernels, all->kernels, pct(all->short_kernels, (double)all->kernels), short_us, med, per_step);
  double k = per_step < 10 ? 10 : per_step > 10000 ? 10000 : round(per_step);
  cJSON *facts = finding(list, "launch_bound", "likely", "Many tiny kernels: launch-bound", text,
                         (teach){"02-cuda-toolbox", "graphs", "graphs"}, params_int("kernels", k, NULL, 0));
  cJSON_AddNumberToObject(facts, "short_kernels", all->short_kernels);
  cJSON_AddNumberToObject(facts, "kernels", (double)all->kernels);
  cJSON_AddNumberToObject(facts, "median_kernel_us", r1(med));
  cJSON_AddNumberToObject(facts, "launch_cost_us", r1(short_us));
  if (d->tied_ops) cJSON_AddNumberToObject(facts, "launch_to_start_median_us", r1(hist_median(d->queue_hist, d->tied_ops)));
}

static int by_total(const void *x, const void *y) {
  double a = (*(dr_name *const *)x)->total_us, b = (*(dr_name *const *)y)->total_us;
  return (a < b) - (a > b);
}

static void cpu_only_finding(cJSON *list, const lab_doctor *d, const window *all, int nwin, char *text) {
  dr_name *top[5] = {0};
  int nt = 0;
  for (long i = 0; i < d->nnames; i++) {
    dr_name *n = &d->names[i];
    if (n->gpu || strncmp(n->s, "aten::", 6)) continue;
    if (nt < 5) top[nt++] = n;
    else if (n->total_us > top[4]->total_us) top[4] = n;
    qsort(top, (size_t)nt, sizeof top[0], by_total);
  }
  double wall = 0;
  for (int i = 0; i < nwin; i++) wall += all[i].b - all[i].a;
  int o = snprintf(text, TEXT_MAX,
                   "This trace has no GPU events: it was recorded on the CPU only (or without ProfilerActivity.CUDA). It "
                   "shows where the host's %.2f ms went, not how busy a GPU would be, nor copies or kernels. Slowest "
                   "operators (inclusive time):",
                   wall / 1000);
  for (int i = 0; i < nt && o < TEXT_MAX; i++)
    o += snprintf(text + o, (size_t)(TEXT_MAX - o), "%s %s %.2f ms (%ld calls)", i ? "," : "", top[i]->s,
                  top[i]->total_us / 1000, top[i]->count);
  /* the step whose largest operator (the outermost, nested ones inside it) took the largest share of it */
  const window *big = NULL;
  for (int i = 0; i < nwin; i++)
    if (all[i].ngaps && all[i].gaps[0].act.outer >= 0 &&
        (!big || pct(all[i].gaps[0].act.outer_cover, all[i].b - all[i].a) >
                     pct(big->gaps[0].act.outer_cover, big->b - big->a)))
      big = &all[i];
  char chain[CHAIN_MAX] = "";
  if (big) act_words(d, &big->gaps[0].act, chain);
  if (big && o < TEXT_MAX)
    o += snprintf(text + o, (size_t)(TEXT_MAX - o), ". The longest single call: in %s (%.2f ms) the host spent %.2f ms (%.0f%%) in one %s",
                  big->name, (big->b - big->a) / 1000, big->gaps[0].act.outer_cover / 1000,
                  pct(big->gaps[0].act.outer_cover, big->b - big->a), chain);
  if (o < TEXT_MAX) snprintf(text + o, (size_t)(TEXT_MAX - o), ". Profile on a GPU with activities=[CPU, CUDA] to see the GPU's side.");
  cJSON *facts = finding(list, "cpu_only", "measured", "A CPU-only trace", text, (teach){"02-cuda-toolbox", "profiling", "profile"}, NULL);
  cJSON_AddNumberToObject(facts, "host_ms", r3(wall / 1000));
  if (big) {
    const host_act *act = &big->gaps[0].act;
    cJSON_AddStringToObject(facts, "step", big->name);
    act_facts(facts, d, act);
    cJSON_AddNumberToObject(facts, "host_op_step_pct", r1(pct(act->outer_cover, big->b - big->a)));
  }
  cJSON *ops = cJSON_AddArrayToObject(facts, "top_ops");
  for (int i = 0; i < nt; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", top[i]->s);
    cJSON_AddNumberToObject(x, "ms", r3(top[i]->total_us / 1000));
    cJSON_AddNumberToObject(x, "calls", (double)top[i]->count);
    cJSON_AddItemToArray(ops, x);
  }
}

static void device_finding(cJSON *list, const lab_doctor *d, char *text) {
  char mem[32] = "", alloc[32], resv[32];
  size_words(d->dev_mem, mem, sizeof mem);
  size_words(d->peak_alloc, alloc, sizeof alloc);
  size_words(d->peak_reserved, resv, sizeof resv);
  int o = 0;
  /* ROCm writes the gfx family in computeMajor/Minor (an MI250's 9.0): not a CUDA compute capability */
  int amd = strstr(d->dev_name, "AMD") || strstr(d->dev_name, "Radeon") || strstr(d->dev_name, "Instinct");
  if (d->dev_name[0])
    o = snprintf(text, TEXT_MAX, "The trace ran on %s (%s, %s %d.%d)%s.%s", d->dev_name, mem,
                 amd ? "an AMD GPU under ROCm: gfx family" : "compute capability", d->dev_major, d->dev_minor,
                 d->ndevices > 1 ? ", one of several devices" : "", d->have_memory ? " " : "");
  if (d->have_memory && o < TEXT_MAX)
    snprintf(text + o, (size_t)(TEXT_MAX - o),
             "Memory events: at most %s allocated by tensors and %s reserved by PyTorch's caching allocator%s.", alloc, resv,
             d->dev_mem > 0 ? "" : " (CPU or GPU: the trace mixes both)");
  cJSON *facts = finding(list, "device", "measured", "The device and its memory", text,
                         (teach){"01-cuda-intuition", "memory", "memory"}, NULL);
  if (d->dev_name[0]) {
    cJSON_AddStringToObject(facts, "device", d->dev_name);
    cJSON_AddNumberToObject(facts, "memory_bytes", d->dev_mem);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->dev_major, d->dev_minor);
    cJSON_AddStringToObject(facts, amd ? "gfx_family" : "compute_capability", cc);
  }
  if (d->have_memory) {
    cJSON_AddNumberToObject(facts, "peak_allocated_bytes", d->peak_alloc);
    cJSON_AddNumberToObject(facts, "peak_reserved_bytes", d->peak_reserved);
  }
}

/* gpulab's own exports say where their numbers come from (otherData.source):
 * a simulated trace's findings are about the simulation. */
static void simulated_finding(cJSON *list, const lab_doctor *d, char *text) {
  snprintf(text, TEXT_MAX,
           "This trace was written by %s's simulator, not recorded by torch.profiler (its source: \"%s\"). Every number "
           "below is about that simulation, not a measurement of a GPU.",
           d->producer[0] ? d->producer : "gpulab", d->source);
  cJSON *facts = finding(list, "simulated_trace", "measured", "A simulated trace, not a measurement", text,
                         (teach){"02-cuda-toolbox", "profiling", "profile"}, NULL);
  cJSON_AddStringToObject(facts, "source", d->source);
}

static void sum_into(window *all, const window *w) {
  all->busy += w->busy;
  all->kernels += w->kernels;
  all->kernel_us += w->kernel_us;
  all->short_kernels += w->short_kernels;
  for (int i = 0; i < DC_COUNT; i++) {
    all->cls_us[i] += w->cls_us[i];
    all->cls_bytes[i] += w->cls_bytes[i];
    all->cls_n[i] += w->cls_n[i];
  }
}

cJSON *lab_dr_report(lab_doctor *d) {
  if (d->ngpu) qsort(d->gpu, (size_t)d->ngpu, sizeof *d->gpu, by_gpu_ts); /* NULL until the first record */
  if (d->nhost) qsort(d->host, (size_t)d->nhost, sizeof *d->host, by_host_ts);
  if (d->nops) qsort(d->ops, (size_t)d->nops, sizeof *d->ops, by_host_ts);
  if (d->nsteps) qsort(d->steps, (size_t)d->nsteps, sizeof *d->steps, by_step_ts);
  lab_dr_tie(d);
  /* a launch costs what cudaLaunchKernel took on the host (median), 5 us when the trace has none */
  double short_us = d->launches ? hist_median(d->launch_hist, d->launches) : 5.0;
  if (short_us < 2) short_us = 2;
  int nwin = d->nsteps ? (int)d->nsteps : 1;
  window *w = calloc((size_t)nwin + 1, sizeof *w);
  char *text = malloc(TEXT_MAX);
  cJSON *r = cJSON_CreateObject();
  if (!w || !text || !r) {
    free(w);
    free(text);
    cJSON_Delete(r);
    return NULL;
  }
  window *all = &w[nwin];
  int worst = 0;
  for (int i = 0; i < nwin; i++) {
    if (d->nsteps) {
      /* a step that runs into the next one (a trace merged from several processes) is read up to the next's start */
      double next = i + 1 < nwin ? d->steps[i + 1].ts : d->steps[i].ts + d->steps[i].dur;
      w[i].a = d->steps[i].ts;
      w[i].b = d->steps[i].ts + d->steps[i].dur < next ? d->steps[i].ts + d->steps[i].dur : next;
      snprintf(w[i].name, sizeof w[i].name, "ProfilerStep#%ld", d->steps[i].n);
    } else {
      w[i].a = d->t0;
      w[i].b = d->t1;
      snprintf(w[i].name, sizeof w[i].name, "the whole trace");
    }
  }
  long left_out = analyse_all(d, w, nwin, short_us);
  if (left_out < 0) {
    free(w);
    free(text);
    cJSON_Delete(r);
    return NULL;
  }
  /* a step with no GPU op at all (the profiler stopping: 0.05 ms) is not the least busy step while another has work */
  int with_work = 0;
  for (int i = 0; i < nwin; i++) with_work |= w[i].busy > 0;
  if (with_work)
    while (worst + 1 < nwin && w[worst].busy <= 0) worst++;
  for (int i = 0; i < nwin; i++) {
    sum_into(all, &w[i]);
    double idle = w[i].b - w[i].a - w[i].busy, widle = w[worst].b - w[worst].a - w[worst].busy;
    if ((!with_work || w[i].busy > 0) && pct(idle, w[i].b - w[i].a) > pct(widle, w[worst].b - w[worst].a)) worst = i;
  }
  cJSON_AddNumberToObject(r, "doctor", 1);
  cJSON *t = cJSON_AddObjectToObject(r, "trace");
  cJSON_AddNumberToObject(t, "events", (double)d->events);
  cJSON_AddNumberToObject(t, "timed_events", (double)d->x_events);
  cJSON_AddNumberToObject(t, "gpu_events", (double)d->gpu_events);
  cJSON_AddNumberToObject(t, "memory_events", (double)d->memory_events);
  cJSON_AddNumberToObject(t, "span_ms", r3((d->t1 - d->t0) / 1000));
  cJSON_AddNumberToObject(t, "profiler_steps", (double)d->nsteps + (double)d->dropped_steps);
  cJSON_AddNumberToObject(t, "distinct_names", (double)d->nnames);
  cJSON_AddNumberToObject(t, "events_named_other", (double)d->names_other);
  cJSON_AddNumberToObject(t, "gpu_events_not_analysed", (double)d->dropped_gpu);
  cJSON_AddNumberToObject(t, "host_calls_not_analysed", (double)d->dropped_host);
  cJSON_AddNumberToObject(t, "host_ops", (double)d->nops + (double)d->dropped_ops);
  cJSON_AddNumberToObject(t, "host_ops_not_analysed", (double)d->dropped_ops);
  /* records running across a step's start past SWEEP_LIVE at once: left out of those steps */
  if (left_out) cJSON_AddNumberToObject(t, "events_left_out_of_steps", (double)left_out);
  if (d->have_dist) cJSON_AddNumberToObject(t, "world_size", d->dist_world);
  cJSON_AddNumberToObject(t, "gpu_ops_tied_to_launch", (double)d->tied_ops);
  cJSON_AddStringToObject(t, "tied_by", d->tied_by == DT_CORRELATION ? "correlation"
                                        : d->tied_by == DT_FLOWS     ? "ac2g_flows"
                                        : d->tied_by == DT_EXTERNAL  ? "external_id"
                                                                     : "none: gaps matched to host calls by time overlap");
  if (d->tied_ops) cJSON_AddNumberToObject(t, "launch_to_start_median_us", r1(hist_median(d->queue_hist, d->tied_ops)));
  cJSON_AddNumberToObject(t, "flows_not_analysed", (double)d->dropped_flows);
  if (d->producer[0]) cJSON_AddStringToObject(t, "producer", d->producer);
  if (d->source[0]) cJSON_AddStringToObject(t, "source", d->source);
  cJSON *steps = cJSON_AddArrayToObject(r, "steps");
  for (int i = 0; i < nwin && i < MAX_STEPS_OUT; i++) cJSON_AddItemToArray(steps, step_json(d, &w[i], d->t0));
  cJSON *list = cJSON_AddArrayToObject(r, "findings");
  if (!strncmp(d->source, "simulated", 9)) simulated_finding(list, d, text);
  if (!d->gpu_events) {
    cpu_only_finding(list, d, w, nwin, text);
  } else {
    const window *ww = &w[worst];
    if (pct(ww->busy, ww->b - ww->a) < 80) idle_finding(list, d, ww, text);
    /* launch-bound only with its evidence: many short kernels, the idle time spread over many small gaps, real timings */
    if (launch_evidence(ww, ww->b - ww->a - ww->busy) && !d->profiler_range) launch_finding(list, d, all, nwin, short_us, text);
    if (all->cls_n[DC_H2D_PAGEABLE] || all->cls_n[DC_H2D_PINNED]) copy_finding(list, all, nwin, d->nsteps > 0, text);
    gpu_time_finding(list, d, all, text);
  }
  if (d->dev_name[0] || d->have_memory) device_finding(list, d, text);
  lab_dr_label_facts(list);
  const window *tw = &w[worst];
  const char *why = !d->nsteps ? "the trace has no ProfilerStep"
                    : !d->gpu_events ? "the first profiler step: a trace without GPU events has no idle time to choose by"
                                     : "the step in which the GPU was idle the largest share of the time";
  /* the chosen step's largest gap is the one its finding names; a blocking
   * call there (.item(), the loader's __next__) is on the host lane already */
  long op = tw->ngaps && tw->gaps[0].host < 0 ? tw->gaps[0].act.outer : -1;
  if (lab_dr_timeline(d, r, tw->a, tw->b, tw->name, why, op)) {
    cJSON_Delete(r);
    r = NULL;
  }
  free(w);
  free(text);
  return r;
}
