/* The host link a copy crosses: by default the card's own PCIe link as
 * measured (the profile's figures), or a chosen generation and width, as
 * a cloud VM or a small slot may give a card only part of its link. Rates
 * of a chosen link are its nominal rate times the share published pinned
 * copies reached on links of that generation. */
#ifndef LAB_HOST_LINK_H
#define LAB_HOST_LINK_H

#include "profiles.h"

/* Choices of the transfer experiment's `host` parameter, NULL-terminated:
 * "profile", "gen3-x16", "gen4-x16", "gen5-x16", "gen4-x8", "gen3-x8". */
extern const char *const lab_host_link_choices[];

/* Nominal one-way rate of PCIe `gen` × `lanes`, 1e9 B/s (8, 16, 32 GT/s per
 * lane for Gen3, 4, 5; 128b/130b encoding). */
double lab_pcie_nominal_gbps(int gen, int lanes);
/* Share of the nominal rate a large pinned copy reached in published runs
 * on a link of generation gen (d2h: device to host). */
double lab_pcie_efficiency(int gen, int d2h);

typedef struct lab_host_link {
  int gen, lanes;       /* the link the copies actually cross */
  double nominal_gbps;  /* its nominal one-way rate */
  int throttled;        /* narrower or older than the card's own link */
} lab_host_link;

/* The profile as seen through host link `choice` (an index into
 * lab_host_link_choices): the copy bandwidths of *out are the card's own
 * measured ones when the link is the card's, else the chosen link's
 * (a card never runs faster than its own link allows). */
void lab_host_link_apply(const lab_profile *in, int choice, lab_profile *out, lab_host_link *link);

#endif
