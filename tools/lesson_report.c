/* Error reporting and file reading shared by the lesson compiler's parts. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

int lesson_report(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return -1;
}

char *lesson_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    lesson_report(path, 1, "cannot read it (%s); a lesson folder holds lesson.md and quiz.json", strerror(errno));
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (ferror(f) || n < cap - 1) break;
    char *bigger = realloc(buf, cap * 2);
    if (!bigger) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    cap *= 2;
  }
  const char *why = !buf ? "out of memory" : ferror(f) ? strerror(errno) : NULL;
  fclose(f);
  if (why) {
    free(buf);
    lesson_report(path, 1, "reading it failed (%s)", why);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

int lesson_line_at(const char *text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && text[i]; i++) line += text[i] == '\n';
  return line;
}
