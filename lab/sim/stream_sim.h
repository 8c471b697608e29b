/* A discrete-event model of one CUDA stream: the host enqueues work and
 * moves on (paying only the launch cost), the GPU executes in order when it
 * is free, and a synchronization makes the host wait for the GPU. The
 * simulator of every experiment where time is the point builds on it. */
#ifndef LAB_STREAM_SIM_H
#define LAB_STREAM_SIM_H

#include "profiles.h"

typedef struct cJSON cJSON;

typedef struct lab_stream_sim {
  const lab_profile *prof;
  /* The profile's launch and synchronize costs (µs), copied at init: a
   * caller jitters these per run instead of copying the whole profile. */
  double launch_us, sync_us;
  double host_us;     /* the host's clock */
  double gpu_free_us; /* when the GPU finishes what is queued */
  cJSON *timeline;    /* envelope's timeline array, or NULL to record nothing */
  const char *gpu_lane; /* "gpu:0/stream0" */
  int events;         /* events recorded so far */
  int max_events;     /* stop recording past this many (keeps charts small); 0 = 200 */
} lab_stream_sim;

/* Starts both clocks at 0; env may be NULL (no timeline recorded). */
void lab_stream_init(lab_stream_sim *s, const lab_profile *prof, cJSON *env);
/* The host spends `us` on its own work (Python, data loading…). */
void lab_stream_host(lab_stream_sim *s, const char *label, double us);
/* Enqueue a kernel that runs `gpu_us` on the GPU: the host pays launch_us;
 * the GPU starts when both the launch has arrived and earlier work is done.
 * Returns the kernel's end time on the GPU clock. */
double lab_stream_kernel(lab_stream_sim *s, const char *label, double gpu_us);
/* `count` kernels of `gpu_us` one after another, as `count` calls of
 * lab_stream_kernel but in one loop: a chain of 100,000 launches with no
 * timeline kept costs no call per launch (a call is dear in wasm).
 * *first_start_us (may be NULL) gets the first kernel's start on the GPU
 * (-1 when count is 0). Returns the last one's end. */
double lab_stream_kernels(lab_stream_sim *s, const char *label, double gpu_us, int count, double *first_start_us);
/* Enqueue a copy of `bytes` at `gbps` (1e9 B/s): asynchronous when pinned
 * (the host pays the launch only), synchronous for pageable memory (the
 * host waits for the copy, as cudaMemcpy from pageable memory does, and
 * the copy pays the fixed latency twice: staging, then transfer). */
double lab_stream_copy(lab_stream_sim *s, const char *label, double bytes, double gbps, int pinned);
/* The host waits for everything queued (cudaStreamSynchronize, .item(),
 * .cpu()); the host pays sync_us on top. Returns the host clock after it. */
double lab_stream_sync(lab_stream_sim *s, const char *label);

/* How long one copy of `bytes` at `gbps` occupies the link (µs): the
 * profile's fixed per-copy latency plus bytes over bandwidth. This is why
 * small copies reach only a fraction of the link's bandwidth. */
double lab_copy_us(const lab_profile *prof, double bytes, double gbps);

/* Several streams on one GPU and the engines they share (lab_streams_*):
 * each op waits for its stream's previous op, for its engine and for the
 * host to have issued it. The engines modelled: one compute engine (a
 * kernel whose grid fills the GPU runs alone) and one copy engine per
 * direction, so an H2D copy, a kernel and a D2H copy can run at once, as
 * on every profile's GPU (two or more copy engines). Each engine takes its
 * ops in the order they were issued. Lanes: "gpu:0/streamN" per stream and
 * "gpu:0/engine/h2d|compute|d2h" per engine, each with an optional prefix. */
#define LAB_SIM_MAX_STREAMS 8

typedef enum lab_engine { LAB_ENGINE_H2D, LAB_ENGINE_COMPUTE, LAB_ENGINE_D2H, LAB_ENGINE_COUNT } lab_engine;

typedef struct lab_streams_sim {
  const lab_profile *prof;
  int n_streams;
  double host_us;                              /* the host's clock */
  double stream_free_us[LAB_SIM_MAX_STREAMS];  /* when each stream's last op ends */
  double engine_free_us[LAB_ENGINE_COUNT];     /* when each engine's last op ends */
  double engine_busy_us[LAB_ENGINE_COUNT];     /* total time each engine worked */
  cJSON *timeline;      /* envelope's timeline array, or NULL */
  const char *prefix;   /* put before every lane name ("" by default) */
  int draw_engines;     /* also draw one lane per engine (default 1) */
} lab_streams_sim;

/* n_streams is clamped to 1..LAB_SIM_MAX_STREAMS; env may be NULL. */
void lab_streams_init(lab_streams_sim *s, const lab_profile *prof, int n_streams, cJSON *env);
/* Enqueues an op of `run_us` on `stream` using `engine`: the host pays
 * launch_us to issue it and, when host_waits (a copy from pageable
 * memory), stays blocked until the op ends. *start_us (may be NULL) gets
 * when it started. Returns its end. */
double lab_streams_op(lab_streams_sim *s, int stream, lab_engine engine, const char *label, double run_us,
                      int host_waits, double *start_us);
/* A copy of `bytes` at `gbps` in the engine's direction: pinned memory is
 * asynchronous; pageable memory pays the staging latency once more and
 * blocks the host until the copy is done (cudaMemcpyAsync then behaves as
 * cudaMemcpy). */
double lab_streams_copy(lab_streams_sim *s, int stream, lab_engine engine, const char *label, double bytes,
                        double gbps, int pinned, double *start_us);
/* cudaEventRecord on `stream`: the time the event completes (when the
 * stream reaches it). The host pays nothing measurable. */
double lab_streams_event(const lab_streams_sim *s, int stream);
/* cudaStreamWaitEvent: later ops on `stream` start no earlier than event_us. */
void lab_streams_wait(lab_streams_sim *s, int stream, double event_us);
/* When every stream's work is done (what a device synchronize waits for). */
double lab_streams_end(const lab_streams_sim *s);

#endif
