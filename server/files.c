/* Path resolution under the web root and whole-file reads. */
#include "files.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int srv_resolve_under(const char *root, const char *uri_path, char *out, size_t n) {
  if (!uri_path || uri_path[0] != '/') return -1;
  for (const char *p = uri_path; *p; p++) {
    if ((unsigned char)*p < 0x20 || *p == '\\' || *p == 0x7f) return -1;
    if (p[0] == '/' && p[1] == '.' && p[2] == '.' && (p[3] == '/' || p[3] == 0)) return -1;
  }
  char joined[PATH_MAX], real_root[PATH_MAX], real[PATH_MAX];
  if ((size_t)snprintf(joined, sizeof joined, "%s%s", root, uri_path) >= sizeof joined) return -1;
  if (!realpath(root, real_root) || !realpath(joined, real)) return -1;
  size_t rl = strlen(real_root);
  if (strncmp(real, real_root, rl) != 0 || (real[rl] != '/' && real[rl] != 0)) return -1;
  if ((size_t)snprintf(out, n, "%s", real) >= n) return -1;
  return 0;
}

int srv_read_file(const char *path, size_t max, char **out, size_t *len) {
  *out = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
    fclose(f);
    return -1;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    fclose(f);
    return -1;
  }
  size_t got = fread(buf, 1, (size_t)st.st_size, f);
  fclose(f);
  if (got != (size_t)st.st_size) {
    free(buf);
    return -1;
  }
  buf[got] = 0;
  *out = buf;
  *len = got;
  return 0;
}
