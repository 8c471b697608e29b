/* Anchors for the explain recognisers: where the first of several phrases
 * starts, and a scan that walks their occurrences in order, each phrase
 * searched for again only past one that was skipped (O(n) in all). Apart
 * from the driver (explain.c), so recognisers and driver call one way. */
#include <string.h>

#include "explain_item.h"
#include "explain_scan.h"

size_t lab_ex_first_anchor(const char *t, size_t n, size_t from, const char *const anchors[]) {
  size_t best = LAB_EX_NONE;
  for (int i = 0; anchors[i]; i++) {
    /* only an anchor that starts before the best so far can beat it; never past n */
    size_t end = best == LAB_EX_NONE || n - best < strlen(anchors[i]) ? n : best + strlen(anchors[i]);
    size_t at = lab_ex_find(t, from, end, anchors[i]);
    if (at < best) best = at;
  }
  return best;
}

static size_t scan_min(const lab_ex_anchor_scan *s) {
  size_t best = LAB_EX_NONE;
  for (int i = 0; i < LAB_EX_MAX_ANCHORS && s->anchors[i]; i++)
    if (s->at[i] < best) best = s->at[i];
  return best;
}

size_t lab_ex_scan_start(lab_ex_anchor_scan *s, const char *t, size_t n, size_t from, const char *const anchors[]) {
  s->anchors = anchors;
  for (int i = 0; i < LAB_EX_MAX_ANCHORS && anchors[i]; i++) s->at[i] = lab_ex_find(t, from, n, anchors[i]);
  return scan_min(s);
}

size_t lab_ex_scan_skip(lab_ex_anchor_scan *s, const char *t, size_t n, size_t at) {
  for (int i = 0; i < LAB_EX_MAX_ANCHORS && s->anchors[i]; i++)
    if (s->at[i] == at) s->at[i] = lab_ex_find(t, at + 1, n, s->anchors[i]);
  return scan_min(s);
}
