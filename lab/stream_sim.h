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

#endif
