/* `gpulab doctor`: a first reading of a learner's own PyTorch profiler
 * trace (Chrome trace JSON from torch.profiler's export_chrome_trace or
 * tensorboard_trace_handler) for a beginner: how busy the GPU was per
 * ProfilerStep and what the host did in its idle gaps, launch-bound work,
 * copies inside the step, where GPU time goes, the device and its memory,
 * each with the lesson section and experiment that explain it (see
 * docs/doctor.md). The bytes are fed in chunks (plain JSON; the caller
 * inflates .gz) and read by a streaming parser: memory is bounded by the
 * distinct names (LAB_DOCTOR_MAX_NAMES) and fixed caps, never by file size. */
#ifndef LAB_DOCTOR_H
#define LAB_DOCTOR_H

#include <stddef.h>

#include "error.h"

#define LAB_DOCTOR_MAX_NAMES 4096         /* distinct event names kept; the rest count as "other" */
#define LAB_DOCTOR_MAX_NAME_BYTES 256     /* a longer name is kept cut to this */
#define LAB_DOCTOR_MAX_GPU_EVENTS (1 << 20) /* GPU events kept for the timeline analysis; later ones only counted */
#define LAB_DOCTOR_MAX_HOST_EVENTS (1 << 18) /* host calls kept: blocking ones and CUDA runtime calls (launches) */
#define LAB_DOCTOR_MAX_FLOWS (1 << 18)       /* ends of ac2g flows kept to tie GPU ops to launches */
/* host operators kept (cpu_op, user_annotation, python_function; the legacy
 * format's uncategorised events) to name what the host was doing in a gap:
 * 8 MiB of records at most; later ones only counted */
#define LAB_DOCTOR_MAX_HOST_OPS (1 << 18)
#define LAB_DOCTOR_MAX_STEPS 4096
/* inflated/compressed past this (and past 64 MiB): a gzip bomb. Real traces
 * inflate 6.7 to 30.3 times (docs/doctor.md measures them); a bomb was
 * read to 200 times before. */
#define LAB_DOCTOR_GZIP_MAX_RATIO 64

typedef struct lab_doctor lab_doctor;

lab_doctor *lab_doctor_new(void);
void lab_doctor_free(lab_doctor *d);
/* Feeds the next bytes of the trace; 0, or -1 with err set (doctor_not_trace,
 * doctor_bad_number, doctor_name_too_long, out_of_memory). */
int lab_doctor_feed(lab_doctor *d, const char *buf, size_t n, lab_error *err);
/* The input ended: {"doctor":1,"trace":{…},"device":{…}?,"steps":[…],
 * "findings":[…]} (docs/doctor.md), or NULL with err set
 * (doctor_truncated, doctor_not_trace, doctor_no_events, …). */
cJSON *lab_doctor_finish(lab_doctor *d, lab_error *err);

/* A .gz trace inflated so far: in_bytes compressed gave out_bytes. -1 with
 * doctor_gzip_bomb when it inflates more than LAB_DOCTOR_GZIP_MAX_RATIO
 * times past 64 MiB, else 0 (lab/doctor/doctor_gzip.c; no zlib in lab/). */
int lab_doctor_gzip_check(double in_bytes, double out_bytes, lab_error *err);
/* A reader that reads at most cap_bytes of trace JSON (a server, per
 * request): -1 with doctor_too_large once trace_bytes is past it, else 0. */
int lab_doctor_size_check(double trace_bytes, double cap_bytes, lab_error *err);
/* Records doctor_bad_gzip: cut short after in_bytes, or damaged (why: the
 * inflater's words, may be NULL). Returns -1. */
int lab_doctor_gzip_fail(double in_bytes, int cut_short, const char *why, lab_error *err);

/* The whole trace in one buffer (tests, fuzzing, the browser). */
cJSON *lab_doctor_read(const char *buf, size_t n, lab_error *err);

#endif
