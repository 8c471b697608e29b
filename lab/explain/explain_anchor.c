/* Where the explain recognisers' phrases occur: a bounded search for the
 * first of several anchors, and the remembered search (lab_ex_memo) that
 * keeps the whole reading O(n): a phrase is searched for again only from
 * past the place where it was last found, so no part of the text is
 * searched twice for it while the positions asked for only grow. Apart
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

size_t lab_ex_next(lab_ex_memo *m, const char *t, size_t n, size_t from, size_t end, const char *needle) {
  int k = 0;
  while (k < LAB_EX_MEMO_SLOTS && m->slot[k].needle && m->slot[k].needle != needle) k++;
  size_t at;
  if (k < LAB_EX_MEMO_SLOTS && m->slot[k].needle && m->slot[k].from <= from && from <= m->slot[k].at) {
    at = m->slot[k].at; /* nothing between the last search's start and its find */
  } else {
    at = lab_ex_find(t, from, n, needle);
    if (k < LAB_EX_MEMO_SLOTS) { /* a recogniser asks for fewer phrases than there are slots */
      m->slot[k].needle = needle;
      m->slot[k].from = from;
      m->slot[k].at = at;
    }
  }
  /* the first occurrence from `from` ends past `end`: any later one does too */
  return at != LAB_EX_NONE && at + strlen(needle) <= end ? at : LAB_EX_NONE;
}

size_t lab_ex_next_of(lab_ex_memo *m, const char *t, size_t n, size_t from, size_t end, const char *const anchors[]) {
  size_t best = LAB_EX_NONE;
  for (int i = 0; anchors[i]; i++) {
    size_t at = lab_ex_next(m, t, n, from, end, anchors[i]);
    if (at < best) best = at;
  }
  return best;
}

size_t lab_ex_next_line_end(lab_ex_memo *m, const char *t, size_t n, size_t pos, size_t end) {
  if (pos >= end) return end;
  size_t nl = lab_ex_next(m, t, n, pos, end, "\n");
  return nl == LAB_EX_NONE ? end : nl + 1;
}
