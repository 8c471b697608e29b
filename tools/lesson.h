/* The lesson compiler's parts: Markdown lessons to section HTML
 * (lesson_md.c), JSON line numbers for quiz errors (lesson_jsonpos.c) and
 * the one way every part reports an error: "FILE:LINE: message" on stderr.
 * Functions report and return; only main decides the exit status. */
#ifndef TOOLS_LESSON_H
#define TOOLS_LESSON_H

#include <stddef.h>

typedef struct cJSON cJSON;

/* Prints "file:line: message" to stderr; returns -1. */
int lesson_report(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads a whole file (NUL-terminated; *len excludes the NUL). Returns NULL
 * after reporting why it could not. Caller frees. */
char *lesson_read_file(const char *path, size_t *len);

/* Compiles lesson.md into {"title","summary","sections":[{"id","title",
 * "html","experiments":[…]}]}. Reports every error it finds; returns 0 with
 * *out set (caller owns), or -1 with *out NULL. */
int lesson_md_compile(const char *path, cJSON **out);

/* Line numbers of the nodes of a parsed JSON text: for an object member
 * the line of its key, for an array element the line where it starts. */
typedef struct lesson_jsonpos lesson_jsonpos;
/* text is what root was parsed from (same bytes); NULL on out-of-memory. */
lesson_jsonpos *lesson_jsonpos_build(const char *text, size_t len, const cJSON *root);
int lesson_jsonpos_line(const lesson_jsonpos *map, const cJSON *node); /* 1 when unknown */
void lesson_jsonpos_free(lesson_jsonpos *map);
/* The 1-based line of text + offset. */
int lesson_line_at(const char *text, size_t offset);

#endif
