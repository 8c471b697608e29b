/* The HTML string builder: geometric growth, one escaping routine for text
 * and attribute values, and a failure flag instead of aborting on OOM. */
#include "html.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ui_buf_init(ui_buf *b) { memset(b, 0, sizeof *b); }

void ui_buf_free(ui_buf *b) {
  free(b->data);
  ui_buf_init(b);
}

const char *ui_buf_str(const ui_buf *b) { return b->data ? b->data : ""; }

static bool reserve(ui_buf *b, size_t extra) {
  if (b->failed) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

static void append(ui_buf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void ui_buf_raw(ui_buf *b, const char *s) {
  if (s) append(b, s, strlen(s));
}

static void vformat(ui_buf *b, bool escape, const char *fmt, va_list ap) {
  char small[256];
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(small, sizeof small, fmt, copy);
  va_end(copy);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    if (escape) ui_buf_text(b, small);
    else append(b, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->failed = true;
    return;
  }
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  if (escape) ui_buf_text(b, big);
  else append(b, big, (size_t)n);
  free(big);
}

void ui_buf_rawf(ui_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vformat(b, false, fmt, ap);
  va_end(ap);
}

void ui_buf_textf(ui_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vformat(b, true, fmt, ap);
  va_end(ap);
}

void ui_buf_text(ui_buf *b, const char *s) {
  if (!s) return;
  const char *run = s;
  for (const char *p = s; *p; p++) {
    const char *ent = NULL;
    switch (*p) {
      case '&': ent = "&amp;"; break;
      case '<': ent = "&lt;"; break;
      case '>': ent = "&gt;"; break;
      case '"': ent = "&quot;"; break;
      case '\'': ent = "&#39;"; break;
      default: continue;
    }
    append(b, run, (size_t)(p - run));
    ui_buf_raw(b, ent);
    run = p + 1;
  }
  ui_buf_raw(b, run);
}

const char *ui_fmt_bytes(double bytes, char buf[32]) {
  static const char *const units[] = {"bytes", "kB", "MB", "GB", "TB"};
  int u = 0;
  if (!(bytes >= 0)) bytes = 0; /* also catches NaN */
  /* 999.5 and up would print as 1000 of the unit (or "1e+03"): the next unit */
  while (bytes >= 999.5 && u < 4) {
    bytes /= 1000.0;
    u++;
  }
  if (u == 0) snprintf(buf, 32, "%.0f bytes", bytes);
  else if (bytes >= 999.5) snprintf(buf, 32, "%.0f %s", bytes, units[u]); /* past 999 TB: whole TB */
  else snprintf(buf, 32, "%.3g %s", bytes, units[u]); /* at most three significant figures: "313 kB", "1.07 GB" */
  return buf;
}
