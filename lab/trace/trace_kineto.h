/* What PyTorch's profiler (Kineto) would have written for a span of one of
 * our timelines: its event category and name, the deviceProperties of the
 * profile, memory as "[memory]" instant events and where the experiment's
 * training steps begin, so that `gpulab doctor` (and any Kineto reader)
 * reads an exported trace as a PyTorch one (docs/trace.md). */
#ifndef LAB_TRACE_KINETO_H
#define LAB_TRACE_KINETO_H

#include <stddef.h>

#include "cjson_compat.h"

typedef struct lab_tk_kind {
  const char *cat; /* cpu_op, cuda_runtime, user_annotation, kernel, gpu_memcpy, gpu_memset, gpulab_engine, gpulab_other_run */
  char name[96];
  double bytes; /* a copy's bytes; 0: unknown */
  int device, stream; /* GPU ops: from gpu:N/streamK; -1 elsewhere */
} lab_tk_kind;

/* The category and name for span (lane, label) of env's timeline. */
void lab_tk_kind_of(const cJSON *env, const char *lane, const char *label, lab_tk_kind *k);

/* 1 when cat is a GPU op's category (kernel, gpu_memcpy, gpu_memset). */
int lab_tk_is_gpu(const char *cat);

/* The host span's label that opens each training step of env's experiment
 * (NULL: the timeline has no steps) and the number of its first step. */
const char *lab_tk_step_opener(const cJSON *env, long *first);

/* Adds "deviceProperties": [{id, name, totalGlobalMem, computeMajor,
 * computeMinor, numSms}] for env's profile (nothing when it has none). */
void lab_tk_device_properties(cJSON *trace, const cJSON *env);

/* One "[memory]" instant event per point of env's allocated and reserved
 * series (MiB there, bytes here), at ts 0, 1, 2... µs on (pid, tid). */
void lab_tk_memory_events(cJSON *events, const cJSON *env, int pid, int tid);

#endif
