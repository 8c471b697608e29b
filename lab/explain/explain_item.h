/* One recognised message while the explainer builds its answer, and the
 * recognisers' interface: each finds the next message of its kind in the
 * text and reads its facts and first diagnosis (lab/explain/explain_KIND.c); the
 * writer (explain_write.c) turns the item into the answer's JSON. */
#ifndef LAB_EXPLAIN_ITEM_H
#define LAB_EXPLAIN_ITEM_H

#include <stddef.h>

#include "cjson_compat.h"

typedef struct lab_ex_item {
  const char *kind;  /* "oom", "device_mismatch", … */
  const char *diag;  /* the first diagnosis's id (explain_write.c's table) */
  cJSON *facts;      /* what the text says, owned */
  cJSON *params;     /* the experiment's parameters read from the text, or NULL (owned) */
  cJSON *ask;        /* parameters the learner must give (the model size), or NULL (owned) */
  cJSON *bar;        /* OOM: the device's memory in parts, or NULL (owned) */
} lab_ex_item;

/* find: the first message of this kind starting in t[from..n): 0 with its
 * [*start, *end) (end: where this message's own text stops), else -1.
 * read: fills item from t[start..end) (facts and diag; params/ask/bar when
 * it has them; the whole t[0..n) only to infer the model for an OOM). Both bounded by the window; neither allocates beyond cJSON. */
typedef struct lab_ex_recogniser {
  const char *kind;
  int (*find)(const char *t, size_t n, size_t from, size_t *start, size_t *end);
  void (*read)(const char *t, size_t n, size_t start, size_t end, lab_ex_item *it);
} lab_ex_recogniser;

extern const lab_ex_recogniser lab_ex_oom, lab_ex_mismatch, lab_ex_async, lab_ex_setup, lab_ex_smi, lab_ex_env,
    lab_ex_summary;

/* The first of `anchors` (NULL-terminated) in t[from..n): its offset, or LAB_EX_NONE. */
size_t lab_ex_first_anchor(const char *t, size_t n, size_t from, const char *const anchors[]);

/* The anchors' occurrences in order, for a find that must skip some (an
 * "Input type (" without its sentence): each anchor is searched for once
 * and again only past a skipped occurrence, so skipping costs O(n) in all. */
#define LAB_EX_MAX_ANCHORS 8
typedef struct lab_ex_anchor_scan {
  const char *const *anchors;
  size_t at[LAB_EX_MAX_ANCHORS];
} lab_ex_anchor_scan;
/* Starts at from; returns the first occurrence (LAB_EX_NONE: none). */
size_t lab_ex_scan_start(lab_ex_anchor_scan *s, const char *t, size_t n, size_t from, const char *const anchors[]);
/* Skips the occurrence at `at`; returns the next one. */
size_t lab_ex_scan_skip(lab_ex_anchor_scan *s, const char *t, size_t n, size_t at);

/* PyTorch's format_size for a size computed here: "512 bytes", "3.21 GiB". */
void lab_ex_format_size(double bytes, char *out, size_t cap);

/* Set-up and collect_env items: the device check's layers, the text's values, the failed one (explain_layers.c); NULL for other kinds. */
cJSON *lab_ex_layers_json(const lab_ex_item *it);

/* The item as the answer carries it; NULL when out of memory. */
cJSON *lab_ex_item_json(const lab_ex_item *it);
/* The "I don't recognise this" item: what was looked for, the device check. */
cJSON *lab_ex_unknown_json(void);

#endif
