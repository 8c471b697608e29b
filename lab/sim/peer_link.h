/* The link between the GPUs of one machine, as data parallel training
 * uses it: NVLink on the SXM boards that have it, PCIe otherwise, with the
 * bus bandwidth an all-reduce reaches and the fixed cost of each of its
 * steps, each from a public figure (peer_link.c says which). */
#ifndef LAB_PEER_LINK_H
#define LAB_PEER_LINK_H

#include <stdbool.h>

#include "device_profile.h"

typedef struct lab_peer_link {
  bool nvlink;         /* NVLink joins the GPUs; else PCIe through the host */
  double busbw_gbps;   /* what a large ring all-reduce reaches per GPU (NCCL's "busbw"), 1e9 B/s */
  double step_us;      /* fixed cost of one step of a ring (one send to the next GPU) */
  const char *source;  /* one line: the figures and their lab_ref ids */
} lab_peer_link;

/* True when GPUs of prof's model are sold joined by NVLink (the SXM
 * boards); a PCIe card has none. */
bool lab_peer_nvlink_exists(const lab_profile *prof);

/* The link between GPUs of prof's model: NVLink when want_nvlink and it
 * exists, PCIe otherwise. */
lab_peer_link lab_peer_link_of(const lab_profile *prof, bool want_nvlink);

/* Seconds·1e6 one ring all-reduce of `bytes` takes over n GPUs:
 * 2·(n−1)/n · bytes over the bus bandwidth, plus 2·(n−1) steps. 0 for n < 2. */
double lab_ring_allreduce_us(const lab_peer_link *l, int n, double bytes);
/* Bytes each GPU sends in that all-reduce: 2·(n−1)/n · bytes. */
double lab_ring_allreduce_bytes(int n, double bytes);

#endif
