/* PCIe link rates. Nominal: 8/16/32 GT/s per lane (Gen3/4/5), 128b/130b
 * encoding, so about 0.985/1.97/3.94 GB/s per lane each way (a Gen4 x16
 * link is the "32+32 GB/s" of NVIDIA's A100 spec, klockwood-a100).
 * Efficiencies are measured pinned copies over those rates:
 *   Gen3: T4 9.7/11.1 and V100 9.6/11.4 GB/s (bandwidthTest, router-gao-bw);
 *   Gen4: A100 25.7/25.8 (bandwidthTest, gengwg-bw), RTX 4090 25.50/26.77
 *         (nvbandwidth, nvbw-15);
 *   Gen5: H100 57.06 host to device (nvbandwidth, nvbw-6; no D2H read). */
#include "host_link.h"

#include <stddef.h>
#include <string.h>

const char *const lab_host_link_choices[] = {"profile", "gen3-x16", "gen4-x16", "gen5-x16", "gen4-x8", "gen3-x8", NULL};
static const int choice_gen[] = {0, 3, 4, 5, 4, 3};
static const int choice_lanes[] = {0, 16, 16, 16, 8, 8};

double lab_pcie_nominal_gbps(int gen, int lanes) {
  double gts = gen <= 3 ? 8.0 : gen == 4 ? 16.0 : 32.0;
  return gts * 128.0 / 130.0 / 8.0 * lanes;
}

double lab_pcie_efficiency(int gen, int d2h) {
  double nominal = lab_pcie_nominal_gbps(gen, 16);
  if (gen <= 3) return (d2h ? (11.1 + 11.4) / 2 : (9.7 + 9.6) / 2) / nominal;
  if (gen == 4) return (d2h ? (25.8 + 26.77) / 2 : (25.7 + 25.50) / 2) / nominal;
  return 57.06 / nominal;
}

void lab_host_link_apply(const lab_profile *in, int choice, lab_profile *out, lab_host_link *link) {
  *out = *in;
  int n = (int)(sizeof choice_gen / sizeof choice_gen[0]);
  if (choice < 0 || choice >= n) choice = 0;
  int gen = in->pcie_gen, lanes = in->pcie_lanes;
  if (choice > 0) {
    gen = choice_gen[choice] < gen ? choice_gen[choice] : gen;
    lanes = choice_lanes[choice] < lanes ? choice_lanes[choice] : lanes;
  }
  link->gen = gen;
  link->lanes = lanes;
  link->nominal_gbps = lab_pcie_nominal_gbps(gen, lanes);
  link->throttled = gen != in->pcie_gen || lanes != in->pcie_lanes;
  if (!link->throttled) return;
  double h2d = link->nominal_gbps * lab_pcie_efficiency(gen, 0), d2h = link->nominal_gbps * lab_pcie_efficiency(gen, 1);
  /* Pageable copies are staged through pinned buffers: they slow down in proportion with the link. */
  out->h2d_pageable_gbps = in->h2d_pageable_gbps * (h2d < in->h2d_pinned_gbps ? h2d / in->h2d_pinned_gbps : 1);
  out->d2h_pageable_gbps = in->d2h_pageable_gbps * (d2h < in->d2h_pinned_gbps ? d2h / in->d2h_pinned_gbps : 1);
  out->h2d_pinned_gbps = h2d < in->h2d_pinned_gbps ? h2d : in->h2d_pinned_gbps;
  out->d2h_pinned_gbps = d2h < in->d2h_pinned_gbps ? d2h : in->d2h_pinned_gbps;
}
