/* lessons/ID/claims.json to checks: every claim a lesson makes about an
 * experiment (a number, a "try this" step) names the experiment, the
 * parameters of each run, the profiles it holds on and typed conditions on
 * the result envelope, and quotes the sentence it backs. The compiler
 * checks all of it without running anything and binds each claim to the
 * lesson line its quote starts on; tools/claims/claimcheck.c runs them.
 * A claim may back a quiz answer instead (lesson_claims_quiz.c), and every
 * quiz question is backed or marked conceptual here.
 * Format: lessons/README.md, "claims.json". */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "claim_path.h"
#include "cjson_compat.h"
#include "lesson.h"
#include "profiles.h"
#include "registry.h"

#define MAX_EACH 64

typedef struct {
  const char *path; /* claims.json */
  const char *md;   /* lesson.md */
  const char *quiz_path;
  lesson_quizref *quiz;
  int *bound; /* claims per quiz question, by index */
  lesson_jsonpos *map;
  int errors;
  char *norm;     /* lesson.md with every run of white space made one space */
  int *norm_line; /* the lesson line of each byte of norm */
} cctx;

#define CFAIL(c, node, ...) ((c)->errors++, lesson_report((c)->path, lesson_jsonpos_line((c)->map, (node)), __VA_ARGS__))

static const char *const claim_keys[] = {"id", "quote", "quiz", "experiment", "params", "runs", "profiles", "expect", "refused", "pending", "rerecord", "real_gpu", NULL};
#define CONCEPTUAL "conceptual: "
static const char *const cond_keys[] = {"left", "op", "right", "value", "times", "tol", "each", NULL};
static const char *const num_ops[] = {"<", "<=", ">", ">=", "==", "!=", "~", NULL};

static bool in_list(const char *s, const char *const *list) {
  for (int i = 0; list[i]; i++)
    if (strcmp(s, list[i]) == 0) return true;
  return false;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Collapses white space so a quote matches across the lesson's line breaks. */
static char *normalize(const char *s, int *line_of) {
  char *out = malloc(strlen(s) + 1);
  size_t o = 0;
  int line = 1;
  bool space = true;
  for (const char *p = s; out && *p; p++) {
    if (is_space(*p)) {
      if (!space) {
        if (line_of) line_of[o] = line;
        out[o++] = ' ';
      }
      space = true;
    } else {
      if (line_of) line_of[o] = line;
      out[o++] = *p;
      space = false;
    }
    line += *p == '\n';
  }
  if (out) {
    while (o > 0 && out[o - 1] == ' ') o--;
    out[o] = '\0';
  }
  return out;
}

/* The lesson line the quote starts on; 0 after reporting when it is not
 * there exactly once. */
static int quote_line(cctx *c, const cJSON *q) {
  char *nq = normalize(q->valuestring, NULL);
  int line = 0, count = 0, first = 0, second = 0;
  for (const char *p = nq && *nq ? strstr(c->norm, nq) : NULL; p; p = strstr(p + 1, nq)) {
    count++;
    if (count == 1) first = c->norm_line[p - c->norm];
    if (count == 2) second = c->norm_line[p - c->norm];
  }
  if (!nq || !*nq)
    CFAIL(c, q, "the quote is empty: copy the sentence of %s that this claim backs", c->md);
  else if (count == 0)
    CFAIL(c, q, "the quote is not in %s: copy the sentence this claim backs word for word (line breaks may differ)",
          c->md);
  else if (count > 1)
    CFAIL(c, q, "the quote appears %d times in %s (lines %d and %d): quote more of the sentence so it names one place",
          count, c->md, first, second);
  else
    line = first;
  free(nq);
  return line;
}

static bool only_keys(cctx *c, const cJSON *obj, const char *const *keys, const char *what) {
  const cJSON *k;
  bool ok = true;
  cJSON_ArrayForEach(k, obj) {
    if (!in_list(k->string, keys)) {
      char list[200] = "";
      for (int i = 0; keys[i]; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i]);
      CFAIL(c, k, "unknown key '%s' in %s; the keys are: %s", k->string, what, list);
      ok = false;
    }
  }
  return ok;
}

static bool valid_id(const char *s, bool underscore) {
  size_t n = strlen(s);
  if (n == 0 || n > 48) return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || (underscore && s[i] == '_')))
      return false;
  return true;
}

/* A path of a condition: well formed, and its @RUN one of the claim's runs. */
static void check_path(cctx *c, const cJSON *node, const cJSON *runs) {
  char why[200], run[40];
  const char *rest;
  if (!cJSON_IsString(node)) {
    CFAIL(c, node, "'%s' must be a path into the result, e.g. \"metrics.step_ms\"", node->string);
    return;
  }
  if (lab_claim_path_check(node->valuestring, why, sizeof why)) {
    CFAIL(c, node, "path '%s': %s", node->valuestring, why);
    return;
  }
  lab_claim_path_run(node->valuestring, run, sizeof run, &rest);
  if (run[0] && !cJSON_GetObjectItemCaseSensitive(runs, run))
    CFAIL(c, node, "path '%s' names run '%s', which this claim does not define in \"runs\"", node->valuestring, run);
}

static void check_condition(cctx *c, const cJSON *cond, const cJSON *runs) {
  if (!cJSON_IsObject(cond)) {
    CFAIL(c, cond, "each condition is an object: {\"left\": PATH, \"op\": \"<\", \"right\": PATH or \"value\": V}");
    return;
  }
  only_keys(c, cond, cond_keys, "a condition");
  const cJSON *left = cJSON_GetObjectItemCaseSensitive(cond, "left"), *op = cJSON_GetObjectItemCaseSensitive(cond, "op");
  const cJSON *right = cJSON_GetObjectItemCaseSensitive(cond, "right"), *value = cJSON_GetObjectItemCaseSensitive(cond, "value");
  const cJSON *times = cJSON_GetObjectItemCaseSensitive(cond, "times"), *tol = cJSON_GetObjectItemCaseSensitive(cond, "tol");
  const cJSON *each = cJSON_GetObjectItemCaseSensitive(cond, "each");
  if (!left) CFAIL(c, cond, "a condition needs \"left\": the path of the figure it tests");
  else check_path(c, left, runs);
  if (right) check_path(c, right, runs);
  bool text_op = cJSON_IsString(op) && (!strcmp(op->valuestring, "contains") || !strcmp(op->valuestring, "!contains"));
  if (!cJSON_IsString(op) || !(in_list(op->valuestring, num_ops) || text_op)) {
    CFAIL(c, op ? op : cond, "\"op\" must be one of <, <=, >, >=, ==, !=, ~ (with \"tol\"), contains, !contains");
    return;
  }
  if (!right == !value) CFAIL(c, cond, "give the condition exactly one of \"right\" (a path) and \"value\" (a literal)");
  if (text_op && (!cJSON_IsString(value) || !value->valuestring[0]))
    CFAIL(c, op, "'%s' compares with a text: give \"value\": \"the words\"", op->valuestring);
  if (cJSON_IsBool(value) && strcmp(op->valuestring, "==") && strcmp(op->valuestring, "!="))
    CFAIL(c, value, "a true/false value is compared with == or !=, not '%s'", op->valuestring);
  if (value && !cJSON_IsNumber(value) && !cJSON_IsString(value) && !cJSON_IsBool(value))
    CFAIL(c, value, "\"value\" must be a number, a text or true/false");
  if (times && (!cJSON_IsNumber(times) || text_op || (value && !cJSON_IsNumber(value))))
    CFAIL(c, times, "\"times\" scales a numeric right side: a number, with a numeric comparison");
  bool approx = !strcmp(op->valuestring, "~");
  if (approx && (!cJSON_IsNumber(tol) || tol->valuedouble <= 0 || tol->valuedouble > 1))
    CFAIL(c, tol ? tol : op, "'~' needs \"tol\": the relative tolerance, above 0 and at most 1 (0.02 is 2 %%)");
  if (!approx && tol) CFAIL(c, tol, "\"tol\" goes only with the '~' comparison");
  bool dollar = (cJSON_IsString(left) && strchr(left->valuestring, '$')) ||
                (cJSON_IsString(right) && strchr(right->valuestring, '$'));
  if (each) {
    bool ok = cJSON_IsArray(each) && cJSON_GetArraySize(each) > 0 && cJSON_GetArraySize(each) <= MAX_EACH;
    const cJSON *v;
    cJSON_ArrayForEach(v, each) ok = ok && cJSON_IsNumber(v);
    if (!ok) CFAIL(c, each, "\"each\" is a list of 1 to %d numbers that '$' in the paths stands for", MAX_EACH);
    else if (!dollar) CFAIL(c, each, "\"each\" is given but no path uses '$': write e.g. \"points[x=$].y\"");
  } else if (dollar) {
    CFAIL(c, left, "a path uses '$' but the condition has no \"each\" list of the values it stands for");
  }
}

/* One run's parameters, validated as the server would validate them. */
static void check_run(cctx *c, const lab_experiment *e, const char *name, const cJSON *one, const char *refused,
                      cJSON *out) {
  lab_params p;
  lab_error err = {0};
  int bad = cJSON_IsObject(one) ? lab_experiment_params(e, one, &p, &err) : 0;
  if (!cJSON_IsObject(one))
    CFAIL(c, one, "a run's parameters are an object: {\"pinned\": true}");
  else if (bad && !refused)
    CFAIL(c, one, "%s: %s", e->name, err.message);
  else if (refused && !bad)
    CFAIL(c, one, "the claim says this run is refused (%s), but %s accepts these parameters", refused, e->name);
  else if (refused && strcmp(lab_err_code(err.code), refused))
    CFAIL(c, one, "the claim says this run is refused with '%s', but %s refuses it with '%s': %s", refused, e->name,
          lab_err_code(err.code), err.message);
  else
    cJSON_AddItemToObject(out, name, cJSON_Duplicate(one, 1));
}

/* "runs": {"name": {params}, …} or "params": {…} (one run named "run"):
 * each validated as the server would. Returns the runs object (owned). */
static cJSON *check_runs(cctx *c, const cJSON *claim, const lab_experiment *e, const char *refused) {
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(claim, "params");
  const cJSON *runs = cJSON_GetObjectItemCaseSensitive(claim, "runs");
  cJSON *out = cJSON_CreateObject();
  if (params && runs) {
    CFAIL(c, runs, "give \"params\" (one run) or \"runs\" (several, by name), not both");
    return out;
  }
  if (!params && !runs) {
    cJSON_AddItemToObject(out, "run", cJSON_CreateObject()); /* the defaults */
    return out;
  }
  if (runs && (!cJSON_IsObject(runs) || !runs->child)) {
    CFAIL(c, runs, "\"runs\" maps a name to each run's parameters: {\"base\": {}, \"pinned\": {\"pinned\": true}}");
    return out;
  }
  const cJSON *one;
  if (params) {
    check_run(c, e, "run", params, refused, out);
    return out;
  }
  cJSON_ArrayForEach(one, runs) {
    if (!valid_id(one->string, true) || strchr(one->string, '-'))
      CFAIL(c, one, "run name '%s': use 1-48 of a-z, 0-9 and '_' (paths name it as @%s.)", one->string, one->string);
    check_run(c, e, one->string, one, NULL, out);
  }
  return out;
}

/* "all" is every profile on whose GPU the experiment has a meaning (an
 * Apple GPU has no host link for transfer to time); a list may name only
 * those. */
static cJSON *check_profiles(cctx *c, const cJSON *claim, const lab_experiment *e) {
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(claim, "profiles"), *v;
  cJSON *out = cJSON_CreateArray();
  if (cJSON_IsString(pr) && !strcmp(pr->valuestring, "all")) {
    for (int i = 0; i < lab_profile_count(); i++)
      if (lab_experiment_applies(e, lab_profile_at(i)))
        cJSON_AddItemToArray(out, cJSON_CreateString(lab_profile_at(i)->name));
    return out;
  }
  if (!cJSON_IsArray(pr) || !pr->child) {
    CFAIL(c, pr ? pr : claim, "\"profiles\" is \"all\" or a list of profile names (gpulab profiles lists them)");
    return out;
  }
  cJSON_ArrayForEach(v, pr) {
    if (!cJSON_IsString(v) || !lab_profile_find(v->valuestring)) {
      char known[256] = "";
      for (int i = 0; i < lab_profile_count(); i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", lab_profile_at(i)->name);
      CFAIL(c, v, "unknown profile '%s'; the profiles are: %s", cJSON_IsString(v) ? v->valuestring : "?", known);
    } else if (!lab_experiment_applies(e, lab_profile_find(v->valuestring))) {
      lab_error why = {0};
      lab_experiment_check_profile(e, lab_profile_find(v->valuestring), &why);
      CFAIL(c, v, "profile '%s': %s", v->valuestring, why.message);
    } else {
      cJSON_AddItemToArray(out, cJSON_CreateString(v->valuestring));
    }
  }
  return out;
}

/* A claim that backs quiz question "quiz": the quiz.json line its quote is
 * on (in a right option or the explanation); 0 after reporting. */
static int quiz_line(cctx *c, const cJSON *quiz, const cJSON *q, char *part, size_t pn) {
  int index = cJSON_IsString(quiz) ? lesson_quizref_find(c->quiz, quiz->valuestring) : -1;
  if (index < 0) {
    char known[256] = "";
    int qline;
    for (int i = 0; i < lesson_quizref_count(c->quiz); i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
               lesson_quizref_id(c->quiz, i, &qline));
    CFAIL(c, quiz, "unknown quiz question '%s' in \"quiz\"; the questions of %s are: %s",
          cJSON_IsString(quiz) ? quiz->valuestring : "?", c->quiz_path, known);
    return 0;
  }
  c->bound[index]++;
  if (!cJSON_IsString(q)) {
    CFAIL(c, q ? q : quiz, "a quiz claim needs a \"quote\": the words of the right answer or the explanation it backs");
    return 0;
  }
  char why[400];
  int line = lesson_quizref_quote(c->quiz, index, q->valuestring, part, pn, why, sizeof why);
  if (!line) CFAIL(c, q, "%s", why);
  return line;
}

/* "quiz_unchecked": {"q1": "conceptual: why no experiment can decide it"}
 * for the questions no claim backs; then every question of the quiz must be
 * one or the other. Fills the coverage summary. */
static void check_quiz_coverage(cctx *c, const cJSON *root, const char *lesson_id, cJSON *summary) {
  const cJSON *un = cJSON_GetObjectItemCaseSensitive(root, "quiz_unchecked"), *u;
  cJSON *list = cJSON_CreateObject();
  int n = lesson_quizref_count(c->quiz), bound = 0, conceptual = 0, qline;
  if (un && !cJSON_IsObject(un))
    CFAIL(c, un, "\"quiz_unchecked\" maps a question id to why no experiment can decide it: "
                 "{\"q1\": \"conceptual: …\"}");
  const cJSON *marks = cJSON_IsObject(un) ? un : NULL;
  cJSON_ArrayForEach(u, marks) {
    int index = lesson_quizref_find(c->quiz, u->string);
    if (index < 0) {
      CFAIL(c, u, "unknown quiz question '%s' in \"quiz_unchecked\" (%s has no such question)", u->string, c->quiz_path);
    } else if (!cJSON_IsString(u) || strncmp(u->valuestring, CONCEPTUAL, strlen(CONCEPTUAL)) ||
               strlen(u->valuestring) < strlen(CONCEPTUAL) + 20) {
      CFAIL(c, u, "question '%s': write \"%swhy no experiment can decide it\" (a sentence), or back it with a claim",
            u->string, CONCEPTUAL);
    } else if (c->bound[index]) {
      CFAIL(c, u, "question '%s' is backed by %d claim%s and marked conceptual: keep one (remove it from "
                  "\"quiz_unchecked\", or the claims)", u->string, c->bound[index], c->bound[index] == 1 ? "" : "s");
    } else {
      cJSON_AddStringToObject(list, u->string, u->valuestring);
    }
  }
  for (int i = 0; i < n; i++) {
    const char *qid = lesson_quizref_id(c->quiz, i, &qline);
    bool marked = cJSON_GetObjectItemCaseSensitive(marks, qid) != NULL;
    bound += c->bound[i] > 0;
    conceptual += marked && !c->bound[i];
    if (!c->bound[i] && !marked) {
      c->errors++;
      lesson_report(c->quiz_path, qline,
                    "quiz question '%s' is neither backed by a claim nor marked conceptual: add a claim with "
                    "\"quiz\": \"%s\" to %s that quotes its answer or explanation, or \"%s\": \"%swhy no "
                    "experiment can decide it\" under \"quiz_unchecked\"", qid, qid, c->path, qid, CONCEPTUAL);
    }
  }
  cJSON_AddStringToObject(summary, "lesson", lesson_id);
  cJSON_AddStringToObject(summary, "file", c->quiz_path);
  cJSON_AddNumberToObject(summary, "questions", n);
  cJSON_AddNumberToObject(summary, "bound", bound);
  cJSON_AddNumberToObject(summary, "conceptual", conceptual);
  cJSON_AddItemToObject(summary, "unchecked", list);
}

static void check_claim(cctx *c, const cJSON *claim, const char *lesson_id, cJSON *out) {
  if (!cJSON_IsObject(claim)) {
    CFAIL(c, claim, "each claim is an object with id, quote, experiment, profiles and expect");
    return;
  }
  int before = c->errors;
  only_keys(c, claim, claim_keys, "a claim");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(claim, "id"), *q = cJSON_GetObjectItemCaseSensitive(claim, "quote");
  const cJSON *ex = cJSON_GetObjectItemCaseSensitive(claim, "experiment");
  const cJSON *expect = cJSON_GetObjectItemCaseSensitive(claim, "expect");
  const cJSON *pending = cJSON_GetObjectItemCaseSensitive(claim, "pending"), *cond;
  if (!cJSON_IsString(id) || !valid_id(id->valuestring, false))
    CFAIL(c, id ? id : claim, "a claim needs an \"id\" of 1-48 characters of a-z, 0-9 and '-'");
  int line = 0;
  const cJSON *quiz = cJSON_GetObjectItemCaseSensitive(claim, "quiz");
  char part[48] = "";
  if (quiz) line = quiz_line(c, quiz, q, part, sizeof part);
  else if (!cJSON_IsString(q)) CFAIL(c, q ? q : claim, "a claim needs a \"quote\": the sentence of %s it backs", c->md);
  else line = quote_line(c, q);
  const lab_experiment *e = cJSON_IsString(ex) ? lab_experiment_find(ex->valuestring) : NULL;
  if (!e) {
    CFAIL(c, ex ? ex : claim, "\"experiment\" must name an experiment of the registry (gpulab experiments --names)%s%s%s",
          cJSON_IsString(ex) ? "; there is no '" : "", cJSON_IsString(ex) ? ex->valuestring : "", cJSON_IsString(ex) ? "'" : "");
    return;
  }
  const cJSON *real_gpu = cJSON_GetObjectItemCaseSensitive(claim, "real_gpu");
  if (real_gpu && !cJSON_IsFalse(real_gpu))
    CFAIL(c, real_gpu, "\"real_gpu\": false marks a claim about simulated results only; leave it out otherwise");
  if (pending && (!cJSON_IsString(pending) || strlen(pending->valuestring) < 10))
    CFAIL(c, pending, "\"pending\" says why the claim is known to fail for now (an issue, a sentence)");
  const cJSON *rerecord = cJSON_GetObjectItemCaseSensitive(claim, "rerecord");
  if (rerecord && (!cJSON_IsString(rerecord) || strlen(rerecord->valuestring) < 10))
    CFAIL(c, rerecord, "\"rerecord\" says why the GPU recordings (web/recorded/) predate what this claim needs");
  /* "refused": CODE claims that the one run is refused with that error
   * code (a "try this" that hits a limit); it takes no conditions. */
  const cJSON *refused = cJSON_GetObjectItemCaseSensitive(claim, "refused");
  bool refuses = refused != NULL;
  if (refuses && (!cJSON_IsString(refused) || !cJSON_GetObjectItemCaseSensitive(claim, "params") || expect))
    CFAIL(c, refused, "\"refused\" is an error code (e.g. \"invalid_param\") of the one run in \"params\", "
                      "with no \"expect\"");
  cJSON *runs = check_runs(c, claim, e, cJSON_IsString(refused) ? refused->valuestring : NULL);
  cJSON *profiles = check_profiles(c, claim, e);
  if (!refuses && (!cJSON_IsArray(expect) || !expect->child))
    CFAIL(c, expect ? expect : claim, "a claim needs \"expect\": a list of conditions on the result");
  else if (!refuses)
    cJSON_ArrayForEach(cond, expect) check_condition(c, cond, runs);
  if (c->errors > before) {
    cJSON_Delete(runs);
    cJSON_Delete(profiles);
    return;
  }
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(claim, "profiles");
  cJSON *k = cJSON_CreateObject();
  cJSON_AddStringToObject(k, "lesson", lesson_id);
  cJSON_AddStringToObject(k, "id", id->valuestring);
  cJSON_AddStringToObject(k, "file", quiz ? c->quiz_path : c->md);
  cJSON_AddNumberToObject(k, "line", line);
  if (quiz) {
    cJSON_AddStringToObject(k, "quiz", quiz->valuestring);
    cJSON_AddStringToObject(k, "quiz_part", part);
  }
  cJSON_AddStringToObject(k, "claims_file", c->path);
  cJSON_AddNumberToObject(k, "claims_line", lesson_jsonpos_line(c->map, claim));
  cJSON_AddStringToObject(k, "quote", q->valuestring);
  cJSON_AddStringToObject(k, "experiment", e->name);
  cJSON_AddItemToObject(k, "runs", runs);
  cJSON_AddItemToObject(k, "profiles", profiles);
  cJSON_AddBoolToObject(k, "all_profiles", cJSON_IsString(pr));
  cJSON_AddBoolToObject(k, "real_gpu", real_gpu == NULL);
  if (refuses) cJSON_AddStringToObject(k, "refused", refused->valuestring);
  else cJSON_AddItemToObject(k, "expect", cJSON_Duplicate(expect, 1));
  if (pending) cJSON_AddStringToObject(k, "pending", pending->valuestring);
  if (rerecord) cJSON_AddStringToObject(k, "rerecord", rerecord->valuestring);
  cJSON_AddItemToArray(out, k);
}

int lesson_claims_compile(const char *claims_path, const char *md_path, const char *quiz_path, const char *lesson_id,
                          cJSON **out, cJSON **quiz) {
  *out = *quiz = NULL;
  size_t len = 0, mdlen;
  /* No claims.json backs nothing: every quiz question is then reported. */
  bool absent = access(claims_path, F_OK) != 0 && errno == ENOENT;
  char *text = absent ? strdup("{\"claims\": []}") : lesson_read_file(claims_path, &len);
  char *md = text ? lesson_read_file(md_path, &mdlen) : NULL;
  cctx c = {.path = claims_path, .md = md_path, .quiz_path = quiz_path};
  cJSON *root = NULL, *list = NULL, *summary = NULL;
  if (!text || !md) goto end;
  if (absent) len = strlen(text);
  const char *endp = NULL;
  root = cJSON_ParseWithLengthOpts(text, len + 1, &endp, 1);
  if (!root) {
    size_t at = endp && endp >= text && endp <= text + len ? (size_t)(endp - text) : len;
    c.errors = 1;
    lesson_report(claims_path, lesson_line_at(text, at), "invalid JSON; check the commas, quotes and brackets");
    goto end;
  }
  c.map = lesson_jsonpos_build(text, len, root);
  c.norm_line = malloc((mdlen + 1) * sizeof *c.norm_line);
  c.norm = c.norm_line ? normalize(md, c.norm_line) : NULL;
  c.quiz = lesson_quizref_load(quiz_path);
  c.bound = c.quiz ? calloc((size_t)lesson_quizref_count(c.quiz) + 1, sizeof *c.bound) : NULL;
  list = cJSON_CreateArray();
  summary = cJSON_CreateObject();
  if (!c.map || !c.norm || !c.quiz || !c.bound || !list || !summary) {
    c.errors = 1;
    lesson_report(claims_path, 1, "out of memory");
    goto end;
  }
  const cJSON *claims = cJSON_GetObjectItemCaseSensitive(root, "claims"), *claim;
  int keys = cJSON_GetArraySize(root) - (cJSON_GetObjectItemCaseSensitive(root, "quiz_unchecked") != NULL);
  if (!cJSON_IsObject(root) || !cJSON_IsArray(claims) || keys != 1) {
    CFAIL(&c, root, "claims.json is {\"claims\": [ … ], \"quiz_unchecked\": { … }} and nothing else");
    goto end;
  }
  cJSON_ArrayForEach(claim, claims) {
    check_claim(&c, claim, lesson_id, list);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(claim, "id"), *other;
    cJSON_ArrayForEach(other, claims) {
      if (other == claim) break;
      const cJSON *oid = cJSON_GetObjectItemCaseSensitive(other, "id");
      if (cJSON_IsString(id) && cJSON_IsString(oid) && !strcmp(id->valuestring, oid->valuestring))
        CFAIL(&c, id, "claim id '%s' is used twice; ids must be unique in the lesson", id->valuestring);
    }
  }
  check_quiz_coverage(&c, root, lesson_id, summary);
end:
  if (c.errors == 0 && list && summary) {
    *out = list;
    *quiz = summary;
    list = summary = NULL;
  }
  cJSON_Delete(list);
  cJSON_Delete(summary);
  cJSON_Delete(root);
  lesson_jsonpos_free(c.map);
  lesson_quizref_free(c.quiz);
  free(c.bound);
  free(c.norm);
  free(c.norm_line);
  free(text);
  free(md);
  return *out ? 0 : -1;
}
