/* The link between GPUs. NVLink: the datasheet's total (both directions)
 * halved is one direction's rate, and a ring all-reduce reaches 208/300 of
 * it as bus bandwidth (nccl-tests-178: two A100 SXM over NV12, 300 GB/s each
 * way). PCIe: a peer copy crosses the same kind of link as a pinned host
 * copy, so the slower of the profile's pinned rates is the bus bandwidth.
 * The fixed cost of a ring step is 54.18 µs over the 2·(8−1) = 14 steps of
 * an 8-byte all-reduce on eight GPUs over PCIe (nccl-1439); NVLink's is
 * taken as the same, since NCCL's own work per step, not the wire,
 * dominates so small a message (an estimate). */
#include "peer_link.h"

#include <string.h>

/* NVLink's total rate (both directions, GB/s) per SXM profile, from the datasheets. */
static const struct {
  const char *profile, *ref;
  double total_gbps;
} nvlinks[] = {
    {"v100-sxm", "nv-v100-ds", 300},
    {"a100-sxm", "nv-a100-ds", 600},
    {"h100-sxm", "nv-h100-ds", 900},
};

#define NVLINK_BUSBW_SHARE (208.0 / 300.0) /* nccl-tests-178 */
#define RING_STEP_US (54.18 / 14.0)        /* nccl-1439 */

static double nvlink_total(const lab_profile *prof, const char **ref) {
  /* A calibrated profile is named after its base ("a100-sxm-…"): the board is the same. */
  for (unsigned i = 0; i < sizeof nvlinks / sizeof nvlinks[0]; i++)
    if (strncmp(prof->name, nvlinks[i].profile, strlen(nvlinks[i].profile)) == 0) {
      if (ref) *ref = nvlinks[i].ref;
      return nvlinks[i].total_gbps;
    }
  return 0;
}

bool lab_peer_nvlink_exists(const lab_profile *prof) { return nvlink_total(prof, NULL) > 0; }

lab_peer_link lab_peer_link_of(const lab_profile *prof, bool want_nvlink) {
  lab_peer_link l = {.step_us = RING_STEP_US};
  const char *ref = NULL;
  double total = nvlink_total(prof, &ref);
  if (want_nvlink && total > 0) {
    l.nvlink = true;
    l.busbw_gbps = total / 2 * NVLINK_BUSBW_SHARE;
    l.source = "NVLink: the datasheet's rate each way × 208/300, the share a ring all-reduce reached on two A100 "
               "SXM (nccl-tests issue 178); ring step from eight GPUs over PCIe (nccl issue 1439), an estimate here";
  } else {
    double h = prof->h2d_pinned_gbps, d = prof->d2h_pinned_gbps;
    l.busbw_gbps = h < d ? h : d;
    l.source = "PCIe: the slower of the profile's pinned copy rates; ring step 54.18 µs / 14 steps of an 8-byte "
               "all-reduce on eight GPUs over PCIe (nccl issue 1439)";
  }
  return l;
}

double lab_ring_allreduce_bytes(int n, double bytes) { return n < 2 ? 0 : 2.0 * (n - 1) / n * bytes; }

double lab_ring_allreduce_us(const lab_peer_link *l, int n, double bytes) {
  if (n < 2) return 0;
  return lab_ring_allreduce_bytes(n, bytes) / (l->busbw_gbps * 1e3) + 2.0 * (n - 1) * l->step_us;
}
