/* `gpulab explain`: reads a pasted CUDA/PyTorch failure (an out-of-memory
 * message, a device mismatch, nvidia-smi's table, a collect_env dump…) and
 * answers one JSON envelope that explains each message found, in order, with
 * the lesson section and experiment that teach it. Pure C over the bytes
 * given: the server, the CLI and the page (wasm) all call this. */
#ifndef LAB_EXPLAIN_H
#define LAB_EXPLAIN_H

#include <stddef.h>

#include "error.h"

#define LAB_EXPLAIN_MAX_BYTES (256 * 1024) /* a longer paste: explain_too_large */
#define LAB_EXPLAIN_MAX_ITEMS 16           /* messages explained per paste; "more" says others followed */
#define LAB_EXPLAIN_MAX_MESSAGES 64        /* messages read per paste (a repeat joins its item but counts) */

/* {"explain":1,"items":[{"kind","facts","diagnosis","steps","lesson",
 * "experiment","bar"?}],"more":true?} for text[0..len) (see docs/explain.md).
 * NULL with err set: explain_empty (nothing but white space),
 * explain_too_large (over LAB_EXPLAIN_MAX_BYTES), explain_not_text (NUL
 * bytes or not UTF-8), out_of_memory. */
cJSON *lab_explain(const char *text, size_t len, lab_error *err);

/* The explainer's recognisers, in the order they are asked (oom, device_mismatch, …). */
#define LAB_EXPLAIN_RECOGNISERS 10
const char *lab_explain_recogniser_kind(int i); /* its kind; NULL past the last */
/* What lab_explain looked at: the bytes of the paste each recogniser
 * examined (searching, reading), counted by the scanner, not by a clock.
 * The reading is linear: each stays under a small multiple of the paste's
 * length whatever the paste (tests/unit/check_explain_cost.c). */
typedef struct lab_explain_costs {
  size_t examined[LAB_EXPLAIN_RECOGNISERS];
  size_t paste; /* the one pass that reads what the whole paste shows of the machine (explain_platform.h) */
} lab_explain_costs;
/* lab_explain, with what it cost in *cost (may be NULL). */
cJSON *lab_explain_cost(const char *text, size_t len, lab_explain_costs *cost, lab_error *err);

/* A size as PyTorch prints it ("20.00 MiB", "512 bytes", "1024 KiB",
 * "4MiB"): number, optional spaces, unit B, bytes, KiB, MiB, GiB, TiB or
 * PiB. Returns the bytes (rounded to a whole byte) and sets *used to the
 * characters read; -1 when s does not start with such a size. */
double lab_explain_size(const char *s, size_t n, size_t *used);

#endif
