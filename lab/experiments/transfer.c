/* `transfer`: parameters, the envelope builder and the simulator. The model:
 * a copy costs a fixed latency plus bytes over the link's bandwidth, so
 * small copies reach a fraction of the peak; pageable copies are staged
 * through a driver-owned pinned buffer (lower bandwidth, twice the fixed
 * cost); page-locking runs at pin_gbps; the host link is the card's own or
 * a chosen one (lab/sim/host_link.h); each sample gets a little jitter, drawn
 * once for all sizes so a larger copy never finishes first. */
#include "transfer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "host_link.h"
#include "descriptor.h"
#include "rng.h"
#include "sim_measure.h"
#include "units.h"
#include "stats.h"
#include "stream_sim.h"

#define MIB 1048576.0

LAB_PARAMS_DEFINE(transfer)


static const char *const kind_id[LAB_XFER_KINDS] = {"h2d_pageable", "h2d_pinned", "d2h_pageable", "d2h_pinned"};
static const char *const kind_label[LAB_XFER_KINDS] = {"host→device, pageable", "host→device, pinned",
                                                       "device→host, pageable", "device→host, pinned"};

int lab_transfer_sizes(double max_bytes, double *out, int cap) {
  int n = 0;
  for (double b = LAB_TRANSFER_MIN_BYTES; b <= max_bytes && n < cap; b *= 4) out[n++] = b;
  if (n < cap && (n == 0 || out[n - 1] < max_bytes)) out[n++] = max_bytes;
  return n;
}

/* Human-readable size in binary units, as the sweep is built. */
static const char *size_text(double bytes, char *buf, size_t n) {
  if (bytes >= MIB * 1024) snprintf(buf, n, "%.3g GiB", bytes / (MIB * 1024));
  else if (bytes >= MIB) snprintf(buf, n, "%.3g MiB", bytes / MIB);
  else if (bytes >= 1024) snprintf(buf, n, "%.3g KiB", bytes / 1024);
  else snprintf(buf, n, "%.0f B", bytes);
  return buf;
}

/* The host link a simulated run crossed, from its `host` parameter. */
static void host_link_of(const lab_params *p, const lab_profile *prof, lab_profile *eff, lab_host_link *link) {
  lab_host_link_apply(prof, lab_params_transfer_of(p).host, eff, link);
}

static void add_link(cJSON *env, const lab_transfer_measure *m, const lab_params *p, const lab_profile *prof) {
  cJSON *d = lab_env_details(env);
  if (!prof) {
    cJSON_AddStringToObject(d, "host", "this machine's own link (the host parameter applies to the simulator only)");
    return;
  }
  lab_profile eff;
  lab_host_link link;
  host_link_of(p, prof, &eff, &link);
  int last = m->n_sizes - 1;
  double pin = m->gbps[LAB_XFER_H2D_PINNED][last];
  cJSON *h = cJSON_AddObjectToObject(d, "host");
  cJSON_AddStringToObject(h, "choice", lab_host_link_choices[lab_params_transfer_of(p).host]);
  cJSON_AddNumberToObject(h, "pcie_gen", link.gen);
  cJSON_AddNumberToObject(h, "pcie_lanes", link.lanes);
  cJSON_AddNumberToObject(h, "nominal_gbps", link.nominal_gbps);
  cJSON_AddBoolToObject(h, "throttled", link.throttled);
  lab_env_metric(env, "link_nominal_gbps", link.nominal_gbps);
  if (link.throttled)
    lab_env_finding(env, "The copies crossed a PCIe Gen%d x%d link (%.1f GB/s nominal each way) instead of the card's "
                    "own Gen%d x%d, as on a throttled cloud VM: pinned host→device reached %.1f GB/s, %.0f%% of that "
                    "link. Measure your machine's own link before you trust a copy time.",
                    link.gen, link.lanes, link.nominal_gbps, prof->pcie_gen, prof->pcie_lanes, pin,
                    100 * pin / link.nominal_gbps);
  else
    lab_env_finding(env, "The copies crossed the card's own PCIe Gen%d x%d link (%.1f GB/s nominal each way); pinned "
                    "host→device reached %.1f GB/s, %.0f%% of it. Set host to a narrower link to see what a "
                    "throttled cloud VM does to the same copies.",
                    link.gen, link.lanes, link.nominal_gbps, pin, 100 * pin / link.nominal_gbps);
}

static void add_findings(cJSON *env, const lab_transfer_measure *m) {
  int last = m->n_sizes - 1;
  char a[32], b[32];
  const double *h2d = m->gbps[LAB_XFER_H2D_PINNED];
  double pin = h2d[last], page = m->gbps[LAB_XFER_H2D_PAGEABLE][last];
  lab_env_finding(env, "On this run pinned host→device copies of %s reached %.1f GB/s, %.1f× pageable (%.1f GB/s).",
                  size_text(m->bytes[last], a, sizeof a), pin, page > 0 ? pin / page : 0, page);
  lab_env_finding(env, "Device→host: pinned %.1f GB/s, pageable %.1f GB/s. Pageable memory is copied twice: "
                  "first into a pinned buffer the driver owns, then over the bus.",
                  m->gbps[LAB_XFER_D2H_PINNED][last], m->gbps[LAB_XFER_D2H_PAGEABLE][last]);
  int half = last;
  for (int i = last; i >= 0 && h2d[i] >= 0.5 * pin; i--) half = i;
  lab_env_finding(env, "A %s copy reached only %.2f GB/s (%.0f%% of the largest copy's): each copy pays a fixed "
                  "cost, so copies need about %s before they reach half the bandwidth.",
                  size_text(m->bytes[0], a, sizeof a), h2d[0], pin > 0 ? 100 * h2d[0] / pin : 0,
                  size_text(m->bytes[half], b, sizeof b));
  double over_us = m->small_copies ? (m->small_total_ms - m->batched_ms) * 1e3 / m->small_copies : 0;
  lab_env_finding(env, "%d copies of %s took %.2f ms; one copy of the same %s took %.3f ms — about %.1f µs of "
                  "overhead per copy. Gather small tensors into one buffer and copy it once.",
                  m->small_copies, size_text(m->small_bytes, a, sizeof a), m->small_total_ms,
                  size_text(m->small_bytes * m->small_copies, b, sizeof b), m->batched_ms, over_us);
  /* Against the pinned copy it makes possible, not the pageable one: on
   * the H100 lease's host pinning (14 GB/s) beat a pageable copy (7.1). */
  double copy_ms = pin > 0 ? m->pin_bytes / (pin * 1e6) : 0;
  if (m->pin_ms > 0)
    lab_env_finding(env, "Pinning %s itself took %s (%.1f GB/s), %s than the pinned copy it makes possible "
                    "(%s): pin a buffer once and reuse it (DataLoader's pin_memory does), never per batch.",
                    size_text(m->pin_bytes, a, sizeof a), LAB_MS(m->pin_ms), m->pin_bytes / (m->pin_ms * 1e6),
                    m->pin_ms > copy_ms ? "longer" : "no longer", LAB_MS(copy_ms));
  if (m->iqr_pct > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The samples spread by %.0f%% (IQR): the run was noisy, so run it again before trusting "
                    "small differences.", m->iqr_pct);
}

cJSON *lab_transfer_envelope(const lab_params *p, const lab_transfer_measure *m, const char *backend,
                             const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("transfer", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env || m->n_sizes < 1) return env;
  int last = m->n_sizes - 1;
  double pin = m->gbps[LAB_XFER_H2D_PINNED][last], page = m->gbps[LAB_XFER_H2D_PAGEABLE][last];
  for (int k = 0; k < LAB_XFER_KINDS; k++) {
    char key[40];
    snprintf(key, sizeof key, "%s_gbps", kind_id[k]);
    lab_env_metric(env, key, m->gbps[k][last]);
  }
  lab_env_metric(env, "largest_bytes", m->bytes[last]);
  lab_env_metric(env, "pinned_speedup", page > 0 ? pin / page : 0);
  lab_env_metric(env, "small_copy_gbps", m->gbps[LAB_XFER_H2D_PINNED][0]);
  int half = last;
  for (int i = last; i >= 0 && m->gbps[LAB_XFER_H2D_PINNED][i] >= 0.5 * pin; i--) half = i;
  lab_env_metric(env, "half_peak_bytes", m->bytes[half]);
  lab_env_metric(env, "pin_ms", m->pin_ms);
  lab_env_metric(env, "pin_gbps", m->pin_ms > 0 ? m->pin_bytes / (m->pin_ms * 1e6) : 0);
  lab_env_metric(env, "small_copies_ms", m->small_total_ms);
  lab_env_metric(env, "batched_copy_ms", m->batched_ms);
  lab_env_metric(env, "per_copy_overhead_us",
                 m->small_copies ? (m->small_total_ms - m->batched_ms) * 1e3 / m->small_copies : 0);
  lab_env_metric(env, "batching_speedup", m->batched_ms > 0 ? m->small_total_ms / m->batched_ms : 0);
  for (int k = 0; k < LAB_XFER_KINDS; k++) {
    cJSON *pts = lab_env_series(env, kind_id[k], kind_label[k], "bytes", "GB/s");
    for (int i = 0; i < m->n_sizes; i++) lab_series_point(pts, m->bytes[i], m->gbps[k][i]);
  }
  char a[32], b[32], label[96];
  snprintf(label, sizeof label, "%d copies of %s", m->small_copies, size_text(m->small_bytes, a, sizeof a));
  lab_env_event(env, "gpu:0/stream0", label, 0, m->small_total_ms * 1e3);
  snprintf(label, sizeof label, "1 copy of %s", size_text(m->small_bytes * m->small_copies, b, sizeof b));
  lab_env_event(env, "gpu:0/stream0", label, m->small_total_ms * 1e3, (m->small_total_ms + m->batched_ms) * 1e3);
  add_findings(env, m);
  add_link(env, m, p, strcmp(backend, "simulated") == 0 ? prof : NULL);
  if (!strcmp(backend, "simulated"))
    lab_env_stats(env, m->samples, m->warmup, "h2d_pinned_gbps", m->iqr_pct,
                  "Simulated from the profile: a copy takes copy_latency_us plus bytes over the link's bandwidth "
                  "(the card's published rates on its own link, or a chosen link's nominal rate × the share "
                  "published copies reached on that PCIe generation; pageable: its own lower bandwidth and the "
                  "latency twice, for the staging copy), with ±10% jitter on the latency and ±3% on the rate, "
                  "drawn once per sample for all sizes; the small copies run on the stream model (enqueue cost vs "
                  "per-copy latency), their spans rounded to 0.5 µs as a GPU run's events would read them; pinning runs at "
                  "pin_gbps. GB/s = 1e9 bytes/s; medians of the samples.");
  else
    lab_env_stats(env, m->samples, m->warmup, "h2d_pinned_gbps", m->iqr_pct,
                  "CUDA events around a batch of identical copies (several copies for small sizes; pinned batches "
                  "are queued behind a spin kernel so queuing is not timed); GB/s = 1e9 bytes/s, each byte counted "
                  "once; median of the samples. The small-vs-batched copies are timed with events without the "
                  "spin, so the host's enqueue cost is included, as in training. Pinning (cudaHostRegister of the "
                  "same buffer) is timed on its own with a host clock.");
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* One simulated copy (µs): pageable memory goes through a bounce buffer, so
 * it pays the fixed latency twice and moves at the pageable bandwidth.
 * jl, jb: the sample's jitter of the latency and of the rate. */
static double model_us(const lab_profile *prof, lab_xfer_kind k, double bytes, double jl, double jb) {
  static const int pinned[LAB_XFER_KINDS] = {0, 1, 0, 1};
  double gbps = k == LAB_XFER_H2D_PAGEABLE ? prof->h2d_pageable_gbps
              : k == LAB_XFER_H2D_PINNED   ? prof->h2d_pinned_gbps
              : k == LAB_XFER_D2H_PAGEABLE ? prof->d2h_pageable_gbps
                                           : prof->d2h_pinned_gbps;
  return prof->copy_latency_us * (pinned[k] ? 1 : 2) * jl + bytes / (gbps * 1e3) * jb;
}

/* N small pinned copies enqueued back to back, then one synchronize, on the
 * stream model: the GPU's per-copy latency and the host's enqueue cost
 * overlap, the slower one sets the pace. */
static double stream_ms(const lab_profile *prof, int copies, double bytes) {
  lab_stream_sim s;
  lab_stream_init(&s, prof, NULL);
  for (int i = 0; i < copies; i++) lab_stream_copy(&s, "copy", bytes, prof->h2d_pinned_gbps, 1);
  return lab_stream_sync(&s, "synchronize") / 1e3;
}

int lab_transfer_check(const lab_params *p, lab_error *err) {
  const lab_params_transfer tp = lab_params_transfer_of(p);
  double total = (double)tp.small_copies * (double)tp.small_bytes;
  if (total > (double)tp.max_bytes)
    return lab_fail(err, LAB_E_INVALID_PARAM, "small_copies",
                    "small_copies x small_bytes (%.0f bytes) must not exceed max_bytes (%.0f); lower one of them",
                    total, (double)tp.max_bytes);
  return 0;
}

static int simulate(const lab_params *p, const lab_profile *base, cJSON **out, lab_error *err) {
  const lab_params_transfer tp = lab_params_transfer_of(p);
  lab_transfer_measure m;
  memset(&m, 0, sizeof m);
  lab_profile eff;
  lab_host_link link;
  host_link_of(p, base, &eff, &link);
  const lab_profile *prof = &eff;
  lab_rng r;
  lab_rng_seed(&r, 0x7a5f3e11u ^ (uint64_t)tp.max_bytes);
  m.samples = (int)tp.samples;
  m.warmup = 1;
  m.n_sizes = lab_transfer_sizes((double)tp.max_bytes, m.bytes, LAB_TRANSFER_MAX_SIZES);
  for (int k = 0; k < LAB_XFER_KINDS; k++) {
    double jl[LAB_TRANSFER_MAX_SAMPLES], jb[LAB_TRANSFER_MAX_SAMPLES];
    for (int s = 0; s < m.samples; s++) jl[s] = lab_rng_jitter(&r, 10), jb[s] = lab_rng_jitter(&r, 3);
    for (int i = 0; i < m.n_sizes; i++) {
      double x[LAB_TRANSFER_MAX_SAMPLES];
      lab_summary sum;
      for (int s = 0; s < m.samples; s++)
        x[s] = m.bytes[i] / (model_us(prof, (lab_xfer_kind)k, m.bytes[i], jl[s], jb[s]) * 1e3);
      lab_summarize(x, (size_t)m.samples, &sum);
      m.gbps[k][i] = sum.median;
      if (i == m.n_sizes - 1 && sum.iqr_pct > m.iqr_pct) m.iqr_pct = sum.iqr_pct;
    }
  }
  m.pin_bytes = m.bytes[m.n_sizes - 1];
  m.pin_ms = m.pin_bytes / (prof->pin_gbps * 1e6) * lab_rng_jitter(&r, 5);
  m.small_copies = (int)tp.small_copies;
  m.small_bytes = (double)tp.small_bytes;
  double j = lab_rng_jitter(&r, 2); /* shared: N small copies never beat one copy of the same bytes */
  m.small_total_ms = lab_event_ms(stream_ms(prof, m.small_copies, m.small_bytes) * j);
  m.batched_ms = lab_event_ms(stream_ms(prof, 1, m.small_bytes * m.small_copies) * j);
  m.validated = -1;
  *out = lab_transfer_envelope(p, &m, "simulated", base->device_name, base);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_transfer tp = lab_params_transfer_of(p);
  *param = "max_bytes"; /* one device buffer of max_bytes; the small copies fit inside it */
  return (double)tp.max_bytes;
}

/* CPU cost (lab_experiment_cpu_ms): a closed-form model per sample and
 * small copy; 0.5 ms measured at 10 000 small copies × 10 samples
 * (bench/cpu_cost): 2 µs per hundred over the 1 ms floor. */
LAB_CPU_MS(transfer);

LAB_CPU_MS(transfer) {
  const lab_params_transfer tp = lab_params_transfer_of(p);
  *param = "small_copies";
  return 1.0 + 2e-5 * (double)tp.small_copies * (double)tp.samples;
}

const lab_experiment lab_exp_transfer = {
    .name = "transfer",
    .title = "Host-device copies",
    .summary = "Copy bandwidth vs size, pageable vs pinned memory, and why many tiny copies are slow.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_transfer_spec,
    .n_params = LAB_PARAMS_COUNT(transfer),
    .check = lab_transfer_check,
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
