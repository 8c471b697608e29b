/* Lesson tables that reflow on a phone: md4c's table HTML rewritten so each
 * body cell carries its column's header text (data-label), the row's first
 * cell is its header (<th scope="row">), and explicit table roles keep it a
 * table for screen readers when web/style.css lays each row out as a card
 * below 600 px (a block-displayed table loses its implicit roles). */
#include <string.h>

#include "lesson.h"

#define COLS_MAX 16
#define LABEL_MAX 120

static void put_str(lesson_buf *o, const char *s) { lesson_buf_put(o, s, strlen(s)); }

static bool at(const char *s, const char *end, const char *word) {
  size_t k = strlen(word);
  return (size_t)(end - s) >= k && memcmp(s, word, k) == 0;
}

/* A cell "<th…>inner</th>" or "<td…>inner</td>" starting at s: *attrs and
 * *inner point into it; returns the end of its closing tag, NULL if none. */
static const char *cell(const char *s, const char *end, const char **attrs, const char **inner, const char **close) {
  const char *gt = memchr(s, '>', (size_t)(end - s));
  if (!gt) return NULL;
  *attrs = s + 3;
  *inner = gt + 1;
  const char *closing = s[2] == 'h' ? "</th>" : "</td>";
  for (const char *p = *inner; p + 5 <= end; p++)
    if (memcmp(p, closing, 5) == 0) {
      *close = p;
      return p + 5;
    }
  return NULL;
}

/* A header's text without its tags (entities kept: md4c escaped the text,
 * '"' included, so it stays valid inside an attribute). */
static void label_of(char *out, const char *s, const char *end) {
  size_t n = 0;
  for (bool tag = false; s < end && n + 1 < LABEL_MAX; s++) {
    if (*s == '<') tag = true;
    else if (*s == '>') tag = false;
    else if (!tag && *s != '\n') out[n++] = *s;
  }
  while (n && out[n - 1] == ' ') n--;
  out[n] = '\0';
}

void lesson_table_reflow(const char *html, size_t n, lesson_buf *o) {
  const char *s = html, *end = html + n;
  char labels[COLS_MAX][LABEL_MAX];
  int col = 0, cols = 0;
  bool table = false, head = false;
  while (s < end) {
    const char *attrs, *inner, *close, *next;
    if (at(s, end, "<table>")) {
      /* focusable: a wide table still scrolls sideways on a wide screen */
      put_str(o, "<table tabindex=\"0\" role=\"table\">");
      s += 7, table = true, cols = 0;
    } else if (table && at(s, end, "</table>")) {
      put_str(o, "</table>");
      s += 8, table = false;
    } else if (table && (at(s, end, "<thead>") || at(s, end, "<tbody>"))) {
      head = s[2] == 'h';
      lesson_buf_put(o, s, 6);
      put_str(o, " role=\"rowgroup\">");
      s += 7;
    } else if (table && at(s, end, "<tr>")) {
      put_str(o, "<tr role=\"row\">");
      s += 4, col = 0;
    } else if (table && (at(s, end, "<th>") || at(s, end, "<td>") || at(s, end, "<th ") || at(s, end, "<td ")) &&
               (next = cell(s, end, &attrs, &inner, &close))) {
      if (head) {
        if (col < COLS_MAX) label_of(labels[col], inner, close), cols = col + 1;
        put_str(o, "<th scope=\"col\" role=\"columnheader\"");
      } else if (col == 0) {
        put_str(o, "<th scope=\"row\" role=\"rowheader\"");
      } else {
        put_str(o, "<td role=\"cell\"");
        if (col < cols && labels[col][0]) {
          put_str(o, " data-label=\"");
          put_str(o, labels[col]);
          put_str(o, "\"");
        }
      }
      lesson_buf_put(o, attrs, (size_t)(close - attrs));
      put_str(o, head || col == 0 ? "</th>" : "</td>");
      s = next, col++;
    } else {
      lesson_buf_put(o, s, 1);
      s++;
    }
  }
}
