/* What `gpulab doctor` keeps while it reads a trace (doctor_read.c) and
 * then analyses (doctor_find.c): fixed-size records of the GPU events and
 * of the host's blocking calls, the profiler steps, interned names with
 * their totals, and histograms for medians. Every array has a cap. */
#ifndef LAB_DOCTOR_INT_H
#define LAB_DOCTOR_INT_H

#include <stdint.h>

#include "cjson_compat.h"
#include "doctor.h"
#include "doctor_json.h"

enum { DR_KERNEL, DR_MEMCPY, DR_MEMSET };
/* GPU work classes, by kernel name or copy direction */
enum { DC_MATMUL, DC_MATMUL_TC, DC_ELEMENTWISE, DC_REDUCE, DC_COMM, DC_OTHER_KERNEL, DC_H2D_PAGEABLE, DC_H2D_PINNED,
       DC_D2H, DC_D2D, DC_COPY_OTHER, DC_MEMSET, DC_COUNT };
/* what the host was doing: by priority when a gap is explained; DH_RUNTIME
 * (any other CUDA runtime or driver call: launches, async copies) is kept to
 * tie GPU ops to their launch and to draw the host lane, never to explain */
enum { DH_LOADER, DH_ITEM, DH_COPY, DH_SYNC, DH_COUNT, DH_RUNTIME = DH_COUNT };

/* a host operator's category (d->ops' kind), as PyTorch writes it: cpu_op
 * (older: Operator; the legacy format has no cat), user_annotation
 * (record_function, the data loader's __next__, Optimizer.step#…),
 * python_function (with_stack=True) */
enum { DO_CPU_OP, DO_ANNOTATION, DO_PYTHON };

/* how GPU ops were tied to the runtime call that launched them */
enum { DT_NONE, DT_CORRELATION, DT_FLOWS, DT_EXTERNAL };

typedef struct dr_gpu {
  double ts, dur, bytes;
  int64_t corr;   /* args.correlation (or -External id, or the ac2g flow's id); 0: none */
  int32_t name, stream;
  int32_t launch; /* index of the host call that launched it (d->host, sorted by ts); -1: not tied */
  int16_t device;
  uint8_t kind, cls, tied; /* tied: DT_* */
} dr_gpu;

typedef struct dr_host {
  double ts, dur;
  int64_t corr;
  int32_t name;
  uint8_t kind;
} dr_host;

/* one end of an ac2g flow (ph s: at the runtime call, ph f: at the GPU op) */
typedef struct dr_flow {
  double ts, id;
  uint8_t start;
} dr_flow;

typedef struct dr_step {
  double ts, dur;
  long n;
} dr_step;

typedef struct dr_name {
  char *s;
  double total_us;
  long count;
  uint32_t hash;  /* of s: compared before the bytes are */
  uint8_t gpu;    /* 1: a GPU event's name, 0: a host op's */
  int8_t kernel_cls; /* its DC_* class as a kernel's name, -1 until asked */
} dr_name;

#define DR_HIST_BINS 10000 /* 0.1 us bins up to 1 ms; longer ones in the last */
#define DR_NAME_SLOTS 8192 /* open addressing, twice LAB_DOCTOR_MAX_NAMES */
/* Slots a name is looked for in before it counts as "other": at half load
 * a run of names this long does not happen by chance, only by names made
 * to collide, and each event's lookup stays bounded. */
#define DR_NAME_PROBES 64

struct lab_doctor {
  lab_dj *json;
  lab_error err; /* a failure found by a callback */
  /* where the reader is */
  int depth, root_is_object, events_depth, devprops_depth, in_args, args_depth, dev_index, saw_trace_events;
  char root_key[32], key[32], arg_key[32];
  /* the event being read */
  char ph, cat[48], name[LAB_DOCTOR_MAX_NAME_BYTES + 1];
  double ts, dur, bytes, stream, alloc, reserved, corr, ext_id, flow_id, device;
  int have_ts, have_dur, have_stream, have_bytes, have_alloc, have_reserved, have_corr, have_ext, have_flow_id, have_device;
  /* what was read */
  long events, x_events, gpu_events, host_events, memory_events, dropped_gpu, dropped_host, dropped_steps;
  long names_other; /* events whose name did not fit in the name table */
  double t0, t1;    /* the trace's span, host and GPU */
  dr_gpu *gpu;
  long ngpu, capgpu;
  dr_host *host;
  long nhost, caphost;
  dr_host *ops; /* host operators (DO_*), to name the host's activity in a gap */
  long nops, capops, dropped_ops;
  dr_flow *flows;
  long nflows, capflows, dropped_flows;
  /* set by lab_dr_tie: how many GPU ops are tied to their launch, and how */
  long tied_ops;
  long profiler_range; /* GPU ops recorded by CUPTI's range profiler (cuda_profiler_range): replayed, so their times are inflated */
  int tied_by;
  uint32_t *queue_hist; /* launch -> GPU start, 0.1 us bins */
  dr_step steps[LAB_DOCTOR_MAX_STEPS];
  long nsteps;
  dr_name *names;  /* LAB_DOCTOR_MAX_NAMES */
  int32_t *slots;  /* DR_NAME_SLOTS, -1 empty */
  long nnames;
  uint32_t *kernel_hist, *launch_hist;
  long kernels, launches;
  double peak_alloc, peak_reserved;
  int have_memory;
  /* otherData of a trace gpulab wrote (lab/trace/trace_export.c) */
  char producer[32], source[160];
  /* deviceProperties[0] */
  char dev_name[128];
  double dev_mem;
  int dev_major, dev_minor, ndevices, have_dist;
  double dist_world;
};

/* The findings for what was read (doctor_find.c); NULL when out of memory. */
cJSON *lab_dr_report(lab_doctor *d);

/* Ties each GPU op to the host call that launched it (doctor_tie.c), by
 * args.correlation, else by the ac2g flows; the records are sorted by ts. */
void lab_dr_tie(lab_doctor *d);
/* First index whose ts >= t, in n records of `size` bytes sorted by their
 * leading `double ts` (dr_gpu and dr_host both start with it). */
long lab_dr_lower_ts(const void *base, size_t size, long n, double t);

/* The chosen window [a, b) as an experiment-style timeline (doctor_timeline.c):
 * adds "timeline" and "timeline_of" to r; 0, or -1 when out of memory. */
/* Each finding's "labels": its facts' keys in plain words (doctor_labels.c). */
void lab_dr_label_facts(cJSON *findings);
/* op: the host operator the finding names (d->ops), drawn on its own lane
 * "cpu:op"; -1: none. */
int lab_dr_timeline(const lab_doctor *d, cJSON *r, double a, double b, const char *step, const char *why, long op);

#define DR_MAX_TIMELINE_SPANS 2000

#endif
