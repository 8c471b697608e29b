/* The Chrome Trace Event Format export of a result envelope (docs/trace.md):
 * one process per device ("host", "GPU 0", ...), one thread per timeline
 * lane — split into sub-threads where a lane's spans overlap, since spans on
 * one thread must nest — complete (X) events in µs from the run's start,
 * named and categorised as PyTorch's profiler (Kineto) writes them
 * (trace_kineto.c) so that a Kineto reader such as `gpulab doctor` reads
 * them, ProfilerStep spans, ac2g flows from each launch to its GPU op, and
 * memory as counters and as "[memory]" events. */
#include "trace_export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "trace_kineto.h"

#define MAX_LANES 64   /* distinct lane names kept apart; more share the last one */
#define MAX_TRACKS 512 /* threads, sub-threads included */
#define MAX_DEPTH 32   /* open spans per thread while placing */
#define LANE_NAME 96

typedef struct {
  const char *lane, *label;
  double start_us, end_us;
  int tid;
  int step;     /* a ProfilerStep span we add (label is the builder's step name); 0: a timeline span */
  int partner;  /* host span: the GPU span it launches; GPU span: its launch; -1: none */
  long corr;    /* correlation id (and flow id), 0: none */
  lab_tk_kind k;
} span;

typedef struct {
  char lane[LANE_NAME];
  int pid, sub;
  double open_end[MAX_DEPTH]; /* ends of the spans still open, outermost first */
  int depth;
} track;

typedef struct {
  char key[LANE_NAME]; /* "host", "gpu:0", or the lane's own prefix */
  int pid;
} process;

typedef struct {
  span *spans;
  int n;
  char (*step_names)[32];
  track tracks[MAX_TRACKS];
  int n_tracks;
  process procs[MAX_LANES];
  int n_procs;
} builder;

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The host lane is "cpu"; device lanes are "gpu:N/streamK" or "gpu:N/engine/...";
 * any other "prefix:rest" or "prefix/rest" lane is its own process. */
static int is_host(const char *lane) { return !strcmp(lane, "cpu") || !strncmp(lane, "cpu/", 4); }

static void process_key(const char *lane, char out[LANE_NAME]) {
  if (is_host(lane)) {
    snprintf(out, LANE_NAME, "host");
    return;
  }
  const char *slash = strchr(lane, '/');
  size_t n = slash ? (size_t)(slash - lane) : strlen(lane);
  if (n >= LANE_NAME) n = LANE_NAME - 1;
  memcpy(out, lane, n);
  out[n] = 0;
}

static int pid_of(builder *b, const char *lane) {
  char key[LANE_NAME];
  process_key(lane, key);
  for (int i = 0; i < b->n_procs; i++)
    if (!strcmp(b->procs[i].key, key)) return b->procs[i].pid;
  if (b->n_procs == MAX_LANES) return b->procs[MAX_LANES - 1].pid;
  process *p = &b->procs[b->n_procs++];
  snprintf(p->key, sizeof p->key, "%s", key);
  p->pid = b->n_procs; /* 1 is whichever comes first; the host lane always does in our timelines */
  return p->pid;
}

/* A span fits a thread when it starts at or after every span there that has
 * ended, and ends within the innermost one still open: the nesting rule of
 * the format (no partial overlap on one thread). */
static int fits(track *t, double s, double e) {
  int d = t->depth;
  while (d > 0 && t->open_end[d - 1] <= s) d--;
  return d == 0 || (e <= t->open_end[d - 1] && d < MAX_DEPTH);
}

static void place(track *t, double s, double e) {
  while (t->depth > 0 && t->open_end[t->depth - 1] <= s) t->depth--;
  t->open_end[t->depth++] = e;
}

static int track_for(builder *b, const span *sp) {
  int sub = 0, last = -1;
  for (int i = 0; i < b->n_tracks; i++) {
    track *t = &b->tracks[i];
    if (strncmp(t->lane, sp->lane, LANE_NAME - 1) != 0) continue;
    last = i;
    sub++;
    if (fits(t, sp->start_us, sp->end_us)) {
      place(t, sp->start_us, sp->end_us);
      return i;
    }
  }
  if (b->n_tracks == MAX_TRACKS) return last >= 0 ? last : MAX_TRACKS - 1;
  track *t = &b->tracks[b->n_tracks];
  snprintf(t->lane, sizeof t->lane, "%s", sp->lane);
  t->pid = pid_of(b, sp->lane);
  t->sub = sub;
  t->depth = 0;
  place(t, sp->start_us, sp->end_us);
  return b->n_tracks++;
}

/* Longer spans first among those that start together, so an enclosing span
 * is placed before what it encloses. */
static int by_start(const void *pa, const void *pb) {
  const span *a = pa, *b = pb;
  if (a->start_us != b->start_us) return a->start_us < b->start_us ? -1 : 1;
  if (a->end_us != b->end_us) return a->end_us > b->end_us ? -1 : 1;
  return 0;
}

static cJSON *event(cJSON *events, const char *ph, const char *name, int pid, int tid) {
  cJSON *e = cJSON_CreateObject();
  if (!e) return NULL;
  cJSON_AddItemToArray(events, e);
  cJSON_AddStringToObject(e, "name", name);
  cJSON_AddStringToObject(e, "ph", ph);
  cJSON_AddNumberToObject(e, "pid", pid);
  cJSON_AddNumberToObject(e, "tid", tid);
  return e;
}

static void meta(cJSON *events, const char *what, int pid, int tid, const char *key, cJSON *value) {
  cJSON *e = event(events, "M", what, pid, tid);
  if (!e) {
    cJSON_Delete(value);
    return;
  }
  cJSON_AddNumberToObject(e, "ts", 0);
  cJSON_AddItemToObject(cJSON_AddObjectToObject(e, "args"), key, value);
}

/* "GPU 0, stream 3" for gpu:0/stream3, "GPU 0, copy engine H2D" for gpu:0/engine/h2d. */
static void thread_name(const track *t, char *out, size_t n) {
  int dev = 0, stream = 0;
  char rest[LANE_NAME] = "";
  const char *lane = strstr(t->lane, "gpu:") ? strstr(t->lane, "gpu:") : t->lane;
  if (is_host(lane)) snprintf(out, n, "host thread");
  else if (sscanf(lane, "gpu:%d/stream%d", &dev, &stream) == 2) snprintf(out, n, "stream %d", stream);
  else if (sscanf(lane, "gpu:%d/engine/%60s", &dev, rest) == 2) snprintf(out, n, "copy engine %s", rest);
  else snprintf(out, n, "%s", t->lane);
  if (t->sub > 0) {
    size_t k = strlen(out);
    snprintf(out + k, n - k, " (overlap %d)", t->sub + 1);
  }
}

static void process_name(const process *p, const cJSON *env, char *out, size_t n) {
  int dev = 0;
  const char *dn = str_of(cJSON_GetObjectItemCaseSensitive(env, "device"), "name");
  const char *gpu = strstr(p->key, "gpu:");
  int pre = gpu ? (int)(gpu - p->key) : 0; /* "race:" in "race:gpu:0": the streams experiment's other runs */
  if (!strcmp(p->key, "host")) snprintf(out, n, "host (CPU)");
  else if (gpu && sscanf(gpu, "gpu:%d", &dev) == 1)
    snprintf(out, n, "%.*s%sGPU %d%s%s", pre > 0 ? pre - 1 : 0, p->key, pre > 0 ? ": " : "", dev, dn ? ": " : "",
             dn ? dn : "");
  else snprintf(out, n, "%s", p->key);
}

static void metadata_events(cJSON *events, const builder *b, const cJSON *env) {
  char name[160];
  for (int i = 0; i < b->n_procs; i++) {
    process_name(&b->procs[i], env, name, sizeof name);
    meta(events, "process_name", b->procs[i].pid, 0, "name", cJSON_CreateString(name));
    meta(events, "process_sort_index", b->procs[i].pid, 0, "sort_index", cJSON_CreateNumber(b->procs[i].pid));
  }
  for (int i = 0; i < b->n_tracks; i++) {
    thread_name(&b->tracks[i], name, sizeof name);
    meta(events, "thread_name", b->tracks[i].pid, i + 1, "name", cJSON_CreateString(name));
    meta(events, "thread_sort_index", b->tracks[i].pid, i + 1, "sort_index", cJSON_CreateNumber(i + 1));
  }
}

static void complete_events(cJSON *events, const builder *b) {
  for (int i = 0; i < b->n; i++) {
    const span *sp = &b->spans[i];
    cJSON *e = event(events, "X", sp->step ? sp->label : sp->k.name, b->tracks[sp->tid].pid, sp->tid + 1);
    if (!e) return;
    cJSON_AddStringToObject(e, "cat", sp->step ? "user_annotation" : sp->k.cat);
    cJSON_AddNumberToObject(e, "ts", sp->start_us);
    cJSON_AddNumberToObject(e, "dur", sp->end_us - sp->start_us);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    if (sp->step) continue;
    cJSON_AddStringToObject(args, "lane", sp->lane);
    cJSON_AddStringToObject(args, "label", sp->label);
    if (sp->k.device >= 0 && lab_tk_is_gpu(sp->k.cat)) {
      cJSON_AddNumberToObject(args, "device", sp->k.device);
      cJSON_AddNumberToObject(args, "stream", sp->k.stream);
    }
    if (sp->corr) {
      cJSON_AddNumberToObject(args, "correlation", (double)sp->corr);
      cJSON_AddNumberToObject(args, "External id", (double)sp->corr);
    }
    if (sp->k.bytes > 0) cJSON_AddNumberToObject(args, "bytes", sp->k.bytes);
  }
}

/* The kernel a host span launches, by the pairing rule (our timelines carry
 * no link field): "launch L" launches the first device span labelled L or
 * "L (...)" that starts no earlier and is not yet paired, launches taken in
 * time order; "cudaGraphLaunch ..." launches the first "graph node ..." span
 * the same way. NULL: the host span launches nothing. */
static int launches(const char *host_label, const char *dev_label) {
  if (!strncmp(host_label, "cudaGraphLaunch", 15)) return !strncmp(dev_label, "graph node", 10);
  if (strncmp(host_label, "launch ", 7) != 0) return 0;
  const char *l = host_label + 7;
  size_t n = strlen(l);
  return !strncmp(dev_label, l, n) && (dev_label[n] == 0 || !strncmp(dev_label + n, " (", 2));
}

/* Pairs each launch with its GPU op and gives every host call and GPU op a
 * correlation id, as CUPTI does: a launch and what it launched share one
 * (all the nodes of a graph share their cudaGraphLaunch's). */
static void correlate(builder *b) {
  long id = 0;
  for (int i = 0; i < b->n; i++) b->spans[i].partner = -1;
  for (int i = 0; i < b->n; i++) {
    span *l = &b->spans[i];
    if (l->step || !is_host(l->lane)) continue;
    int graph = !strncmp(l->label, "cudaGraphLaunch", 15);
    for (int k = 0; k < b->n; k++) {
      span *g = &b->spans[k];
      if (g->step || g->corr || is_host(g->lane) || !lab_tk_is_gpu(g->k.cat) || g->start_us < l->start_us ||
          !launches(l->label, g->label))
        continue;
      if (!l->corr) {
        l->corr = ++id;
        l->partner = k;
        g->partner = i;
      }
      g->corr = l->corr;
      if (!graph) break;
    }
  }
  for (int i = 0; i < b->n; i++) {
    span *sp = &b->spans[i];
    if (!sp->step && !sp->corr && (lab_tk_is_gpu(sp->k.cat) || !strcmp(sp->k.cat, "cuda_runtime"))) sp->corr = ++id;
  }
}

/* Kineto's ac2g flow: s at the runtime call, f (bound to the enclosing
 * slice) at the GPU op, id = the correlation id. */
static void flow_events(cJSON *events, const builder *b) {
  for (int i = 0; i < b->n; i++) {
    const span *l = &b->spans[i];
    if (l->step || !is_host(l->lane) || l->partner < 0) continue;
    const span *g = &b->spans[l->partner];
    cJSON *s = event(events, "s", "ac2g", b->tracks[l->tid].pid, l->tid + 1);
    cJSON *f = event(events, "f", "ac2g", b->tracks[g->tid].pid, g->tid + 1);
    if (!s || !f) break;
    cJSON_AddStringToObject(s, "cat", "ac2g");
    cJSON_AddNumberToObject(s, "id", (double)l->corr);
    cJSON_AddNumberToObject(s, "ts", l->start_us);
    cJSON_AddStringToObject(f, "cat", "ac2g");
    cJSON_AddNumberToObject(f, "id", (double)l->corr);
    cJSON_AddNumberToObject(f, "ts", g->start_us);
    cJSON_AddStringToObject(f, "bp", "e");
  }
}

static const cJSON *series(const cJSON *env, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const char *sid = str_of(s, "id");
    if (sid && !strcmp(sid, id)) return cJSON_GetObjectItemCaseSensitive(s, "points");
  }
  return NULL;
}

/* Memory results (allocator, memory) record allocated and reserved per event
 * or per step, not per time: the counters stand one µs apart, one per point,
 * on their own process, and otherData says so. Returns how many were written. */
static int counter_events(cJSON *events, const cJSON *env, int pid) {
  const cJSON *al = series(env, "allocated"), *re = series(env, "reserved");
  int n = 0;
  if (!al || !re) return 0;
  const cJSON *a = al->child, *r = re->child;
  for (; a && r; a = a->next, r = r->next) {
    if (cJSON_GetArraySize(a) != 2 || cJSON_GetArraySize(r) != 2) continue;
    double x = a->child->valuedouble, va = a->child->next->valuedouble, vr = r->child->next->valuedouble;
    if (!isfinite(x) || !isfinite(va) || !isfinite(vr)) continue;
    cJSON *e = event(events, "C", "memory (MiB)", pid, 0);
    if (!e) break;
    cJSON_AddNumberToObject(e, "ts", (double)n);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddNumberToObject(args, "allocated", va);
    cJSON_AddNumberToObject(args, "reserved", vr);
    n++;
  }
  return n;
}

static void other_data(cJSON *trace, const cJSON *env, const char *version, const char *date, int counters) {
  cJSON *o = cJSON_AddObjectToObject(trace, "otherData");
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(env, "device");
  const char *backend = str_of(env, "backend"), *prof = str_of(dev, "profile"), *dn = str_of(dev, "name");
  const char *exp = str_of(env, "experiment");
  cJSON_AddStringToObject(o, "producer", "gpulab");
  if (version) cJSON_AddStringToObject(o, "gpulab_version", version);
  if (date) cJSON_AddStringToObject(o, "date", date);
  cJSON_AddStringToObject(o, "experiment", exp ? exp : "");
  cJSON_AddStringToObject(o, "backend", backend ? backend : "");
  if (dn) cJSON_AddStringToObject(o, "device", dn);
  if (prof) cJSON_AddStringToObject(o, "profile", prof);
  const char *source = !backend                       ? "unknown"
                       : !strcmp(backend, "cuda")      ? "live: measured on this GPU in this run"
                       : !strcmp(backend, "recorded")  ? "recorded: measured on a real GPU earlier and replayed"
                       : !strcmp(backend, "pytorch")   ? "your own run: measured with PyTorch by gpulab's measurement kit"
                       : !strcmp(backend, "simulated") ? "simulated: computed by gpulab's model of the profile, not a "
                                                         "measurement"
                                                       : "unknown";
  cJSON_AddStringToObject(o, "source", source);
  if (exp && !strcmp(exp, "profile"))
    cJSON_AddStringToObject(o, "timeline_of", "one training step of the profile experiment");
  cJSON_AddStringToObject(o, "time_unit", "microseconds from the run's start (ts, dur)");
  if (counters)
    cJSON_AddStringToObject(o, "memory_counters",
                            "allocated and reserved in MiB, one point per allocation event or step, placed 1 µs "
                            "apart: their times are an order, not a measurement");
  cJSON *params = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(env, "params"), 1);
  if (params) cJSON_AddItemToObject(o, "params", params);
}

/* Times kept to the nanosecond: a model's clocks add up in doubles, and a
 * kernel that starts 2e-13 µs before the previous one ends would otherwise
 * overlap it on one stream. Rounding keeps every order and every nesting. */
static double to_ns(double us) { return round(us * 1e3) / 1e3; }

/* A ProfilerStep span on the host lane from each span labelled opener to
 * the next (the last to the end of the host spans after it), as
 * torch.profiler's prof.step() marks them. Spans are sorted by start. */
static int add_steps(builder *b, const char *opener, long first) {
  int n = b->n, k = 0;
  b->step_names = calloc((size_t)n + 1, sizeof *b->step_names);
  if (!b->step_names) return -1;
  for (int i = 0; i < n; i++) {
    if (!is_host(b->spans[i].lane) || strcmp(b->spans[i].label, opener)) continue;
    double end = b->spans[i].end_us;
    int j = i + 1;
    for (; j < n; j++) {
      if (!is_host(b->spans[j].lane)) continue;
      if (!strcmp(b->spans[j].label, opener)) break;
      if (b->spans[j].end_us > end) end = b->spans[j].end_us;
    }
    if (j < n) end = b->spans[j].start_us;
    snprintf(b->step_names[k], sizeof b->step_names[k], "ProfilerStep#%ld", first + k);
    span *st = &b->spans[b->n++];
    *st = b->spans[i];
    st->label = b->step_names[k++];
    st->end_us = end;
    st->step = 1;
  }
  if (k) qsort(b->spans, (size_t)b->n, sizeof *b->spans, by_start);
  return 0;
}

static int collect(builder *b, const cJSON *env) {
  const cJSON *tl = cJSON_GetObjectItemCaseSensitive(env, "timeline");
  int cap = cJSON_GetArraySize(tl);
  b->spans = calloc(2 * (size_t)cap + 1, sizeof *b->spans); /* room for a step per span */
  if (!b->spans) return -1;
  double t0 = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, tl) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "start_us"), *en = cJSON_GetObjectItemCaseSensitive(e, "end_us");
    const char *lane = str_of(e, "lane"), *label = str_of(e, "label");
    if (!lane || !label || !cJSON_IsNumber(s) || !cJSON_IsNumber(en) || !isfinite(s->valuedouble) ||
        !isfinite(en->valuedouble))
      continue;
    span *sp = &b->spans[b->n++];
    /* A span that ends before it starts (a clock step) is drawn as an instant. */
    *sp = (span){lane, label, s->valuedouble, en->valuedouble < s->valuedouble ? s->valuedouble : en->valuedouble, 0, 0, -1, 0, {0}};
    lab_tk_kind_of(env, lane, label, &sp->k);
    if (sp->start_us < t0) t0 = sp->start_us;
  }
  /* Times are µs from the run's start: our timelines begin at 0; one that
   * reaches before it is shifted so that no ts is negative. */
  for (int i = 0; i < b->n; i++) {
    b->spans[i].start_us = to_ns(b->spans[i].start_us - t0);
    b->spans[i].end_us = to_ns(b->spans[i].end_us - t0);
  }
  qsort(b->spans, (size_t)b->n, sizeof *b->spans, by_start);
  long first = 0;
  const char *opener = lab_tk_step_opener(env, &first);
  if (opener && add_steps(b, opener, first)) return -1;
  correlate(b);
  /* The host lane first, so that it is process 1, thread 1. */
  for (int i = 0; i < b->n; i++)
    if (is_host(b->spans[i].lane)) {
      pid_of(b, b->spans[i].lane);
      break;
    }
  for (int i = 0; i < b->n; i++) b->spans[i].tid = track_for(b, &b->spans[i]);
  return 0;
}

int lab_trace_has_timeline(const cJSON *env) {
  return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "timeline")) > 0 ||
         (series(env, "allocated") && series(env, "reserved"));
}

cJSON *lab_trace_from_envelope(const cJSON *env, const char *version, const char *date, lab_error *err) {
  if (lab_envelope_check(env, err)) return NULL;
  builder *b = calloc(1, sizeof *b);
  cJSON *trace = cJSON_CreateObject();
  cJSON *events = trace ? cJSON_AddArrayToObject(trace, "traceEvents") : NULL;
  if (!b || !events || collect(b, env)) {
    cJSON_Delete(trace);
    trace = NULL;
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto end;
  }
  int counter_pid = b->n_procs + 1;
  int counters = counter_events(events, env, counter_pid);
  metadata_events(events, b, env);
  if (counters) {
    meta(events, "process_name", counter_pid, 0, "name", cJSON_CreateString("GPU memory (allocator)"));
    meta(events, "process_sort_index", counter_pid, 0, "sort_index", cJSON_CreateNumber(counter_pid));
  }
  if (counters) lab_tk_memory_events(events, env, counter_pid, 0);
  complete_events(events, b);
  flow_events(events, b);
  cJSON_AddNumberToObject(trace, "schemaVersion", 1);
  lab_tk_device_properties(trace, env);
  cJSON_AddStringToObject(trace, "displayTimeUnit", "ms");
  other_data(trace, env, version, date, counters);
end:
  if (b) {
    free(b->spans);
    free(b->step_names);
  }
  free(b);
  return trace;
}
