/* Markup checks shared by the UI suites (see ui_test.h). */
#include "ui_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *test_ui_markup_problem(const char *s) {
  static char why[160];
  char stack[64][24];
  int depth = 0;
  for (const char *p = s; *p; p++) {
    if (*p == '&') {
      const char *semi = strchr(p, ';');
      if (!semi || semi - p > 8) return "a raw '&'";
      continue;
    }
    if (*p == '>') return "a raw '>' in text";
    if (*p != '<') continue;
    bool closing = p[1] == '/';
    const char *name = p + (closing ? 2 : 1);
    size_t n = strcspn(name, " />");
    const char *end = name + n;
    bool quoted = false;
    while (*end && (quoted || *end != '>')) {
      if (*end == '"') quoted = !quoted;
      if (*end == '<' && !quoted) return "a '<' inside a tag";
      end++;
    }
    if (!*end) return "an unclosed tag";
    bool self = end[-1] == '/';
    static const char *const voids[] = {"input", "br", "meta", "img", "hr", NULL};
    for (int i = 0; voids[i]; i++)
      if (strlen(voids[i]) == n && strncmp(name, voids[i], n) == 0) self = true;
    if (closing) {
      if (depth == 0 || strlen(stack[depth - 1]) != n || strncmp(stack[depth - 1], name, n) != 0) {
        snprintf(why, sizeof why, "</%.*s> closes <%s>", (int)n, name, depth ? stack[depth - 1] : "nothing");
        return why;
      }
      depth--;
    } else if (!self) {
      if (depth == 64 || n >= 24) return "nesting too deep";
      snprintf(stack[depth++], 24, "%.*s", (int)n, name);
    }
    p = end;
  }
  if (depth) {
    snprintf(why, sizeof why, "<%s> never closed", stack[depth - 1]);
    return why;
  }
  return NULL;
}

int test_ui_count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}
