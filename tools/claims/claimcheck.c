/* claimcheck: runs every lesson claim that lessonc compiled (--claims FILE)
 * and prints TAP: each claim on each profile it names, through the
 * simulator in this process; with --gpu, each claim that holds on every
 * profile once on this machine's GPU through `gpulab run --backend cuda`;
 * with --recorded DIR, each such claim whose runs a GPU recording holds
 * (DIR/NAME.json, tools/claims/claim_recorded.h), without a GPU.
 * A failure names the lesson (or quiz) line the claim backs and the numbers
 * that broke it; a claim marked "pending" that fails is reported as TODO.
 * Each lesson ends with its counts: claims on the text and on the quiz,
 * checks, and quiz items bound or marked conceptual. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim_eval.h"
#include "cjson_compat.h"
#include "lesson.h"
#include "claim_recorded.h"
#include "registry.h"

#define MAX_CACHED 4096
#define MAX_RUNS LAB_CLAIM_MAX_RUNS

typedef struct {
  char *key; /* experiment, profile and parameters, as text */
  cJSON *env;
  char err[320];
  char code[40]; /* the error code when the run was refused */
} cached;

static cached cache[MAX_CACHED];
static int n_cached;
static const char *gpu_bin; /* --gpu: the gpulab binary; NULL: simulate */
static const char *rec_dir; /* --recorded: the recordings' folder */

static const char usage[] =
    "usage: claimcheck [--gpu GPULAB | --recorded DIR] [--lesson ID] CLAIMS.json\n"
    "  Runs the lesson claims lessonc compiled (build/claims.json) and prints TAP.\n"
    "  Without --gpu each claim runs simulated on every profile it names; with --gpu GPULAB\n"
    "  each claim that holds on every profile runs once on this machine's GPU\n"
    "  (GPULAB run EXPERIMENT --backend cuda --json), the others are skipped.\n"
    "  --recorded DIR  the same claims against a GPU's recordings (DIR/EXPERIMENT.json, as\n"
    "                web/recorded/ holds them): a claim runs when every one of its runs has\n"
    "                a recording's parameters, the others are skipped; a claim marked\n"
    "                \"rerecord\" (its fix needs a new recording) that fails is a TODO\n"
    "  --lesson ID   only that lesson's claims\n";

/* Reads all of a child's standard output. */
static char *read_all(FILE *f) {
  size_t n = 0, cap = 1 << 16;
  char *s = malloc(cap);
  for (size_t got; s && (got = fread(s + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) {
      char *p = realloc(s, cap *= 2);
      if (!p) {
        free(s);
        return NULL;
      }
      s = p;
    }
  }
  if (s) s[n] = '\0';
  return s;
}

/* One run on the GPU through the CLI; params were validated by lessonc. */
static cJSON *run_gpu(const char *experiment, const cJSON *params, char *err, size_t n, char *code, size_t cn) {
  char cmd[2048];
  int k = snprintf(cmd, sizeof cmd, "'%s' run %s --backend cuda --json", gpu_bin, experiment);
  const cJSON *p;
  cJSON_ArrayForEach(p, params) {
    char v[64];
    if (cJSON_IsBool(p)) snprintf(v, sizeof v, "%s", cJSON_IsTrue(p) ? "true" : "false");
    else if (cJSON_IsNumber(p)) snprintf(v, sizeof v, "%.17g", p->valuedouble);
    else snprintf(v, sizeof v, "%s", cJSON_IsString(p) && !strchr(p->valuestring, '\'') ? p->valuestring : "");
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " '--%s=%s'", p->string, v);
  }
  if (k >= (int)sizeof cmd - 20) return snprintf(err, n, "the command line is too long"), NULL;
  snprintf(cmd + k, sizeof cmd - (size_t)k, " 2>/dev/null");
  FILE *f = popen(cmd, "r");
  char *out = f ? read_all(f) : NULL;
  int rc = f ? pclose(f) : -1;
  cJSON *env = out ? cJSON_Parse(out) : NULL;
  if (!env || rc != 0) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "error"), "message");
    const cJSON *cd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "error"), "code");
    if (cJSON_IsString(cd)) snprintf(code, cn, "%s", cd->valuestring);
    snprintf(err, n, "%.160s failed (exit %d)%s%.140s", cmd, rc, cJSON_IsString(m) ? ": " : "", cJSON_IsString(m) ? m->valuestring : "");
    cJSON_Delete(env);
    env = NULL;
  }
  free(out);
  return env;
}

/* The envelope of one run, made once per experiment, profile and params. */
static const cJSON *run_once(const char *experiment, const char *profile, const cJSON *params, const char **err,
                             const char **code) {
  char *ptext = cJSON_PrintUnformatted(params);
  size_t kn = strlen(experiment) + strlen(profile) + (ptext ? strlen(ptext) : 0) + 3;
  char *key = malloc(kn);
  if (!ptext || !key) {
    free(ptext);
    free(key);
    *err = "out of memory";
    return NULL;
  }
  snprintf(key, kn, "%s|%s|%s", experiment, profile, ptext);
  free(ptext);
  for (int i = 0; i < n_cached; i++)
    if (!strcmp(cache[i].key, key)) {
      free(key);
      *err = cache[i].err;
      *code = cache[i].code;
      return cache[i].env;
    }
  if (n_cached == MAX_CACHED) {
    free(key);
    *err = "more distinct runs than claimcheck keeps (MAX_CACHED)";
    return NULL;
  }
  cached *c = &cache[n_cached++];
  c->key = key;
  c->env = NULL;
  c->err[0] = c->code[0] = '\0';
  if (rec_dir) {
    const cJSON *rec = claims_recorded_env(rec_dir, experiment, params, c->err, sizeof c->err);
    c->env = rec ? cJSON_Duplicate(rec, true) : NULL;
  } else if (gpu_bin) {
    c->env = run_gpu(experiment, params, c->err, sizeof c->err, c->code, sizeof c->code);
  } else {
    lab_error e = {0};
    if (lab_simulate(lab_experiment_find(experiment), params, profile, &c->env, &e)) {
      snprintf(c->err, sizeof c->err, "%.30s did not run: %.250s", experiment, e.message);
      snprintf(c->code, sizeof c->code, "%s", lab_err_code(e.code));
    }
  }
  *err = c->err;
  *code = c->code;
  return c->env;
}

/* Runs a claim on one profile ("" on the GPU); true when every condition holds. */
static bool check(const cJSON *claim, const char *profile, char *why, size_t n) {
  const char *ex = cJSON_GetObjectItemCaseSensitive(claim, "experiment")->valuestring;
  lab_claim_runs rs = {.n = 0};
  const cJSON *run, *refused = cJSON_GetObjectItemCaseSensitive(claim, "refused");
  if (refused) {
    const char *err = "", *code = "";
    const cJSON *env = run_once(ex, profile, cJSON_GetObjectItemCaseSensitive(claim, "runs")->child, &err, &code);
    if (!env && !strcmp(code, refused->valuestring)) return true;
    return snprintf(why, n, "the run should be refused with '%s' but %s%s", refused->valuestring,
                    env ? "it ran" : "failed otherwise: ", env ? "" : err), false;
  }
  cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(claim, "runs")) {
    const char *err = "", *code = "";
    const cJSON *env = rs.n < MAX_RUNS ? run_once(ex, profile, run, &err, &code) : NULL;
    if (!env) return snprintf(why, n, "run '%s': %s", run->string, rs.n < MAX_RUNS ? err : "too many runs"), false;
    rs.names[rs.n] = run->string;
    rs.envs[rs.n++] = env;
  }
  return lab_claim_all_hold(&rs, claim, why, n);
}

typedef struct {
  int pass, fail, todo, skip, n;
} tally;

/* --recorded: whether the recordings hold every run of the claim; else why not. */
static bool held(const cJSON *claim, char *why, size_t n) {
  const char *ex = cJSON_GetObjectItemCaseSensitive(claim, "experiment")->valuestring;
  const cJSON *run;
  char err[240];
  if (cJSON_GetObjectItemCaseSensitive(claim, "refused"))
    return snprintf(why, n, "a refused run is not recorded"), false;
  cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(claim, "runs"))
    if (!claims_recorded_env(rec_dir, ex, run, err, sizeof err))
      return snprintf(why, n, "run '%.40s': %s", run->string, err), false;
  return true;
}

static void one(const cJSON *claim, const char *profile, tally *t) {
  const char *file = cJSON_GetObjectItemCaseSensitive(claim, "file")->valuestring;
  int line = (int)cJSON_GetObjectItemCaseSensitive(claim, "line")->valuedouble;
  const char *id = cJSON_GetObjectItemCaseSensitive(claim, "id")->valuestring;
  const cJSON *pending = cJSON_GetObjectItemCaseSensitive(claim, "pending");
  const char *mark = "pending";
  if (rec_dir && cJSON_GetObjectItemCaseSensitive(claim, "rerecord"))
    pending = cJSON_GetObjectItemCaseSensitive(claim, "rerecord"), mark = "rerecord";
  const char *on = profile[0] ? profile : rec_dir ? "the recordings" : "this GPU";
  char why[800];
  t->n++;
  if (check(claim, profile, why, sizeof why)) {
    t->pass++;
    printf("ok %d - %s:%d claim '%s' on %s\n", t->n, file, line, id, on);
    if (pending)
      printf("# %s:%d: claim '%s' is marked %s but holds on %s: remove \"%s\"\n", file, line, id, mark, on, mark);
    return;
  }
  if (pending) {
    t->todo++;
    printf("not ok %d - %s:%d: claim '%s' on %s: %s # TODO %s: %s\n", t->n, file, line, id, on, why, mark,
           pending->valuestring);
    return;
  }
  t->fail++;
  printf("not ok %d - %s:%d: claim '%s' on %s: %s\n", t->n, file, line, id, on, why);
  const cJSON *quiz = cJSON_GetObjectItemCaseSensitive(claim, "quiz");
  if (quiz)
    printf("#   the quiz says (question %s, %s): \"%s\"\n", quiz->valuestring,
           cJSON_GetObjectItemCaseSensitive(claim, "quiz_part")->valuestring,
           cJSON_GetObjectItemCaseSensitive(claim, "quote")->valuestring);
  else
    printf("#   the lesson says: \"%s\"\n", cJSON_GetObjectItemCaseSensitive(claim, "quote")->valuestring);
  printf("#   the claim: %s:%d\n", cJSON_GetObjectItemCaseSensitive(claim, "claims_file")->valuestring,
         (int)cJSON_GetObjectItemCaseSensitive(claim, "claims_line")->valuedouble);
}

/* "# lesson ID: …" with the lesson's counts, then each quiz item no claim
 * backs and why (lessonc wrote the coverage beside the claims). */
static void lesson_summary(const cJSON *root, const char *lesson, int text_claims, int quiz_claims, int checks) {
  const cJSON *cov, *u, *found = NULL;
  cJSON_ArrayForEach(cov, cJSON_GetObjectItemCaseSensitive(root, "quiz")) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(cov, "lesson");
    if (cJSON_IsString(l) && !strcmp(l->valuestring, lesson)) found = cov;
  }
  printf("# lesson %s: %d claims (%d on the text, %d on the quiz), %d checks", lesson, text_claims + quiz_claims,
         text_claims, quiz_claims, checks);
  if (!found) {
    printf("\n");
    return;
  }
  printf("; %d quiz items: %d bound, %d conceptual\n",
         (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(found, "questions")),
         (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(found, "bound")),
         (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(found, "conceptual")));
  cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(found, "unchecked"))
    printf("#   %s quiz item '%s' unchecked, %s\n", cJSON_GetObjectItemCaseSensitive(found, "file")->valuestring,
           u->string, u->valuestring);
}

int main(int argc, char **argv) {
  const char *path = NULL, *only = NULL;
  /* TAP a line at a time, also into a file: a run stopped at a time limit
   * (the GPU lease's claims step) keeps the claims it checked. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu_bin = argv[++i];
    else if (!strcmp(argv[i], "--recorded") && i + 1 < argc) rec_dir = argv[++i];
    else if (!strcmp(argv[i], "--lesson") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage, stdout), 0;
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else return fprintf(stderr, "claimcheck: unexpected '%s'\n%s", argv[i], usage), 2;
  }
  if (!path) return fprintf(stderr, "claimcheck: give the claims file\n%s", usage), 2;
  if (gpu_bin && rec_dir) return fprintf(stderr, "claimcheck: --gpu or --recorded, not both\n%s", usage), 2;
  size_t len;
  char *text = lesson_read_file(path, &len);
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  const cJSON *claims = cJSON_GetObjectItemCaseSensitive(root, "claims"), *c, *p;
  free(text);
  if (!cJSON_IsArray(claims)) {
    fprintf(stderr, "claimcheck: %s is not a claims file that lessonc wrote (run make lessons)\n", path);
    cJSON_Delete(root);
    return 2;
  }
  tally t = {0};
  const char *lesson = "";
  int text_claims = 0, quiz_claims = 0, lesson_start = 0;
  cJSON_ArrayForEach(c, claims) {
    const char *l = cJSON_GetObjectItemCaseSensitive(c, "lesson")->valuestring;
    if (only && strcmp(l, only)) continue;
    if (strcmp(l, lesson)) {
      if (lesson[0]) lesson_summary(root, lesson, text_claims, quiz_claims, t.n - lesson_start);
      lesson = l, text_claims = quiz_claims = 0, lesson_start = t.n;
    }
    if (cJSON_GetObjectItemCaseSensitive(c, "quiz")) quiz_claims++;
    else text_claims++;
    char unheld[320] = "";
    bool on_gpu = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "all_profiles")) &&
                  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "real_gpu"));
    if (!gpu_bin && !rec_dir) {
      cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c, "profiles")) one(c, p->valuestring, &t);
    } else if (on_gpu && !(rec_dir && !held(c, unheld, sizeof unheld))) {
      one(c, "", &t);
    } else {
      bool some = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "all_profiles"));
      t.n++, t.skip++;
      printf("ok %d - %s:%d claim '%s' # SKIP %s; checked %s\n", t.n,
             cJSON_GetObjectItemCaseSensitive(c, "file")->valuestring,
             (int)cJSON_GetObjectItemCaseSensitive(c, "line")->valuedouble,
             cJSON_GetObjectItemCaseSensitive(c, "id")->valuestring,
             unheld[0] ? unheld : some ? "it names some profiles only" : "it is about simulated results only",
             unheld[0] ? "on a GPU (claimcheck --gpu)" : "simulated");
    }
  }
  if (lesson[0]) lesson_summary(root, lesson, text_claims, quiz_claims, t.n - lesson_start);
  printf("1..%d\n# pass %d\n# fail %d\n# todo %d\n# skipped %d\n", t.n, t.pass, t.fail, t.todo, t.skip);
  claims_recorded_free();
  for (int i = 0; i < n_cached; i++) {
    free(cache[i].key);
    cJSON_Delete(cache[i].env);
  }
  cJSON_Delete(root);
  return t.fail ? 1 : 0;
}
