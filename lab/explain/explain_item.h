/* One recognised message while the explainer builds its answer, and the
 * recognisers' interface: each finds the next message of its kind in the
 * text and reads its facts and first diagnosis (lab/explain/explain_KIND.c); the
 * writer (explain_write.c) turns the item into the answer's JSON. */
#ifndef LAB_EXPLAIN_ITEM_H
#define LAB_EXPLAIN_ITEM_H

#include <stddef.h>

#include "cjson_compat.h"
#include "explain_platform.h"

typedef struct lab_ex_item {
  const char *kind;  /* "oom", "device_mismatch", … */
  const char *diag;  /* the first diagnosis's id (explain_write.c's table) */
  cJSON *facts;      /* what the text says, owned */
  cJSON *params;     /* the experiment's parameters read from the text, or NULL (owned) */
  cJSON *ask;        /* parameters the learner must give (the model size), or NULL (owned) */
  cJSON *bar;        /* OOM: the device's memory in parts, or NULL (owned) */
  int platform;      /* the machine the message itself shows (an MPS or HIP message), else 0: the paste's */
  const lab_ex_paste *paste; /* what the whole paste shows (the driver's, read once), for read to decide by */
} lab_ex_item;

/* What one recogniser remembers of the paste it reads, so that each part
 * of the text is searched for a phrase once (explain_anchor.c): for each
 * phrase asked for, the first place at or after `from` where it occurs
 * (`at`, LAB_EX_NONE: nowhere after `from`). The driver asks with a
 * position that only grows, so every phrase costs O(n) in all, however
 * many times it is asked for. A phrase is known by its address: two
 * cursors over the same words are two arrays. Zeroed before a paste is read. */
#define LAB_EX_MEMO_SLOTS 32
typedef struct lab_ex_memo {
  struct {
    const char *needle;
    size_t from, at;
  } slot[LAB_EX_MEMO_SLOTS];
  size_t anchor;   /* find: where the phrase of the start it returned is (the start may be before it) */
  size_t state[2]; /* a recogniser's own place in the paste (explain_oom.c, explain_async.c say what) */
} lab_ex_memo;

/* find: where the first message of this kind starting in t[from..n)
 * starts, or LAB_EX_NONE. extent: where that message's own text stops,
 * given that another message starts at lim (start < result <= lim).
 * read: fills item from t[start..end) (facts and diag; params/ask/bar when
 * it has them). The driver (explain.c) asks each find with a `from` that
 * only grows, extent and read once per message read, with windows that do
 * not overlap; none allocates beyond cJSON. */
typedef struct lab_ex_recogniser {
  const char *kind;
  size_t (*find)(const char *t, size_t n, size_t from, lab_ex_memo *m);
  size_t (*extent)(const char *t, size_t n, size_t start, size_t lim, lab_ex_memo *m);
  void (*read)(const char *t, size_t n, size_t start, size_t end, lab_ex_memo *m, lab_ex_item *it);
} lab_ex_recogniser;

extern const lab_ex_recogniser lab_ex_oom, lab_ex_mismatch, lab_ex_async, lab_ex_setup, lab_ex_smi, lab_ex_env,
    lab_ex_summary, lab_ex_mps_oom, lab_ex_mps, lab_ex_hip;

/* The first of `anchors` (NULL-terminated) in t[from..n): its offset, or
 * LAB_EX_NONE. Searches the window again each call: for a bounded window. */
size_t lab_ex_first_anchor(const char *t, size_t n, size_t from, const char *const anchors[]);

/* The first `needle` in t[from..end) (n: the paste's length), remembered
 * in m: LAB_EX_NONE when none ends by `end`. */
size_t lab_ex_next(lab_ex_memo *m, const char *t, size_t n, size_t from, size_t end, const char *needle);
/* The first of `anchors` (NULL-terminated) in t[from..end), remembered. */
size_t lab_ex_next_of(lab_ex_memo *m, const char *t, size_t n, size_t from, size_t end, const char *const anchors[]);
/* lab_ex_line_end (explain_scan.h), remembered. */
size_t lab_ex_next_line_end(lab_ex_memo *m, const char *t, size_t n, size_t pos, size_t end);

/* Set-up and collect_env items: the device check's layers, the text's values, the failed one (explain_layers.c); NULL for other kinds. */
cJSON *lab_ex_layers_json(const lab_ex_item *it);

/* The item as the answer carries it, its advice for its platform (the
 * "platform" fact); NULL when out of memory. */
cJSON *lab_ex_item_json(const lab_ex_item *it);
/* The "I don't recognise this" item: what was looked for, the device
 * check for the platform the paste shows (LAB_EX_NO_PLATFORM: all three). */
cJSON *lab_ex_unknown_json(int platform);

#endif
