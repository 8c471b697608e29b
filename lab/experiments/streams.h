/* `streams`: a pipeline of chunks (H2D copy → kernel → D2H copy) on one
 * stream vs on K streams, with pinned or pageable host memory, and a race
 * between a copy stream and a compute stream with and without an event
 * wait. The GPU side (kernels/streams.cu) and the simulator fill the same
 * measurement struct; one builder turns it into the result envelope. */
#ifndef LAB_STREAMS_H
#define LAB_STREAMS_H

#include "params.h"
#include "profiles.h"

#define LAB_STREAMS_MAX_CHUNKS 32
#define LAB_STREAMS_MAX_STREAMS 8
#define LAB_STREAMS_MAX_TOTAL_MIB 512 /* chunks × chunk_mib: bounds pinned memory and run time */
#define LAB_STREAMS_SAMPLES 5
#define LAB_STREAMS_WARMUP 1

/* The four pipelines every run times, in this order everywhere. */
typedef enum lab_streams_config {
  LAB_ST_ONE_PINNED,
  LAB_ST_MANY_PINNED,
  LAB_ST_ONE_PAGEABLE,
  LAB_ST_MANY_PAGEABLE,
  LAB_ST_CONFIGS
} lab_streams_config;

typedef enum lab_streams_stage { LAB_ST_H2D, LAB_ST_KERNEL, LAB_ST_D2H, LAB_ST_STAGES } lab_streams_stage;

/* One op of a drawn run, in µs from the run's start event. */
typedef struct lab_streams_span {
  int chunk, stream, stage; /* stage: lab_streams_stage */
  double start_us, end_us;
} lab_streams_span;

typedef struct lab_streams_run {
  int n_streams, n_spans;
  lab_streams_span span[LAB_ST_STAGES * LAB_STREAMS_MAX_CHUNKS];
} lab_streams_run;

typedef struct lab_streams_measure {
  int chunks, streams, pinned, wait; /* as asked: pinned 1 = memory "pinned" */
  double chunk_bytes, kernel_us;     /* kernel_us: the asked work per chunk */
  int samples, warmup;
  double total_ms[LAB_ST_CONFIGS][LAB_STREAMS_SAMPLES]; /* start event → last op, per sample */
  double median_ms[LAB_ST_CONFIGS], iqr_pct[LAB_ST_CONFIGS];
  /* One chunk's stage times (µs), medians over the one-stream runs where
   * nothing overlaps; [0] pageable, [1] pinned. */
  double stage_us[2][LAB_ST_STAGES];
  lab_streams_run one, many; /* the drawn runs: one stream and K streams, memory as asked */
  /* The race: H2D copies on a copy stream, kernels + D2H on a compute
   * stream, the kernel waiting on the copy's event only when `wait`. */
  lab_streams_run race;      /* stream 0: copy stream, 1: compute stream */
  int stale_chunk[LAB_STREAMS_MAX_CHUNKS]; /* 1 when chunk i's result had a wrong element */
  int stale_chunks;
  double stale_elements, checked_elements, race_ms;
  int validated; /* -1: not checked (simulated) */
  double max_abs_err;
} lab_streams_measure;

/* Checks what the bounds alone cannot: chunks × chunk_mib <= LAB_STREAMS_MAX_TOTAL_MIB. */
int lab_streams_check(const lab_params *p, lab_error *err);
/* Reads the params into m (and zeroes the rest). */
void lab_streams_setup(const lab_params *p, lab_streams_measure *m);
/* Medians and spreads of the samples into m. */
void lab_streams_summarize(lab_streams_measure *m);
/* The config the params asked for (streams, memory) and its one-stream twin. */
lab_streams_config lab_streams_asked(const lab_streams_measure *m);
lab_streams_config lab_streams_baseline(const lab_streams_measure *m);
/* The elementwise work the kernel does on each value, bit for bit as the
 * GPU does it (fused multiply-adds): the CPU reference. */
float lab_streams_ref(float x);

/* Builds the envelope (backend "cuda" or "simulated"); prof NULL for a real run. */
cJSON *lab_streams_envelope(const lab_params *p, const lab_streams_measure *m, const char *backend,
                            const char *device_name, const lab_profile *prof);

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_streams from this list. */
#define LAB_PARAMS_streams(X) \
  X(chunks, INT, 2, LAB_STREAMS_MAX_CHUNKS, 16, NULL, \
    "How many chunks the data is cut into; each is copied in, computed on and copied back.", NULL) \
  X(chunk_mib, INT, 1, 64, 8, "MiB", \
    "Size of one chunk (fp32 values); chunks x chunk_mib <= 512 MiB.", NULL) \
  X(kernel_us, INT, 10, 20000, 300, "us", \
    "How long the compute kernel works on one chunk (its elementwise pass, then busy until this time).", NULL) \
  X(streams, INT, 1, LAB_STREAMS_MAX_STREAMS, 4, NULL, \
    "How many CUDA streams the chunks are spread over (chunk i goes on stream i mod streams).", NULL) \
  X(memory, ENUM, 0, 1, 0, NULL, \
    "Host memory of the copies: pinned (page-locked, asynchronous copies) or pageable (ordinary malloc).", \
    memory_choices) \
  X(wait, BOOL, 0, 1, 0, NULL, \
    "In the race: make the compute stream wait on each copy's event (cudaStreamWaitEvent) before its kernel.", NULL)

LAB_PARAMS_STRUCT(streams)

#endif
