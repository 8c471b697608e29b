/* The lesson compiler's parts: Markdown lessons to section HTML
 * (lesson_md.c), JSON line numbers for quiz errors (lesson_jsonpos.c) and
 * the one way every part reports an error: "FILE:LINE: message" on stderr.
 * Functions report and return; only main decides the exit status. */
#ifndef TOOLS_LESSON_H
#define TOOLS_LESSON_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cJSON cJSON;

/* Prints "file:line: message" to stderr; returns -1. */
int lesson_report(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads a whole file (NUL-terminated; *len excludes the NUL). Returns NULL
 * after reporting why it could not. Caller frees. */
char *lesson_read_file(const char *path, size_t *len);

/* At most this many words shown before any fold is opened, per lesson:
 * what a beginner reads in one sitting (lessons/README.md, "Folds"). */
#define LESSON_WORDS_MAX 3000

/* Compiles lesson.md into {"title","summary","words","sections":[{"id",
 * "title","html","experiments":[…]}]}; "words" counts what a learner sees
 * before opening any fold (lesson_words). Reports every error it finds,
 * including more than LESSON_WORDS_MAX words; returns 0 with *out set
 * (caller owns), or -1 with *out NULL. */
int lesson_md_compile(const char *path, cJSON **out);

/* A growing NUL-terminated string (lesson_md.c); oom is set, and nothing
 * more appended, once memory runs out. The caller frees s. */
typedef struct lesson_buf {
  char *s;
  size_t n, cap;
  bool oom;
} lesson_buf;
void lesson_buf_put(lesson_buf *b, const char *s, size_t n);

/* Appends md4c's HTML html[0..n) to out with each table made to reflow on a
 * phone (lesson_table.c): roles, row headers and data-label on body cells. */
void lesson_table_reflow(const char *html, size_t n, lesson_buf *out);

/* Words in s[0..n): runs between spaces holding a letter or digit. With
 * html, tags and entities are not words and <pre> blocks are skipped. */
size_t lesson_words(const char *s, size_t n, bool html);

/* Compiles lessons/ID/claims.json against the lesson's text md_path, its
 * (already checked) quiz quiz_path and the experiment registry into an
 * array of checks, one per claim, each bound to the lesson or quiz line its
 * quote starts on, and *quiz: the quiz's coverage {"lesson","file",
 * "questions","bound","conceptual","unchecked":{"q1":"conceptual: why"}}.
 * Every quiz question must be backed by a claim or marked conceptual; an
 * absent claims.json backs nothing (format: lessons/README.md). Reports
 * every error as FILE:LINE; returns 0 with *out and *quiz set (caller owns
 * both), or -1 with both NULL. */
int lesson_claims_compile(const char *claims_path, const char *md_path, const char *quiz_path, const char *lesson_id,
                          cJSON **out, cJSON **quiz);

/* A lesson's quiz.json read back for the claims that quote it
 * (tools/lesson_claims_quiz.c). Load after lessonc has checked the quiz;
 * NULL (reported) only when it cannot be read. */
typedef struct lesson_quizref lesson_quizref;
lesson_quizref *lesson_quizref_load(const char *quiz_path);
void lesson_quizref_free(lesson_quizref *q);
int lesson_quizref_count(const lesson_quizref *q);
/* The id of question i; *line: the quiz.json line it starts on. */
const char *lesson_quizref_id(const lesson_quizref *q, int i, int *line);
/* The index of question qid, or -1. */
int lesson_quizref_find(const lesson_quizref *q, const char *qid);
/* The quiz.json line where quote occurs, exactly once, in a right option or
 * the explanation of question index (part: which of them); 0 with why when
 * it does not. */
int lesson_quizref_quote(const lesson_quizref *q, int index, const char *quote, char *part, size_t pn, char *why,
                         size_t wn);

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
