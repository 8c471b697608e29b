/* `transfer`: host↔device copy bandwidth over a size sweep, pageable vs
 * pinned memory, and N small copies vs one batched copy of the same bytes.
 * The GPU side (kernels/transfer.cu) and the simulator fill the same
 * measurement struct; one builder turns it into the result envelope. */
#ifndef LAB_TRANSFER_H
#define LAB_TRANSFER_H

#include "params.h"
#include "profiles.h"

#define LAB_TRANSFER_MAX_SIZES 16
#define LAB_TRANSFER_MIN_BYTES 4096.0 /* the sweep's first size */
#define LAB_TRANSFER_MAX_SAMPLES 10  /* bounds a 1 GiB run to a few seconds */

/* Directions × memory kinds, in this order everywhere. */
typedef enum lab_xfer_kind {
  LAB_XFER_H2D_PAGEABLE,
  LAB_XFER_H2D_PINNED,
  LAB_XFER_D2H_PAGEABLE,
  LAB_XFER_D2H_PINNED,
  LAB_XFER_KINDS
} lab_xfer_kind;

typedef struct lab_transfer_measure {
  int n_sizes;
  double bytes[LAB_TRANSFER_MAX_SIZES];
  double gbps[LAB_XFER_KINDS][LAB_TRANSFER_MAX_SIZES]; /* median bandwidth, 1e9 B/s */
  double iqr_pct;        /* largest spread among the points of the largest size */
  int samples, warmup;
  double pin_bytes, pin_ms; /* page-locking the largest buffer (cudaHostRegister) */
  int small_copies;      /* N */
  double small_bytes;    /* bytes of each small copy */
  double small_total_ms; /* N pinned copies of small_bytes, back to back */
  double batched_ms;     /* one pinned copy of N × small_bytes */
  int validated;         /* -1: not checked (simulated) */
  double max_abs_err;
} lab_transfer_measure;

/* The sweep's sizes for a largest size: 4 KiB × 4^i, then max_bytes itself. */
int lab_transfer_sizes(double max_bytes, double *out, int cap);

/* Checks what the bounds alone cannot: N small copies fit in max_bytes. */
int lab_transfer_check(const lab_params *p, lab_error *err);

/* Builds the envelope from a run's measurements (backend "cuda" or
 * "simulated"); prof is NULL for a real run. Caller owns the result. */
cJSON *lab_transfer_envelope(const lab_params *p, const lab_transfer_measure *m, const char *backend,
                             const char *device_name, const lab_profile *prof);

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_transfer from this list. */
#define LAB_PARAMS_transfer(X) \
  X(max_bytes, INT, MIB, 1024 * MIB, 256 * MIB, "bytes", \
    "Largest copy of the sweep (4 KiB, 16 KiB, ... up to this); the GPU needs this much free memory.", NULL) \
  X(samples, INT, 3, LAB_TRANSFER_MAX_SAMPLES, 5, NULL, \
    "Timed repetitions per point; the median is reported.", NULL) \
  X(small_copies, INT, 10, 10000, 1000, NULL, \
    "How many small copies to compare with one batched copy of the same bytes.", NULL) \
  X(small_bytes, INT, 4, MIB, 4096, "bytes", \
    "Size of each small copy (small_copies x small_bytes must fit in max_bytes).", NULL) \
  X(host, ENUM, 0, 5, 0, NULL, \
    "Host link the simulated copies cross: the card's own PCIe link (profile), or a narrower one, as a " \
    "throttled cloud VM gives (an H100 VM measured 14.2 GB/s on one GPU, 57 on the others); a GPU run " \
    "uses this machine's link.", lab_host_link_choices)

LAB_PARAMS_STRUCT(transfer)

#endif
