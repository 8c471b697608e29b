/* Quiz validation, the public/key split and scoring (see quiz.h). The rules
 * follow from how the client shows a quiz: options are shuffled (so no
 * "all of the above"), every question explains its answer after an attempt,
 * and a single-choice question must have exactly one right option. */
#include "quiz.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "quiz_seal.h"

#define MAX_CHOICES 16 /* bound on one answer's array: more options than any question has */

static const char *const quiz_keys[] = {"pass_pct", "questions", NULL};
static const char *const question_keys[] = {"id", "prompt", "multi", "options", "correct", "explanation", NULL};
static const char *const option_keys[] = {"id", "text", NULL};

__attribute__((format(printf, 5, 6))) static int fail_at(const cJSON *node, const cJSON **where, lab_error *err,
                                                         const char *param, const char *fmt, ...) {
  if (where) *where = node;
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof err->message];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return lab_fail(err, LAB_E_INVALID_PARAM, param, "%s", msg);
}

static bool valid_id(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > LAB_QUIZ_ID_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == '_')) return false;
  return true;
}

static bool blank(const char *s) {
  for (; s && *s; s++)
    if (!isspace((unsigned char)*s)) return false;
  return true;
}

/* Case-insensitive substring test, for the banned option texts. */
static bool contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == needle[i]) i++;
    if (i == n) return true;
  }
  return false;
}

/* Every key of obj must be in allowed, and no key may appear twice (cJSON
 * keeps both copies and would silently read the first). */
static int check_keys(const cJSON *obj, const char *const *allowed, const char *what, const cJSON **where,
                      lab_error *err) {
  for (const cJSON *it = obj->child; it; it = it->next) {
    bool known = false;
    for (int i = 0; allowed[i]; i++) known = known || strcmp(it->string, allowed[i]) == 0;
    if (!known)
      return fail_at(it, where, err, it->string, "unknown key '%.40s' in %s; check its spelling", it->string, what);
    for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
      if (strcmp(prev->string, it->string) == 0)
        return fail_at(it, where, err, it->string, "key '%.40s' appears twice in %s; keep one", it->string, what);
  }
  return 0;
}

/* A required non-blank string field of obj. */
static int need_text(const cJSON *obj, const char *name, const char *what, const cJSON **out, const cJSON **where,
                     lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  if (!v) return fail_at(obj, where, err, name, "%s has no \"%s\"; add it as a non-empty string", what, name);
  if (!cJSON_IsString(v) || blank(v->valuestring))
    return fail_at(v, where, err, name, "\"%s\" of %s must be a non-empty string", name, what);
  *out = v;
  return 0;
}

static int check_options(const cJSON *q, const char *qid, const cJSON **where, lab_error *err) {
  const cJSON *opts = cJSON_GetObjectItemCaseSensitive(q, "options");
  if (!opts) return fail_at(q, where, err, "options", "question '%s' has no \"options\"; add at least two", qid);
  if (!cJSON_IsArray(opts) || cJSON_GetArraySize(opts) < 2)
    return fail_at(opts, where, err, "options", "question '%s' needs an \"options\" array of at least two", qid);
  for (const cJSON *o = opts->child; o; o = o->next) {
    const cJSON *id, *text;
    if (!cJSON_IsObject(o))
      return fail_at(o, where, err, "options", "an option of question '%s' is not an object {\"id\",\"text\"}", qid);
    if (check_keys(o, option_keys, "an option", where, err)) return -1;
    if (need_text(o, "id", "an option", &id, where, err) || need_text(o, "text", "an option", &text, where, err))
      return -1;
    if (!valid_id(id->valuestring))
      return fail_at(id, where, err, "id", "option id '%.40s' of question '%s' must be 1-32 of a-z 0-9 - _",
                     id->valuestring, qid);
    if (contains_nocase(text->valuestring, "all of the above") ||
        contains_nocase(text->valuestring, "none of the above"))
      return fail_at(text, where, err, "text",
                     "option '%s' of question '%s' refers to \"the above\", but options are shuffled; "
                     "name the choices instead",
                     id->valuestring, qid);
    for (const cJSON *p = opts->child; p != o; p = p->next) {
      const cJSON *pid = cJSON_GetObjectItemCaseSensitive(p, "id");
      const cJSON *ptext = cJSON_GetObjectItemCaseSensitive(p, "text");
      if (strcmp(pid->valuestring, id->valuestring) == 0)
        return fail_at(id, where, err, "id", "option id '%s' appears twice in question '%s'", id->valuestring, qid);
      if (strcmp(ptext->valuestring, text->valuestring) == 0)
        return fail_at(text, where, err, "text", "option '%s' of question '%s' repeats another option's text",
                       id->valuestring, qid);
    }
  }
  return 0;
}

static bool has_option(const cJSON *opts, const char *id) {
  for (const cJSON *o = opts->child; o; o = o->next)
    if (strcmp(cJSON_GetObjectItemCaseSensitive(o, "id")->valuestring, id) == 0) return true;
  return false;
}

static int check_correct(const cJSON *q, const char *qid, bool multi, const cJSON **where, lab_error *err) {
  const cJSON *opts = cJSON_GetObjectItemCaseSensitive(q, "options");
  const cJSON *corr = cJSON_GetObjectItemCaseSensitive(q, "correct");
  if (!corr)
    return fail_at(q, where, err, "correct", "question '%s' has no \"correct\"; list the right option ids", qid);
  if (!cJSON_IsArray(corr) || cJSON_GetArraySize(corr) == 0)
    return fail_at(corr, where, err, "correct", "\"correct\" of question '%s' must be a non-empty array of option ids",
                   qid);
  for (const cJSON *c = corr->child; c; c = c->next) {
    if (!cJSON_IsString(c))
      return fail_at(corr, where, err, "correct", "\"correct\" of question '%s' must hold option ids (strings)", qid);
    if (!has_option(opts, c->valuestring))
      return fail_at(corr, where, err, "correct", "\"correct\" of question '%s' names '%.40s', which is not an option",
                     qid, c->valuestring);
    for (const cJSON *p = corr->child; p != c; p = p->next)
      if (strcmp(p->valuestring, c->valuestring) == 0)
        return fail_at(corr, where, err, "correct", "\"correct\" of question '%s' names '%.40s' twice", qid,
                       c->valuestring);
  }
  if (!multi && cJSON_GetArraySize(corr) != 1)
    return fail_at(corr, where, err, "correct",
                   "question '%s' is single-choice (\"multi\":false) but has %s correct options; "
                   "keep one or set \"multi\":true",
                   qid, cJSON_GetArraySize(corr) == 2 ? "two" : "several");
  return 0;
}

static int check_question(const cJSON *q, const cJSON *questions, const cJSON **where, lab_error *err) {
  const cJSON *id, *text;
  if (!cJSON_IsObject(q)) return fail_at(q, where, err, "questions", "each question must be an object");
  if (check_keys(q, question_keys, "a question", where, err)) return -1;
  if (need_text(q, "id", "a question", &id, where, err)) return -1;
  const char *qid = id->valuestring;
  if (!valid_id(qid)) return fail_at(id, where, err, "id", "question id '%.40s' must be 1-32 of a-z 0-9 - _", qid);
  for (const cJSON *p = questions->child; p != q; p = p->next)
    if (strcmp(cJSON_GetObjectItemCaseSensitive(p, "id")->valuestring, qid) == 0)
      return fail_at(id, where, err, "id", "question id '%s' appears twice; ids must be unique", qid);
  if (need_text(q, "prompt", "a question", &text, where, err)) return -1;
  const cJSON *multi = cJSON_GetObjectItemCaseSensitive(q, "multi");
  if (multi && !cJSON_IsBool(multi))
    return fail_at(multi, where, err, "multi", "\"multi\" of question '%s' must be true or false", qid);
  if (check_options(q, qid, where, err)) return -1;
  if (check_correct(q, qid, cJSON_IsTrue(multi), where, err)) return -1;
  return need_text(q, "explanation", "a question", &text, where, err);
}

int lab_quiz_check(const cJSON *quiz, const cJSON **where, lab_error *err) {
  if (where) *where = quiz;
  if (!cJSON_IsObject(quiz))
    return lab_fail(err, LAB_E_INVALID_PARAM, NULL, "a quiz is an object {\"pass_pct\":75,\"questions\":[…]}");
  if (check_keys(quiz, quiz_keys, "the quiz", where, err)) return -1;
  const cJSON *pct = cJSON_GetObjectItemCaseSensitive(quiz, "pass_pct");
  if (!pct) return fail_at(quiz, where, err, "pass_pct", "the quiz has no \"pass_pct\"; add e.g. \"pass_pct\": 75");
  if (!cJSON_IsNumber(pct) || !(pct->valuedouble > 0 && pct->valuedouble <= 100))
    return fail_at(pct, where, err, "pass_pct", "\"pass_pct\" must be a number above 0 and at most 100");
  const cJSON *qs = cJSON_GetObjectItemCaseSensitive(quiz, "questions");
  if (!qs) return fail_at(quiz, where, err, "questions", "the quiz has no \"questions\" array");
  if (!cJSON_IsArray(qs) || cJSON_GetArraySize(qs) == 0)
    return fail_at(qs, where, err, "questions", "\"questions\" must be a non-empty array");
  for (const cJSON *q = qs->child; q; q = q->next)
    if (check_question(q, qs, where, err)) return -1;
  return 0;
}

/* Copies the named fields of src into a new object (all exist in a checked quiz). */
static cJSON *pick(const cJSON *src, const char *const *names) {
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && names[i]; i++) {
    cJSON *v = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(src, names[i]), 1);
    if (!v || !cJSON_AddItemToObject(o, names[i], v)) {
      cJSON_Delete(v);
      cJSON_Delete(o);
      return NULL;
    }
  }
  return o;
}

cJSON *lab_quiz_public(const cJSON *quiz) {
  static const char *const pub_keys[] = {"id", "prompt", NULL};
  cJSON *out = cJSON_CreateObject();
  if (!cJSON_AddNumberToObject(out, "pass_pct", cJSON_GetObjectItemCaseSensitive(quiz, "pass_pct")->valuedouble))
    goto fail;
  cJSON *qs = cJSON_AddArrayToObject(out, "questions");
  if (!qs) goto fail;
  const cJSON *q;
  cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(quiz, "questions")) {
    cJSON *pq = pick(q, pub_keys);
    if (!pq) goto fail;
    cJSON_AddItemToArray(qs, pq);
    if (!cJSON_AddBoolToObject(pq, "multi", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "multi")))) goto fail;
    cJSON *opts = cJSON_AddArrayToObject(pq, "options");
    if (!opts) goto fail;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(q, "options")) {
      cJSON *po = pick(o, option_keys);
      if (!po) goto fail;
      cJSON_AddItemToArray(opts, po);
    }
  }
  return out;
fail:
  cJSON_Delete(out);
  return NULL;
}

cJSON *lab_quiz_key(const cJSON *quiz, const char *lesson_id) {
  static const char *const key_keys[] = {"correct", "explanation", NULL};
  cJSON *out = cJSON_CreateObject();
  if (!cJSON_AddStringToObject(out, "id", lesson_id) ||
      !cJSON_AddNumberToObject(out, "pass_pct", cJSON_GetObjectItemCaseSensitive(quiz, "pass_pct")->valuedouble))
    goto fail;
  cJSON *answers = cJSON_AddObjectToObject(out, "answers");
  if (!answers) goto fail;
  const cJSON *q;
  cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(quiz, "questions")) {
    cJSON *a = pick(q, key_keys);
    if (!a) goto fail;
    cJSON_AddItemToObject(answers, cJSON_GetObjectItemCaseSensitive(q, "id")->valuestring, a);
  }
  return out;
fail:
  cJSON_Delete(out);
  return NULL;
}

/* The learner's choices for one question: an array of distinct option ids. */
static int check_choices(const cJSON *a, lab_error *err) {
  const char *qid = a->string;
  if (!cJSON_IsArray(a))
    return lab_fail(err, LAB_E_INVALID_PARAM, qid, "the answer to '%.40s' must be an array of option ids, e.g. [\"b\"]",
                    qid);
  if (cJSON_GetArraySize(a) > MAX_CHOICES)
    return lab_fail(err, LAB_E_INVALID_PARAM, qid, "the answer to '%.40s' has more choices than any question has", qid);
  for (const cJSON *c = a->child; c; c = c->next) {
    if (!cJSON_IsString(c) || !valid_id(c->valuestring))
      return lab_fail(err, LAB_E_INVALID_PARAM, qid, "the answer to '%.40s' must hold option ids such as \"b\"", qid);
    for (const cJSON *p = a->child; p != c; p = p->next)
      if (strcmp(p->valuestring, c->valuestring) == 0)
        return lab_fail(err, LAB_E_INVALID_PARAM, qid, "the answer to '%.40s' names option '%s' twice", qid,
                        c->valuestring);
  }
  return 0;
}

static bool same_set(const cJSON *mine, const cJSON *right) {
  if (cJSON_GetArraySize(mine) != cJSON_GetArraySize(right)) return false;
  for (const cJSON *m = mine->child; m; m = m->next) {
    bool found = false;
    for (const cJSON *r = right->child; r && !found; r = r->next) found = strcmp(m->valuestring, r->valuestring) == 0;
    if (!found) return false;
  }
  return true;
}

static int check_answers(const cJSON *key_answers, const cJSON *answers, lab_error *err) {
  if (!cJSON_IsObject(answers))
    return lab_fail(err, LAB_E_INVALID_PARAM, "answers", "answers must be an object such as {\"q1\":[\"b\"]}");
  for (const cJSON *a = answers->child; a; a = a->next) {
    if (!cJSON_GetObjectItemCaseSensitive(key_answers, a->string))
      return lab_fail(err, LAB_E_INVALID_PARAM, a->string, "this quiz has no question '%.40s'; answer its own ids",
                      a->string);
    for (const cJSON *p = answers->child; p != a; p = p->next)
      if (strcmp(p->string, a->string) == 0)
        return lab_fail(err, LAB_E_INVALID_PARAM, a->string, "question '%.40s' is answered twice; send it once",
                        a->string);
    if (check_choices(a, err)) return -1;
  }
  return 0;
}

static bool key_entry_ok(const cJSON *k) {
  if (k->string && lab_quiz_sealed_entry(k)) return true;
  const cJSON *corr = cJSON_GetObjectItemCaseSensitive(k, "correct");
  if (!k->string || !cJSON_IsArray(corr) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(k, "explanation")))
    return false;
  for (const cJSON *c = corr->child; c; c = c->next)
    if (!cJSON_IsString(c)) return false;
  return true;
}

/* One question of a plain key: right or wrong, the right answer and why. */
static int score_plain(const cJSON *k, const cJSON *mine, cJSON *q) {
  const cJSON *right = cJSON_GetObjectItemCaseSensitive(k, "correct");
  bool ok = same_set(mine, right);
  if (!cJSON_AddBoolToObject(q, "correct", ok) || !cJSON_AddItemToObject(q, "answer", cJSON_Duplicate(right, 1)) ||
      !cJSON_AddStringToObject(q, "explanation", cJSON_GetObjectItemCaseSensitive(k, "explanation")->valuestring))
    return -1;
  return ok;
}

/* One question of a sealed key: the explanation opens only for the right
 * set; a wrong answer is marked "sealed" (the learner may ask to reveal). */
static int score_sealed(const cJSON *k, const cJSON *mine, cJSON *q) {
  char *why = NULL;
  int ok = lab_quiz_seal_open(k, mine, &why);
  if (ok < 0 || !cJSON_AddBoolToObject(q, "correct", ok == 1) ||
      (ok == 1 && (!cJSON_AddItemToObject(q, "answer", cJSON_Duplicate(mine, 1)) ||
                   !cJSON_AddStringToObject(q, "explanation", why))) ||
      (ok == 0 && !cJSON_AddBoolToObject(q, "sealed", true)))
    ok = -1;
  free(why);
  return ok;
}

int lab_quiz_score(const cJSON *key, const cJSON *answers, cJSON **result, lab_error *err) {
  *result = NULL;
  const cJSON *ka = cJSON_GetObjectItemCaseSensitive(key, "answers");
  const cJSON *pass = cJSON_GetObjectItemCaseSensitive(key, "pass_pct");
  int total = cJSON_GetArraySize(ka);
  if (!cJSON_IsObject(ka) || !cJSON_IsNumber(pass) || total == 0)
    return lab_fail(err, LAB_E_INTERNAL, NULL, "the quiz answer key is malformed; rebuild the lessons");
  for (const cJSON *k = ka->child; k; k = k->next)
    if (!key_entry_ok(k))
      return lab_fail(err, LAB_E_INTERNAL, NULL, "the quiz answer key is malformed; rebuild the lessons");
  if (check_answers(ka, answers, err)) return -1;

  cJSON *out = cJSON_CreateObject();
  cJSON *qs = cJSON_CreateArray();
  int score = 0;
  if (!out || !qs) goto nomem;
  for (const cJSON *k = ka->child; k; k = k->next) {
    const cJSON *mine = cJSON_GetObjectItemCaseSensitive(answers, k->string);
    cJSON *q = cJSON_CreateObject();
    if (!q) goto nomem;
    cJSON_AddItemToArray(qs, q);
    cJSON *your = mine ? cJSON_Duplicate(mine, 1) : cJSON_CreateArray();
    if (!your || !cJSON_AddStringToObject(q, "id", k->string) || !cJSON_AddItemToObject(q, "your", your)) goto nomem;
    int ok = lab_quiz_sealed_entry(k) ? score_sealed(k, your, q) : score_plain(k, your, q);
    if (ok < 0) goto nomem;
    score += ok;
  }
  /* pct is rounded to 0.1 for display; passing compares the exact ratio. */
  double pct = round(1000.0 * score / total) / 10.0;
  bool passed = 100.0 * score >= pass->valuedouble * total;
  if (!cJSON_AddNumberToObject(out, "score", score) || !cJSON_AddNumberToObject(out, "total", total) ||
      !cJSON_AddNumberToObject(out, "pct", pct) || !cJSON_AddBoolToObject(out, "passed", passed) ||
      !cJSON_AddNumberToObject(out, "pass_pct", pass->valuedouble))
    goto nomem;
  cJSON_AddItemToObject(out, "questions", qs);
  *result = out;
  return 0;
nomem:
  cJSON_Delete(qs);
  cJSON_Delete(out);
  return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}
