/* Choosing a precompressed twin of a static file (see precompressed.h).
 * brotli is preferred to gzip when the client accepts both: it is ~15 %
 * smaller on the wasm and the lessons. */
#include "precompressed.h"

#include "gzip_body.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Compared to the nanosecond: a file rewritten in the same second as its
 * twin was made must not be answered with the stale twin. */
static int older(const struct stat *a, const struct stat *b) {
  return a->st_mtim.tv_sec < b->st_mtim.tv_sec ||
         (a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec < b->st_mtim.tv_nsec);
}

int srv_compressible(const char *path) {
  static const char *const ext[] = {".html", ".js", ".css", ".wasm", ".json", ".svg", ".md", ".webmanifest", ".py", ".ipynb"};
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
    if (strcmp(dot, ext[i]) == 0) return 1;
  return 0;
}

const char *srv_precompressed(char *path, size_t cap, const char *accept_encoding) {
  static const struct {
    const char *coding, *suffix;
  } forms[] = {{"br", ".br"}, {"gzip", ".gz"}};
  struct stat src, st;
  size_t len = strlen(path);
  if (!accept_encoding || !srv_compressible(path) || len + 4 > cap || stat(path, &src) != 0) return NULL;
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    if (!srv_accepts_coding(accept_encoding, forms[i].coding)) continue;
    memcpy(path + len, forms[i].suffix, strlen(forms[i].suffix) + 1);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !older(&st, &src)) return forms[i].coding;
    path[len] = '\0';
  }
  return NULL;
}
