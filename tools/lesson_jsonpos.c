/* Line numbers for cJSON nodes. cJSON keeps no positions, so after a
 * successful parse we walk the same text and the tree side by side (both are
 * in document order) and note where each node starts. Quizzes are small, so
 * a flat list searched linearly is enough. */
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "lesson.h"

typedef struct {
  const cJSON *node;
  int line;
} pos_entry;

struct lesson_jsonpos {
  pos_entry *v;
  int n, cap;
  const char *text, *end;
  int ok;
};

static void note(lesson_jsonpos *m, const cJSON *node, const char *at) {
  if (m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 64;
    pos_entry *v = realloc(m->v, (size_t)cap * sizeof *v);
    if (!v) {
      m->ok = 0;
      return;
    }
    m->v = v;
    m->cap = cap;
  }
  m->v[m->n].node = node;
  m->v[m->n].line = lesson_line_at(m->text, (size_t)(at - m->text));
  m->n++;
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

static const char *skip_string(const char *p, const char *end) {
  for (p++; p < end && *p != '"'; p++)
    if (*p == '\\') p++;
  return p < end ? p + 1 : end;
}

/* Walks the value starting at p (already past whitespace) that parsed into
 * node; returns the position after it. Records node at `at` unless at is NULL. */
static const char *walk(lesson_jsonpos *m, const char *p, const cJSON *node, const char *at) {
  const char *end = m->end;
  if (at) note(m, node, at);
  if (p >= end) return end;
  if (*p == '"') return skip_string(p, end);
  if (*p != '{' && *p != '[') {
    while (p < end && !strchr(",]} \t\r\n", *p)) p++;
    return p;
  }
  int is_obj = *p == '{';
  p = skip_ws(p + 1, end);
  for (const cJSON *c = node ? node->child : NULL; c && p < end; c = c->next) {
    const char *start = p;
    if (is_obj) {
      p = skip_ws(skip_string(p, end), end); /* the key */
      p = skip_ws(p + 1, end);               /* the ':' */
    }
    p = skip_ws(walk(m, p, c, start), end);
    if (p < end && *p == ',') p = skip_ws(p + 1, end);
  }
  return p < end ? p + 1 : end; /* the closing bracket */
}

lesson_jsonpos *lesson_jsonpos_build(const char *text, size_t len, const cJSON *root) {
  lesson_jsonpos *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->text = text;
  m->end = text + len;
  m->ok = 1;
  const char *p = text;
  if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3; /* cJSON skips a BOM too */
  p = skip_ws(p, m->end);
  walk(m, p, root, p);
  if (!m->ok) {
    lesson_jsonpos_free(m);
    return NULL;
  }
  return m;
}

int lesson_jsonpos_line(const lesson_jsonpos *map, const cJSON *node) {
  for (int i = 0; map && i < map->n; i++)
    if (map->v[i].node == node) return map->v[i].line;
  return 1;
}

void lesson_jsonpos_free(lesson_jsonpos *map) {
  if (!map) return;
  free(map->v);
  free(map);
}
