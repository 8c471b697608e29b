/* Parses the hash routes of the page. */
#include "route.h"

#include <stdio.h>
#include <string.h>

bool ui_id_valid(const char *id) {
  size_t n = id ? strlen(id) : 0;
  if (n == 0 || n >= UI_ID_MAX) return false;
  for (size_t i = 0; i < n; i++) {
    char c = id[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

/* Copies the part of s up to '/' or the end into out; false when it is not an id. */
static bool take_id(const char **s, char out[UI_ID_MAX]) {
  const char *end = strchr(*s, '/');
  size_t n = end ? (size_t)(end - *s) : strlen(*s);
  if (n == 0 || n >= UI_ID_MAX) return false;
  memcpy(out, *s, n);
  out[n] = '\0';
  *s += n;
  return ui_id_valid(out);
}

int ui_route_parse(const char *hash, ui_route *r) {
  memset(r, 0, sizeof *r);
  if (!hash) return 0;
  if (hash[0] == '#') hash++;
  if (hash[0] == '\0') return 0;
  if (strncmp(hash, "lesson/", 7) != 0) return -1;
  const char *s = hash + 7;
  if (!take_id(&s, r->lesson)) goto bad;
  if (*s == '\0' || strcmp(s, "/") == 0) return 0;
  s++;
  if (!take_id(&s, r->section) || *s != '\0') goto bad;
  return 0;
bad:
  memset(r, 0, sizeof *r);
  return -1;
}
