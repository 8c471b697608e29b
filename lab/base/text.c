/* Appending to a fixed buffer (lab/base/text.h): the printf-free way the
 * simulators write labels and method text. */
#include "text.h"

#include <string.h>

void lab_text_init(lab_text *t, char *buf, size_t cap) {
  t->buf = buf;
  t->cap = cap;
  t->len = 0;
  t->cut = cap == 0;
  if (cap) buf[0] = '\0';
}

static void add_n(lab_text *t, const char *s, size_t n) {
  if (t->cut) return;
  size_t room = t->cap - 1 - t->len;
  if (n > room) {
    n = room;
    t->cut = true;
  }
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = '\0';
}

void lab_text_add(lab_text *t, const char *s) {
  if (s) add_n(t, s, strlen(s));
}

void lab_text_int(lab_text *t, long v) {
  char digits[24];
  size_t i = sizeof digits;
  /* in unsigned arithmetic, so LONG_MIN has a magnitude too */
  unsigned long m = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
  do digits[--i] = (char)('0' + m % 10);
  while (m /= 10);
  if (v < 0) digits[--i] = '-';
  add_n(t, digits + i, sizeof digits - i);
}

const char *lab_text_numbered(char *buf, size_t n, const char *prefix, long i, const char *suffix) {
  lab_text t;
  lab_text_init(&t, buf, n);
  lab_text_add(&t, prefix);
  lab_text_int(&t, i);
  lab_text_add(&t, suffix);
  return buf;
}
