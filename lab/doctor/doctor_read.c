/* `gpulab doctor`'s reader: the streaming JSON callbacks that pick the
 * fields Kineto writes (libkineto/src/output_json.cpp: traceEvents with ph,
 * cat, name, ts, dur, args; deviceProperties; distributedInfo) and keep
 * each event as one fixed-size record. Names are interned (at most
 * LAB_DOCTOR_MAX_NAMES), so memory never grows with the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor_int.h"
#include "utf8.h"

static int fail(lab_doctor *d, lab_err code, const char *msg) {
  if (!d->err.code) lab_fail(&d->err, code, NULL, "%s", msg);
  return 1;
}

static uint32_t hash(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

/* The name's index, added when new; -1 when the table is full, or the
 * name's run of slots is past DR_NAME_PROBES (names made to collide):
 * "other". */
static int32_t intern(lab_doctor *d, const char *s, int gpu) {
  uint32_t h = hash(s), i = h & (DR_NAME_SLOTS - 1);
  for (int probe = 0;; i = (i + 1) & (DR_NAME_SLOTS - 1), probe++) {
    if (probe == DR_NAME_PROBES) return -1;
    int32_t k = d->slots[i];
    if (k < 0) break;
    if (d->names[k].hash == h && !strcmp(d->names[k].s, s)) return k;
  }
  if (d->nnames >= LAB_DOCTOR_MAX_NAMES) return -1;
  size_t len = strlen(s) + 1;
  char *c = malloc(len); /* not strdup: C11 has none, and the browser's build is plain C11 */
  if (!c) return -2;
  memcpy(c, s, len);
  dr_name *n = &d->names[d->nnames];
  memset(n, 0, sizeof *n);
  n->s = c;
  n->hash = h;
  n->gpu = (uint8_t)gpu;
  n->kernel_cls = -1;
  d->slots[i] = (int32_t)d->nnames;
  return (int32_t)d->nnames++;
}

static int contains(const char *s, const char *w) { return strstr(s, w) != NULL; }

static int kernel_class(const char *n) {
  if (contains(n, "nccl") || contains(n, "Nccl")) return DC_COMM;
  int mm = contains(n, "gemm") || contains(n, "Gemm") || contains(n, "GEMM") || contains(n, "cutlass") ||
           contains(n, "xmma") || contains(n, "wgmma") || contains(n, "matmul") || contains(n, "cublas") ||
           contains(n, "flash_fwd") || contains(n, "flash_bwd") || contains(n, "fmha");
  if (mm) {
    /* a kernel on the CUDA cores says so, whatever library made it: cuBLAS's FP32 GEMMs on the H100 of the first
     * lease were "sm80_xmma_gemm_f32f32_..._ffma_..." and "cutlass_80_simt_sgemm_..." (tests/doctor/gpu) */
    if (contains(n, "ffma") || contains(n, "simt")) return DC_MATMUL;
    /* tensor-core kernels name their MMA shape or instruction (s1688, 16816, hmma, tensorop, xmma, wgmma, gmma) */
    static const char *const tc[] = {"1688", "16816", "884", "hmma", "tensorop", "xmma", "wgmma", "gmma", "mma", "bf16", "fp16", "f16f16", "h884", NULL};
    for (int i = 0; tc[i]; i++)
      if (contains(n, tc[i])) return DC_MATMUL_TC;
    return DC_MATMUL;
  }
  if (contains(n, "reduce") || contains(n, "Reduce") || contains(n, "softmax") || contains(n, "norm")) return DC_REDUCE;
  if (contains(n, "elementwise") || contains(n, "Elementwise") || contains(n, "vectorized") || contains(n, "unrolled") ||
      contains(n, "triton_poi") || contains(n, "fill_kernel") ||
      contains(n, "multi_tensor_apply")) /* the foreach kernels of optimizers: elementwise over lists of tensors */
    return DC_ELEMENTWISE;
  return DC_OTHER_KERNEL;
}

/* Kineto names a copy "Memcpy HtoD (Pageable -> Device)" (older: "Memcpy HtoD") */
static int copy_class(const char *n) {
  if (contains(n, "HtoD")) return contains(n, "Pinned") ? DC_H2D_PINNED : DC_H2D_PAGEABLE;
  if (contains(n, "DtoH")) return DC_D2H;
  if (contains(n, "DtoD") || contains(n, "PtoP")) return DC_D2D;
  return DC_COPY_OTHER;
}

static void hist_add(uint32_t *h, double us) {
  double b = us * 10.0; /* compared before the cast: a long is 32 bits in wasm */
  h[b <= 0 ? 0 : b >= DR_HIST_BINS - 1 ? DR_HIST_BINS - 1 : (long)b]++;
}

/* a trace's integer field as an int, whatever number it holds */
static int as_int(double v) { return v < -1e9 ? -1000000000 : v > 1e9 ? 1000000000 : (int)v; }

static int grow(void **p, long *cap, long need, size_t size, long max) {
  if (need <= *cap) return 0;
  if (need > max) return 1;
  long nc = *cap ? *cap * 2 : 1024;
  if (nc > max) nc = max;
  void *q = realloc(*p, (size_t)nc * size);
  if (!q) return -1;
  *p = q;
  *cap = nc;
  return 0;
}

static int host_kind(const char *cat, const char *n) {
  if (!strcasecmp(cat, "cuda_runtime") || !strcasecmp(cat, "cuda_driver") || !strcasecmp(cat, "Runtime") ||
      !strcasecmp(cat, "Driver")) {
    if (contains(n, "Synchronize")) return DH_SYNC;
    if (!strcmp(n, "cudaMemcpy") || !strcmp(n, "cuMemcpyDtoH_v2") || !strcmp(n, "cudaMemcpy2D")) return DH_COPY;
    return DH_RUNTIME;
  }
  if (!strcmp(n, "aten::_local_scalar_dense") || !strcmp(n, "aten::item")) return DH_ITEM;
  if (contains(n, "DataLoader") && contains(n, "__next__")) return DH_LOADER;
  return -1;
}

/* A host operator's category (DO_*), or -1: a runtime call, a CPU instant
 * or the whole trace's "Trace" span. The legacy format (no cat) holds only
 * the CPU's operators. */
static int op_kind(const char *cat) {
  if (!cat[0] || !strcasecmp(cat, "cpu_op") || !strcasecmp(cat, "Operator")) return DO_CPU_OP;
  if (!strcasecmp(cat, "user_annotation")) return DO_ANNOTATION;
  if (!strcasecmp(cat, "python_function")) return DO_PYTHON;
  return -1;
}

/* The key that ties a GPU op to its launch: args.correlation (CUPTI's id,
 * which Kineto writes on both the runtime call and the GPU op), else the
 * External id of the operator both belong to (negated, a space of its own). */
static int64_t corr_key(const lab_doctor *d) {
  if (d->have_corr && d->corr >= 1 && d->corr < 9e15) return (int64_t)d->corr;
  if (d->have_ext && d->ext_id >= 1 && d->ext_id < 9e15) return -(int64_t)d->ext_id;
  return 0;
}

static int flow_end(lab_doctor *d) {
  if (!d->have_ts || !d->have_flow_id || strcmp(d->cat, "ac2g")) return 0;
  int g = grow((void **)&d->flows, &d->capflows, d->nflows + 1, sizeof *d->flows, LAB_DOCTOR_MAX_FLOWS);
  if (g < 0) return fail(d, LAB_E_NOMEM, "out of memory while reading the trace's flows");
  if (g > 0) {
    d->dropped_flows++;
    return 0;
  }
  d->flows[d->nflows++] = (dr_flow){d->ts, d->flow_id, (uint8_t)(d->ph == 's')};
  return 0;
}

static int end_event(lab_doctor *d) {
  d->events++;
  const char *cat = d->cat, *n = d->name;
  if (d->ph == 's' || d->ph == 'f') return flow_end(d);
  if ((d->ph == 'i' || d->ph == 'I') && !strcmp(n, "[memory]")) {
    d->memory_events++;
    if (d->have_alloc && d->alloc > d->peak_alloc) d->peak_alloc = d->alloc;
    if (d->have_reserved && d->reserved > d->peak_reserved) d->peak_reserved = d->reserved;
    d->have_memory |= d->have_alloc || d->have_reserved;
    return 0;
  }
  if (d->ph != 'X' || !d->have_ts || !d->have_dur) return 0;
  d->x_events++;
  double ts = d->ts, dur = d->dur;
  if (d->x_events == 1 || ts < d->t0) d->t0 = ts;
  if (d->x_events == 1 || ts + dur > d->t1) d->t1 = ts + dur;
  /* CUPTI's range profiler writes each kernel it replayed as cuda_profiler_range: GPU work */
  int range = !strcasecmp(cat, "cuda_profiler_range");
  d->profiler_range += range;
  int kind = !strcasecmp(cat, "kernel") || range ? DR_KERNEL
             : (!strcasecmp(cat, "gpu_memcpy") || !strcasecmp(cat, "Memcpy")) ? DR_MEMCPY
             : (!strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "Memset")) ? DR_MEMSET
                                                                                  : -1;
  if (kind >= 0) {
    d->gpu_events++;
    int32_t id = intern(d, n, 1);
    if (id == -2) return fail(d, LAB_E_NOMEM, "out of memory while reading the trace's names");
    if (id >= 0) {
      d->names[id].total_us += dur;
      d->names[id].count++;
    } else d->names_other++;
    if (kind == DR_KERNEL) {
      d->kernels++;
      hist_add(d->kernel_hist, dur);
    }
    int g = grow((void **)&d->gpu, &d->capgpu, d->ngpu + 1, sizeof *d->gpu, LAB_DOCTOR_MAX_GPU_EVENTS);
    if (g < 0) return fail(d, LAB_E_NOMEM, "out of memory while reading the trace's GPU events");
    if (g > 0) {
      d->dropped_gpu++;
      return 0;
    }
    dr_gpu *r = &d->gpu[d->ngpu++];
    r->ts = ts;
    r->dur = dur;
    r->bytes = d->have_bytes ? d->bytes : 0;
    r->name = id;
    r->corr = corr_key(d);
    r->launch = -1;
    r->tied = DT_NONE;
    r->device = (int16_t)(d->have_device && d->device >= 0 && d->device < 32767 ? (int)d->device : 0);
    r->stream = d->have_stream ? as_int(d->stream) : 0;
    r->kind = (uint8_t)kind;
    if (kind == DR_KERNEL && id >= 0 && d->names[id].kernel_cls < 0) d->names[id].kernel_cls = (int8_t)kernel_class(n);
    r->cls = (uint8_t)(kind == DR_KERNEL ? (id >= 0 ? d->names[id].kernel_cls : kernel_class(n))
                       : kind == DR_MEMSET ? DC_MEMSET : copy_class(n));
    return 0;
  }
  d->host_events++;
  if (!strncmp(n, "ProfilerStep#", 13) && strcasecmp(cat, "gpu_user_annotation")) {
    if (d->nsteps >= LAB_DOCTOR_MAX_STEPS) d->dropped_steps++;
    else d->steps[d->nsteps++] = (dr_step){ts, dur, strtol(n + 13, NULL, 10)};
    return 0;
  }
  if (contains(n, "cudaLaunchKernel") || contains(n, "cuLaunchKernel")) {
    d->launches++;
    hist_add(d->launch_hist, dur);
  }
  int32_t id = intern(d, n, 0);
  if (id == -2) return fail(d, LAB_E_NOMEM, "out of memory while reading the trace's names");
  if (id >= 0) {
    d->names[id].total_us += dur;
    d->names[id].count++;
  } else d->names_other++;
  int ok = op_kind(cat);
  if (ok >= 0) {
    int g = grow((void **)&d->ops, &d->capops, d->nops + 1, sizeof *d->ops, LAB_DOCTOR_MAX_HOST_OPS);
    if (g < 0) return fail(d, LAB_E_NOMEM, "out of memory while reading the trace's host operators");
    if (g > 0) d->dropped_ops++;
    else d->ops[d->nops++] = (dr_host){ts, dur, 0, id, (uint8_t)ok};
  }
  int hk = host_kind(cat, n);
  if (hk < 0) return 0;
  int g = grow((void **)&d->host, &d->caphost, d->nhost + 1, sizeof *d->host, LAB_DOCTOR_MAX_HOST_EVENTS);
  if (g < 0) return fail(d, LAB_E_NOMEM, "out of memory while reading the trace's host events");
  if (g > 0) {
    d->dropped_host++;
    return 0;
  }
  d->host[d->nhost++] = (dr_host){ts, dur, corr_key(d), id, (uint8_t)hk};
  return 0;
}

static int ev_depth(const lab_doctor *d) { return d->events_depth ? d->events_depth + 1 : -1; }

static int on_open(void *ctx, int is_object) {
  lab_doctor *d = ctx;
  d->depth++;
  if (d->depth == 1) {
    d->root_is_object = is_object;
    if (!is_object) d->events_depth = 1; /* the JSON Array Format: the events alone */
    return 0;
  }
  if (d->depth == 2 && d->root_is_object && !is_object) {
    if (!strcmp(d->root_key, "traceEvents")) {
      d->events_depth = 2;
      d->saw_trace_events = 1;
    } else if (!strcmp(d->root_key, "deviceProperties")) d->devprops_depth = 2;
    return 0;
  }
  if (d->depth == 2 && d->root_is_object && is_object && !strcmp(d->root_key, "distributedInfo")) d->have_dist = 1;
  if (d->depth == ev_depth(d) && is_object) {
    d->ph = 0;
    d->cat[0] = d->name[0] = 0;
    d->have_ts = d->have_dur = d->have_stream = d->have_bytes = d->have_alloc = d->have_reserved = 0;
    d->have_corr = d->have_ext = d->have_flow_id = d->have_device = 0;
    d->key[0] = 0;
  } else if (d->depth == ev_depth(d) + 1 && is_object && !strcmp(d->key, "args")) {
    d->in_args = 1;
  } else if (d->devprops_depth && d->depth == d->devprops_depth + 1 && is_object) {
    d->dev_index++;
  }
  return 0;
}

static int on_close(void *ctx, int is_object) {
  lab_doctor *d = ctx;
  int r = 0;
  if (is_object && d->depth == ev_depth(d)) r = end_event(d);
  if (is_object && d->in_args && d->depth == ev_depth(d) + 1) d->in_args = 0;
  if (d->depth == d->events_depth) d->events_depth = 0;
  if (d->depth == d->devprops_depth) {
    d->ndevices = d->dev_index;
    d->devprops_depth = 0;
  }
  d->depth--;
  return r;
}

/* A key or category, compared and never shown: cut to cap - 1 bytes. */
static void copy_key(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = 0;
}

/* A name the answer may show: cut to cap - 1 bytes at a character's
 * boundary and made valid UTF-8 (the JSON reader copies a string's bytes
 * as they come). */
static void copy_text(char *dst, size_t cap, const char *s, size_t n) {
  n = lab_utf8_fit(s, n, cap - 1);
  memcpy(dst, s, n);
  dst[n] = 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)dst[i] >= 0x80) { /* ASCII needs no repair */
      lab_utf8_repair(dst + i);
      break;
    }
}

static int on_key(void *ctx, const char *s, size_t n) {
  lab_doctor *d = ctx;
  if (d->depth == 1 && d->root_is_object) copy_key(d->root_key, sizeof d->root_key, s, n);
  else if (d->depth == ev_depth(d)) copy_key(d->key, sizeof d->key, s, n);
  else if (d->in_args && d->depth == ev_depth(d) + 1) copy_key(d->arg_key, sizeof d->arg_key, s, n);
  else if (d->devprops_depth && d->depth == d->devprops_depth + 1) copy_key(d->key, sizeof d->key, s, n);
  else if (d->have_dist && d->depth == 2 && !strcmp(d->root_key, "distributedInfo")) copy_key(d->key, sizeof d->key, s, n);
  else if (d->depth == 2 && d->root_is_object && !strcmp(d->root_key, "otherData")) copy_key(d->key, sizeof d->key, s, n);
  return 0;
}

static int on_string(void *ctx, const char *s, size_t n) {
  lab_doctor *d = ctx;
  if (d->depth == ev_depth(d)) {
    if (!strcmp(d->key, "ph")) d->ph = n ? s[0] : 0;
    else if (!strcmp(d->key, "cat")) copy_key(d->cat, sizeof d->cat, s, n);
    else if (!strcmp(d->key, "name")) copy_text(d->name, sizeof d->name, s, n);
  } else if (d->devprops_depth && d->depth == d->devprops_depth + 1 && d->dev_index == 1 && !strcmp(d->key, "name")) {
    copy_text(d->dev_name, sizeof d->dev_name, s, n);
  } else if (d->depth == 2 && d->root_is_object && !strcmp(d->root_key, "otherData")) {
    if (!strcmp(d->key, "producer")) copy_text(d->producer, sizeof d->producer, s, n);
    else if (!strcmp(d->key, "source")) copy_text(d->source, sizeof d->source, s, n);
  }
  return 0;
}

static int on_number(void *ctx, double v) {
  lab_doctor *d = ctx;
  if (d->depth == ev_depth(d)) {
    if (!strcmp(d->key, "ts")) {
      if (fabs(v) > 1e17) return fail(d, LAB_E_DOCTOR_BAD_NUMBER, "an event's ts is out of range (over 1e17 microseconds)");
      d->ts = v;
      d->have_ts = 1;
    } else if (!strcmp(d->key, "dur")) {
      if (v < 0 || v > 1e15) return fail(d, LAB_E_DOCTOR_BAD_NUMBER, "an event's dur is negative or out of range");
      d->dur = v;
      d->have_dur = 1;
    } else if (!strcmp(d->key, "id")) {
      d->flow_id = v;
      d->have_flow_id = 1;
    }
  } else if (d->in_args && d->depth == ev_depth(d) + 1) {
    const char *k = d->arg_key;
    if (!strcmp(k, "stream")) d->stream = v, d->have_stream = 1;
    else if (!strcmp(k, "correlation")) d->corr = v, d->have_corr = 1;
    else if (!strcmp(k, "External id")) d->ext_id = v, d->have_ext = 1;
    else if (!strcmp(k, "device")) d->device = v, d->have_device = 1;
    else if (!strcmp(k, "bytes")) {
      if (v < 0) return fail(d, LAB_E_DOCTOR_BAD_NUMBER, "a copy's bytes is negative");
      d->bytes = v, d->have_bytes = 1;
    } else if (!strcmp(k, "Total Allocated")) {
      if (v < 0) return fail(d, LAB_E_DOCTOR_BAD_NUMBER, "a memory event's Total Allocated is negative");
      d->alloc = v, d->have_alloc = 1;
    } else if (!strcmp(k, "Total Reserved")) {
      if (v < 0) return fail(d, LAB_E_DOCTOR_BAD_NUMBER, "a memory event's Total Reserved is negative");
      d->reserved = v, d->have_reserved = 1;
    }
  } else if (d->devprops_depth && d->depth == d->devprops_depth + 1 && d->dev_index == 1) {
    if (!strcmp(d->key, "totalGlobalMem")) d->dev_mem = v;
    else if (!strcmp(d->key, "computeMajor")) d->dev_major = as_int(v);
    else if (!strcmp(d->key, "computeMinor")) d->dev_minor = as_int(v);
  } else if (d->have_dist && d->depth == 2 && !strcmp(d->key, "world_size")) {
    d->dist_world = v;
  }
  return 0;
}

lab_doctor *lab_doctor_new(void) {
  lab_doctor *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->names = calloc(LAB_DOCTOR_MAX_NAMES, sizeof *d->names);
  d->slots = malloc(DR_NAME_SLOTS * sizeof *d->slots);
  d->kernel_hist = calloc(DR_HIST_BINS, sizeof *d->kernel_hist);
  d->launch_hist = calloc(DR_HIST_BINS, sizeof *d->launch_hist);
  d->queue_hist = calloc(DR_HIST_BINS, sizeof *d->queue_hist);
  lab_dj_sink sink = {d, on_open, on_close, on_key, on_string, on_number, NULL};
  d->json = lab_dj_new(&sink);
  if (!d->names || !d->slots || !d->kernel_hist || !d->launch_hist || !d->queue_hist || !d->json) {
    lab_doctor_free(d);
    return NULL;
  }
  memset(d->slots, 0xff, DR_NAME_SLOTS * sizeof *d->slots);
  return d;
}

void lab_doctor_free(lab_doctor *d) {
  if (!d) return;
  for (long i = 0; d->names && i < d->nnames; i++) free(d->names[i].s);
  free(d->names);
  free(d->slots);
  free(d->kernel_hist);
  free(d->launch_hist);
  free(d->queue_hist);
  free(d->gpu);
  free(d->host);
  free(d->ops);
  free(d->flows);
  lab_dj_free(d->json);
  free(d);
}

static int json_failure(lab_doctor *d, lab_dj_status s, int at_end, lab_error *err) {
  size_t off = lab_dj_offset(d->json);
  if (s == LAB_DJ_STOP) *err = d->err;
  else if (s == LAB_DJ_NONFINITE)
    lab_fail(err, LAB_E_DOCTOR_BAD_NUMBER, NULL, "The trace has NaN or Infinity at byte %zu: JSON has no such numbers; export it again.", off);
  else if (s == LAB_DJ_TOO_LONG)
    lab_fail(err, LAB_E_DOCTOR_NAME_TOO_LONG, NULL, "A string or number at byte %zu is over %d KiB: not a trace gpulab reads.", off, LAB_DJ_MAX_TOKEN / 1024);
  else if (s == LAB_DJ_NOMEM) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  else if (at_end && d->depth > 0)
    lab_fail(err, LAB_E_DOCTOR_TRUNCATED, NULL, "The trace ends after %zu bytes in the middle of its JSON: the file was cut short.", off);
  else if (s == LAB_DJ_TOO_DEEP)
    lab_fail(err, LAB_E_DOCTOR_NOT_TRACE, NULL, "The JSON nests deeper than %d levels at byte %zu: not a profiler trace.", LAB_DJ_MAX_DEPTH, off);
  else lab_fail(err, LAB_E_DOCTOR_NOT_TRACE, NULL, "Not JSON at byte %zu: give the .json (or .json.gz) torch.profiler wrote.", off);
  return -1;
}

int lab_doctor_feed(lab_doctor *d, const char *buf, size_t n, lab_error *err) {
  lab_dj_status s = lab_dj_feed(d->json, buf, n);
  return s ? json_failure(d, s, 0, err) : 0;
}

cJSON *lab_doctor_finish(lab_doctor *d, lab_error *err) {
  lab_dj_status s = lab_dj_end(d->json);
  if (s) {
    json_failure(d, s, 1, err);
    return NULL;
  }
  if (!d->root_is_object && !d->x_events && !d->events) {
    lab_fail(err, LAB_E_DOCTOR_NOT_TRACE, NULL, "This JSON has no traceEvents: it is not a Chrome trace from torch.profiler.");
    return NULL;
  }
  if (d->root_is_object && !d->saw_trace_events) {
    lab_fail(err, LAB_E_DOCTOR_NOT_TRACE, NULL, "This JSON has no traceEvents: it is not a Chrome trace from torch.profiler.");
    return NULL;
  }
  if (!d->x_events) {
    lab_fail(err, LAB_E_DOCTOR_NO_EVENTS, NULL, "The trace has %ld events but none with a duration (ph \"X\"): nothing to time.", d->events);
    return NULL;
  }
  cJSON *r = lab_dr_report(d);
  if (!r) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  return r;
}

cJSON *lab_doctor_read(const char *buf, size_t n, lab_error *err) {
  lab_doctor *d = lab_doctor_new();
  if (!d) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    return NULL;
  }
  cJSON *r = lab_doctor_feed(d, buf, n, err) ? NULL : lab_doctor_finish(d, err);
  lab_doctor_free(d);
  return r;
}
