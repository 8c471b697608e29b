/* lessonc: compiles lessons/ID/{lesson.md,quiz.json} into the web bundles
 * (WEB/ID.json without answers, WEB/ID.offline.json with the key sealed for
 * offline self-study, WEB/index.json, and WEB/claims.json: the claims on
 * the text that a learner's page checks on their own kit run),
 * the server's answer keys (KEYS/ID.key.json) and, with --claims FILE, the
 * lessons' claims (on the text and on the quiz's answers) as checks for
 * claimcheck. Every error is printed as
 * FILE:LINE: message; nothing is written unless every lesson is valid, and
 * each file is written to a temporary name and renamed into place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "compare_claims.h"
#include "lesson.h"
#include "quiz.h"
#include "quiz_seal.h"

#define MAX_OUTPUTS 256 /* three per lesson, index.json, the claims file and the page's claims */

typedef struct {
  char path[4096];
  char tmp[4200];
} output;

static const char usage[] =
    "usage: lessonc [--check] --web DIR --keys DIR [--claims FILE] LESSON_DIR...\n"
    "  Compiles each LESSON_DIR (lesson.md + quiz.json + claims.json; format in lessons/README.md).\n"
    "  --web DIR   where ID.json, ID.offline.json, index.json and claims.json go (public)\n"
    "  --keys DIR  where ID.key.json goes (the answer keys; keep it off the web root)\n"
    "  --claims FILE  where every lesson's compiled claims and quiz coverage go (the checks claimcheck runs)\n"
    "  --check     validate only, write nothing (--web and --keys not needed)\n";

/* The lesson id is the folder's name: "lessons/01-cuda-intuition/" -> "01-cuda-intuition". */
static int lesson_id(const char *dir, char *id, size_t cap, const char *md_path) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  size_t b = n;
  while (b > 0 && dir[b - 1] != '/') b--;
  size_t idn = n - b;
  int ok = idn > 0 && idn < cap && idn <= 48;
  for (size_t i = b; ok && i < n; i++)
    ok = (dir[i] >= 'a' && dir[i] <= 'z') || (dir[i] >= '0' && dir[i] <= '9') || dir[i] == '-';
  if (!ok) return lesson_report(md_path, 1, "the lesson folder's name is its id: use 1-48 of a-z, 0-9 and '-'");
  memcpy(id, dir + b, idn);
  id[idn] = '\0';
  return 0;
}

/* Parses and checks quiz.json; errors name the line of the offending part. */
static int load_quiz(const char *path, cJSON **out) {
  *out = NULL;
  size_t len;
  char *text = lesson_read_file(path, &len);
  if (!text) return -1;
  const char *end = NULL;
  /* The length includes the final NUL: cJSON's "require NUL-terminated"
   * check wants to see it, and it rejects text after the value. */
  cJSON *quiz = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
  int rc = -1;
  if (!quiz) {
    size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    char near[24];
    snprintf(near, sizeof near, "%.20s", text + at);
    for (char *p = near; *p; p++)
      if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    lesson_report(path, lesson_line_at(text, at), "invalid JSON %s%s%s; check the commas, quotes and brackets",
                  near[0] ? "near '" : "at the end of the file", near, near[0] ? "'" : "");
    goto end;
  }
  const cJSON *where = NULL;
  lab_error err = {0};
  if (lab_quiz_check(quiz, &where, &err)) {
    lesson_jsonpos *map = lesson_jsonpos_build(text, len, quiz);
    lesson_report(path, lesson_jsonpos_line(map, where), "%s", err.message);
    lesson_jsonpos_free(map);
    goto end;
  }
  *out = quiz;
  quiz = NULL;
  rc = 0;
end:
  cJSON_Delete(quiz);
  free(text);
  return rc;
}

/* Builds the public bundle (*bundle) and the answer key (*key) of one lesson. */
static int compile_lesson(const char *dir, cJSON **bundle, cJSON **key, cJSON **claims, cJSON **coverage) {
  char md[4096], qz[4096], cl[4096], id[64];
  *bundle = *key = *claims = *coverage = NULL;
  snprintf(md, sizeof md, "%s%slesson.md", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
  snprintf(qz, sizeof qz, "%s%squiz.json", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
  snprintf(cl, sizeof cl, "%s%sclaims.json", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
  cJSON *doc = NULL, *quiz = NULL;
  int bad = lesson_id(dir, id, sizeof id, md);
  bad |= lesson_md_compile(md, &doc);
  bad |= load_quiz(qz, &quiz);
  /* quotes are looked up in a valid lesson.md and quiz.json */
  if (!bad) bad |= lesson_claims_compile(cl, md, qz, id, claims, coverage);
  if (!bad) {
    cJSON *b = cJSON_CreateObject(), *pub = lab_quiz_public(quiz);
    *key = lab_quiz_key(quiz, id);
    cJSON_AddStringToObject(b, "id", id);
    cJSON_AddItemToObject(b, "title", cJSON_DetachItemFromObject(doc, "title"));
    cJSON_AddItemToObject(b, "summary", cJSON_DetachItemFromObject(doc, "summary"));
    cJSON_AddItemToObject(b, "words", cJSON_DetachItemFromObject(doc, "words"));
    cJSON_AddItemToObject(b, "sections", cJSON_DetachItemFromObject(doc, "sections"));
    if (!pub || !*key || !cJSON_AddItemToObject(b, "quiz", pub)) {
      cJSON_Delete(pub);
      cJSON_Delete(b);
      cJSON_Delete(*key);
      *key = NULL;
      bad = lesson_report(md, 1, "out of memory");
    } else {
      *bundle = b;
    }
  }
  cJSON_Delete(doc);
  cJSON_Delete(quiz);
  if (bad) {
    cJSON_Delete(*claims);
    cJSON_Delete(*coverage);
    *claims = *coverage = NULL;
  }
  return bad ? -1 : 0;
}

/* Writes json to DIR/NAME's temporary twin (to NAME when dir is NULL); the
 * rename comes later. */
static int stage(output *o, const char *dir, const char *name, const cJSON *json, int pretty) {
  snprintf(o->path, sizeof o->path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", o->path, (long)getpid());
  char *text = pretty ? cJSON_Print(json) : cJSON_PrintUnformatted(json);
  FILE *f = text ? fopen(o->tmp, "wb") : NULL;
  int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f) != 0) ok = 0;
  free(text);
  if (!ok) {
    lesson_report(o->path, 1, "cannot write it (%s)", strerror(errno));
    unlink(o->tmp);
  }
  return ok ? 0 : -1;
}

/* claims (when given): every lesson's claims, the checks claimcheck runs,
 * and each quiz's coverage (questions backed by claims, marked conceptual). */
static int write_all(const char *web, const char *keys, const char *claims, cJSON *const *bundles, cJSON *const *keyv,
                     cJSON *const *claimv, cJSON *const *coverv, int n) {
  static output outs[MAX_OUTPUTS];
  int k = 0, rc = 0;
  cJSON *index = cJSON_CreateObject();
  cJSON *list = cJSON_AddArrayToObject(index, "lessons");
  if (mkdir(web, 0755) && errno != EEXIST) rc = lesson_report(web, 1, "cannot create it (%s)", strerror(errno));
  if (mkdir(keys, 0755) && errno != EEXIST) rc = lesson_report(keys, 1, "cannot create it (%s)", strerror(errno));
  for (int i = 0; rc == 0 && i < n; i++) {
    const char *id = cJSON_GetObjectItemCaseSensitive(bundles[i], "id")->valuestring;
    char name[128];
    cJSON *entry = cJSON_CreateObject();
    cJSON_AddItemToArray(list, entry);
    cJSON_AddStringToObject(entry, "id", id);
    cJSON_AddItemToObject(entry, "title", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(bundles[i], "title"), 1));
    cJSON_AddItemToObject(entry, "summary",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(bundles[i], "summary"), 1));
    cJSON_AddNumberToObject(entry, "sections",
                            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(bundles[i], "sections")));
    cJSON_AddItemToObject(entry, "words", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(bundles[i], "words"), 1));
    snprintf(name, sizeof name, "%s.json", id);
    rc |= stage(&outs[k++], web, name, bundles[i], 0);
    snprintf(name, sizeof name, "%s.key.json", id);
    rc |= stage(&outs[k++], keys, name, keyv[i], 1);
    /* Offline self-study gets the key sealed (lab/quiz/quiz_seal.h): hashes and
     * ciphertext only, nothing readable before the learner answers. */
    cJSON *offline = cJSON_CreateObject(), *sealed = lab_quiz_seal(keyv[i]);
    if (!offline || !sealed || !cJSON_AddStringToObject(offline, "id", id)) {
      cJSON_Delete(sealed);
      rc |= lesson_report(web, 1, "out of memory while sealing the quiz key of '%s'", id);
    } else {
      cJSON_AddItemToObject(offline, "key", sealed);
      snprintf(name, sizeof name, "%s.offline.json", id);
      rc |= stage(&outs[k++], web, name, offline, 0);
    }
    cJSON_Delete(offline);
  }
  cJSON *checks = cJSON_CreateObject(), *all = cJSON_AddArrayToObject(checks, "claims");
  cJSON *quizzes = cJSON_AddArrayToObject(checks, "quiz");
  for (int i = 0; rc == 0 && i < n; i++) {
    const cJSON *c;
    cJSON_ArrayForEach(c, claimv[i]) cJSON_AddItemToArray(all, cJSON_Duplicate(c, 1));
    cJSON_AddItemToArray(quizzes, cJSON_Duplicate(coverv[i], 1));
  }
  if (rc == 0 && claims) rc = stage(&outs[k++], NULL, claims, checks, 1);
  /* What a learner's page checks on their own kit run (#yours): the claims
   * on the lessons' text, never those on a quiz's answers. */
  cJSON *page_claims = rc == 0 ? lab_compare_claims_public(checks) : NULL;
  if (rc == 0) rc = page_claims ? stage(&outs[k++], web, "claims.json", page_claims, 0)
                                : lesson_report(web, 1, "out of memory while writing claims.json");
  cJSON_Delete(page_claims);
  cJSON_Delete(checks);
  if (rc == 0) rc = stage(&outs[k++], web, "index.json", index, 1); /* last: make's target */
  cJSON_Delete(index);
  for (int i = 0; i < k; i++) {
    if (rc) {
      unlink(outs[i].tmp);
    } else if (rename(outs[i].tmp, outs[i].path)) {
      rc = lesson_report(outs[i].path, 1, "cannot rename %s into place (%s)", outs[i].tmp, strerror(errno));
      unlink(outs[i].tmp);
    }
  }
  return rc;
}

int main(int argc, char **argv) {
  const char *web = NULL, *keys = NULL, *claims = NULL;
  int check_only = 0, first = argc;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--web") == 0 && i + 1 < argc) {
      web = argv[++i];
    } else if (strcmp(argv[i], "--keys") == 0 && i + 1 < argc) {
      keys = argv[++i];
    } else if (strcmp(argv[i], "--claims") == 0 && i + 1 < argc) {
      claims = argv[++i];
    } else if (strcmp(argv[i], "--check") == 0) {
      check_only = 1;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "lessonc: unknown or incomplete option '%s'\n%s", argv[i], usage);
      return 2;
    } else {
      first = i;
      break;
    }
  }
  int n = argc - first;
  if (n == 0 || (!check_only && (!web || !keys))) {
    fprintf(stderr, "lessonc: %s\n%s", n == 0 ? "no lesson folders given" : "--web and --keys are required", usage);
    return 2;
  }
  if (n > MAX_OUTPUTS / 3 - 1) {
    fprintf(stderr, "lessonc: at most %d lessons at once\n", MAX_OUTPUTS / 3 - 1);
    return 2;
  }
  cJSON **bundles = calloc((size_t)n, sizeof *bundles), **keyv = calloc((size_t)n, sizeof *keyv);
  cJSON **claimv = calloc((size_t)n, sizeof *claimv), **coverv = calloc((size_t)n, sizeof *coverv);
  int bad = !bundles || !keyv || !claimv || !coverv;
  for (int i = 0; !(!bundles || !keyv || !claimv || !coverv) && i < n; i++) {
    if (argv[first + i][0] == '-') {
      fprintf(stderr, "lessonc: options go before the lesson folders ('%s')\n%s", argv[first + i], usage);
      bad = 2;
      break;
    }
    if (compile_lesson(argv[first + i], &bundles[i], &keyv[i], &claimv[i], &coverv[i])) {
      bad = 1;
      continue;
    }
    const char *id = cJSON_GetObjectItemCaseSensitive(bundles[i], "id")->valuestring;
    for (int j = 0; j < i; j++)
      if (bundles[j] && strcmp(cJSON_GetObjectItemCaseSensitive(bundles[j], "id")->valuestring, id) == 0)
        bad = lesson_report(argv[first + i], 1, "lesson '%s' is given twice; name each folder once", id) ? 1 : 0;
  }
  if (!bad && !check_only && write_all(web, keys, claims, bundles, keyv, claimv, coverv, n)) bad = 1;
  for (int i = 0; bundles && keyv && claimv && coverv && i < n; i++) {
    cJSON_Delete(bundles[i]);
    cJSON_Delete(keyv[i]);
    cJSON_Delete(claimv[i]);
    cJSON_Delete(coverv[i]);
  }
  free(bundles);
  free(keyv);
  free(claimv);
  free(coverv);
  if (bad == 1) fprintf(stderr, "lessonc: errors found; nothing was written\n");
  return bad;
}
