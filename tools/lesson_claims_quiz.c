/* The quiz side of lesson claims: a claim with "quiz": "q8" quotes the right
 * answer or the explanation of that question of quiz.json (not lesson.md)
 * and is bound to the quiz line it quotes. Every question must be backed by
 * a claim or marked "conceptual: why" in claims.json, so a new question or
 * an edited answer cannot slip past the claims stage. lesson_claims.c uses
 * these; format: lessons/README.md, "claims.json". */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "lesson.h"

struct lesson_quizref {
  const char *path; /* quiz.json */
  char *text;
  cJSON *quiz;
  lesson_jsonpos *map;
  const cJSON *questions;
};

lesson_quizref *lesson_quizref_load(const char *quiz_path) {
  lesson_quizref *q = calloc(1, sizeof *q);
  size_t len;
  if (!q) return NULL;
  q->path = quiz_path;
  q->text = lesson_read_file(quiz_path, &len);
  q->quiz = q->text ? cJSON_ParseWithLengthOpts(q->text, len + 1, NULL, 1) : NULL;
  q->map = q->quiz ? lesson_jsonpos_build(q->text, len, q->quiz) : NULL;
  q->questions = cJSON_GetObjectItemCaseSensitive(q->quiz, "questions");
  if (!q->map || !cJSON_IsArray(q->questions)) {
    /* lessonc checked quiz.json before the claims: only memory can fail here */
    if (q->text) lesson_report(quiz_path, 1, "cannot read the quiz back for its claims (out of memory?)");
    lesson_quizref_free(q);
    return NULL;
  }
  return q;
}

void lesson_quizref_free(lesson_quizref *q) {
  if (!q) return;
  lesson_jsonpos_free(q->map);
  cJSON_Delete(q->quiz);
  free(q->text);
  free(q);
}

int lesson_quizref_count(const lesson_quizref *q) { return cJSON_GetArraySize(q->questions); }

const char *lesson_quizref_id(const lesson_quizref *q, int i, int *line) {
  const cJSON *qn = cJSON_GetArrayItem(q->questions, i);
  *line = lesson_jsonpos_line(q->map, qn);
  return cJSON_GetObjectItemCaseSensitive(qn, "id")->valuestring;
}

int lesson_quizref_find(const lesson_quizref *q, const char *qid) {
  const cJSON *qn;
  int i = 0;
  cJSON_ArrayForEach(qn, q->questions) {
    if (!strcmp(cJSON_GetObjectItemCaseSensitive(qn, "id")->valuestring, qid)) return i;
    i++;
  }
  return -1;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* s with every run of white space made one space, trimmed (caller frees),
 * as lesson_claims.c compares quotes with the lesson's text. */
static char *collapse(const char *s) {
  size_t o = 0;
  char *out = malloc(strlen(s) + 1);
  for (const char *p = s; out && *p; p++) {
    if (is_space(*p) && (o == 0 || out[o - 1] == ' ')) continue;
    out[o++] = is_space(*p) ? ' ' : *p;
  }
  if (!out) return NULL;
  while (o > 0 && out[o - 1] == ' ') o--;
  out[o] = '\0';
  return out;
}

/* How often needle (already collapsed) occurs in s. */
static int occurrences(const char *s, const char *needle) {
  char *norm = collapse(s);
  int count = 0;
  for (const char *p = norm ? strstr(norm, needle) : NULL; p; p = strstr(p + 1, needle)) count++;
  free(norm);
  return count;
}

static bool is_correct(const cJSON *question, const char *option_id) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(question, "correct"))
    if (cJSON_IsString(c) && !strcmp(c->valuestring, option_id)) return true;
  return false;
}

int lesson_quizref_quote(const lesson_quizref *q, int index, const char *quote, char *part, size_t pn, char *why,
                         size_t wn) {
  const cJSON *qn = cJSON_GetArrayItem(q->questions, index), *opt;
  const char *qid = cJSON_GetObjectItemCaseSensitive(qn, "id")->valuestring;
  int qline = lesson_jsonpos_line(q->map, qn), count = 0, line = 0;
  char *nq = collapse(quote);
  if (!nq) return snprintf(why, wn, "out of memory"), 0;
  if (!nq[0]) {
    free(nq);
    return snprintf(why, wn, "the quote is empty: copy the words of question '%s' that this claim backs", qid), 0;
  }
  /* Where a claim may point: the right options and the explanation. */
  const char *wrong = NULL;
  cJSON_ArrayForEach(opt, cJSON_GetObjectItemCaseSensitive(qn, "options")) {
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(opt, "text");
    const char *oid = cJSON_GetObjectItemCaseSensitive(opt, "id")->valuestring;
    int k = occurrences(text->valuestring, nq);
    if (k && !is_correct(qn, oid)) {
      wrong = wrong ? wrong : oid;
      continue;
    }
    if (k && !count) line = lesson_jsonpos_line(q->map, text), snprintf(part, pn, "option '%s'", oid);
    count += k;
  }
  const cJSON *expl = cJSON_GetObjectItemCaseSensitive(qn, "explanation");
  int k = occurrences(expl->valuestring, nq);
  if (k && !count) line = lesson_jsonpos_line(q->map, expl), snprintf(part, pn, "the explanation");
  count += k;
  bool in_prompt = occurrences(cJSON_GetObjectItemCaseSensitive(qn, "prompt")->valuestring, nq) > 0;
  free(nq);
  if (count == 1) return line;
  if (count > 1)
    snprintf(why, wn, "the quote appears %d times in question '%s' (%s:%d): quote more so it names one place",
             count, qid, q->path, qline);
  else if (wrong)
    snprintf(why, wn, "the quote is in option '%s' of question '%s', which is not a right answer: a claim backs what "
             "the quiz says is right (a right option or the explanation)", wrong, qid);
  else if (in_prompt)
    snprintf(why, wn, "the quote is in the prompt of question '%s': a claim backs the right answer or the explanation, "
             "quote those", qid);
  else
    snprintf(why, wn, "the quote is not in the right answer or the explanation of quiz question '%s' (%s:%d): "
             "copy the words this claim backs word for word (runs of spaces may differ)", qid, q->path, qline);
  return 0;
}
