/* The UTF-8 checks (see utf8.h), written from the table of well-formed
 * byte sequences in the Unicode standard (chapter 3, table 3-7): the
 * second byte's range depends on the first, which is what rules out
 * overlong forms, surrogates and code points past U+10FFFF. */
#include "utf8.h"

size_t lab_utf8_next(const char *s, size_t len, uint32_t *cp) {
  const unsigned char *u = (const unsigned char *)s;
  if (len == 0) return 0;
  unsigned c = u[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n;
  unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
  uint32_t v;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    v = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    v = c & 0x0f;
    if (c == 0xe0) lo = 0xa0;      /* overlong */
    else if (c == 0xed) hi = 0x9f; /* surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    v = c & 0x07;
    if (c == 0xf0) lo = 0x90;      /* overlong */
    else if (c == 0xf4) hi = 0x8f; /* past U+10FFFF */
  } else {
    return 0; /* a continuation byte, C0/C1 (overlong) or F5-FF */
  }
  if (len < n || u[1] < lo || u[1] > hi) return 0;
  v = (v << 6) | (u[1] & 0x3f);
  for (size_t k = 2; k < n; k++) {
    if ((u[k] & 0xc0) != 0x80) return 0;
    v = (v << 6) | (u[k] & 0x3f);
  }
  *cp = v;
  return n;
}

int lab_utf8_valid(const char *s, size_t len, size_t *bad_at) {
  size_t i = 0;
  uint32_t cp;
  while (i < len) {
    size_t n = lab_utf8_next(s + i, len - i, &cp);
    if (n == 0) {
      if (bad_at) *bad_at = i;
      return 0;
    }
    i += n;
  }
  return 1;
}

int lab_utf8_is_bidi_control(uint32_t cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

size_t lab_utf8_fit(const char *s, size_t n, size_t cap) {
  if (n <= cap) return n;
  size_t m = cap;
  /* s[m] continues the character before it: that one is left out whole (a character is at most 4 bytes) */
  while (m > 0 && cap - m < 3 && ((unsigned char)s[m] & 0xc0) == 0x80) m--;
  return ((unsigned char)s[m] & 0xc0) == 0x80 ? cap : m;
}

void lab_utf8_repair(char *s) {
  size_t len = 0;
  while (s[len]) len++;
  size_t i = 0;
  uint32_t cp;
  while (i < len) {
    size_t n = lab_utf8_next(s + i, len - i, &cp);
    if (n == 0) {
      s[i] = '?';
      n = 1;
    }
    i += n;
  }
}
