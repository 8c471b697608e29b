/* The lessons' claims on a learner's own numbers: a claim applies when it
 * holds on every profile and on a real GPU (claimcheck runs it there too),
 * asks for one run with the same parameters as the learner's, and reads
 * figures the run has (never gpulab's own findings or details, which the
 * kit words its own way). It is then evaluated by claimcheck's code on the
 * learner's envelope: "on your T4 pinned copies were 1.9x faster than
 * pageable: the lesson's claim holds". */
#include <stdio.h>
#include <string.h>

#include "claim_eval.h"
#include "claim_path.h"
#include "compare_claims.h"
#include "kit_file.h"
#include "params.h"
#include "registry.h"

/* The run's parameters with every default filled in, as JSON (NULL when invalid). */
static cJSON *normalised(const lab_experiment *e, const cJSON *params) {
  lab_params p;
  lab_error err;
  return lab_experiment_params(e, params, &p, &err) ? NULL : lab_params_to_json(&p);
}

static int is_text(const cJSON *o, const char *key) { return cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, key)); }

static const char *text_or(const cJSON *o, const char *key, const char *otherwise) {
  const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
  return t ? t : otherwise;
}

/* Every condition well formed, reading only figures the envelope has. */
static int readable(const cJSON *claim, const cJSON *env) {
  const cJSON *cond, *v;
  cJSON_ArrayForEach(cond, cJSON_GetObjectItemCaseSensitive(claim, "expect")) {
    if (!is_text(cond, "op") || !is_text(cond, "left") || (!is_text(cond, "right") && !cJSON_GetObjectItemCaseSensitive(cond, "value")))
      return 0;
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(cond, "tol"), *each = cJSON_GetObjectItemCaseSensitive(cond, "each");
    if (!strcmp(cJSON_GetObjectItemCaseSensitive(cond, "op")->valuestring, "~") && !cJSON_IsNumber(tol)) return 0;
    const char *paths[2] = {cJSON_GetObjectItemCaseSensitive(cond, "left")->valuestring,
                            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cond, "right"))};
    for (int k = 0; k < 2 && paths[k]; k++) {
      char run[40], why[200];
      const char *rest;
      if (lab_claim_path_run(paths[k], run, sizeof run, &rest) || !strncmp(rest, "findings", 8) ||
          !strncmp(rest, "details", 7))
        return 0;
      if (!each && !lab_claim_path_get(env, rest, 0, why, sizeof why)) return 0;
      cJSON_ArrayForEach(v, each) if (!cJSON_IsNumber(v) || !lab_claim_path_get(env, rest, v->valuedouble, why, sizeof why)) return 0;
    }
  }
  return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(claim, "expect")) > 0;
}

/* "metrics.pinned_speedup = 1.9 >= 1.2" for each condition (its first `each` value). */
static void numbers(const cJSON *claim, const cJSON *env, char *out, size_t n) {
  const cJSON *cond;
  size_t o = 0;
  out[0] = '\0';
  cJSON_ArrayForEach(cond, cJSON_GetObjectItemCaseSensitive(claim, "expect")) {
    const cJSON *each = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cond, "each"), 0);
    double x = cJSON_IsNumber(each) ? each->valuedouble : 0;
    char l[160], r[160], why[160];
    const char *lp = cJSON_GetObjectItemCaseSensitive(cond, "left")->valuestring, *rest;
    const char *rp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cond, "right"));
    char run[40];
    lab_claim_path_run(lp, run, sizeof run, &rest);
    lab_claim_describe(lab_claim_path_get(env, rest, x, why, sizeof why), l, sizeof l);
    if (rp) {
      lab_claim_path_run(rp, run, sizeof run, &rest);
      lab_claim_describe(lab_claim_path_get(env, rest, x, why, sizeof why), r, sizeof r);
    } else {
      lab_claim_describe(cJSON_GetObjectItemCaseSensitive(cond, "value"), r, sizeof r);
    }
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(cond, "times");
    int k = snprintf(out + o, n - o, "%s%s = %s %s %s%s%s", o ? "; " : "", lp, l,
                     cJSON_GetObjectItemCaseSensitive(cond, "op")->valuestring, rp ? rp : "", rp ? " = " : "", r);
    if (k > 0 && (size_t)k < n - o) o += (size_t)k;
    if (cJSON_IsNumber(times) && o < n) {
      k = snprintf(out + o, n - o, " × %g", times->valuedouble);
      if (k > 0 && (size_t)k < n - o) o += (size_t)k;
    }
  }
}

/* The claim's one run has the learner's parameters. */
static int same_params(const cJSON *claim, const cJSON *env) {
  const cJSON *runs = cJSON_GetObjectItemCaseSensitive(claim, "runs");
  const lab_experiment *e = lab_experiment_find(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "experiment")));
  if (!e || cJSON_GetArraySize(runs) != 1) return 0;
  cJSON *a = normalised(e, runs->child), *b = normalised(e, cJSON_GetObjectItemCaseSensitive(env, "params"));
  int same = a && b && cJSON_Compare(a, b, 1);
  cJSON_Delete(a);
  cJSON_Delete(b);
  return same;
}

cJSON *lab_compare_claims(const cJSON *kit, const cJSON *claims, const char **note) {
  cJSON *out = cJSON_CreateArray();
  const cJSON *c;
  *note = NULL;
  if (!claims) *note = "the lessons' claims were not found (make lessons writes them to claims.json)";
  else if (!strcmp(lab_kit_kind(kit), "cpu")) *note = "the run had no GPU, and the lessons' claims are about GPUs";
  if (*note || !out) return out;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(claims, "claims")) {
    const char *exp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "experiment"));
    const cJSON *env = exp ? lab_kit_result(kit, exp) : NULL;
    if (!env || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "all_profiles")) ||
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "real_gpu")) || cJSON_GetObjectItemCaseSensitive(c, "refused") ||
        !is_text(c, "id") || !is_text(c, "quote") || !same_params(c, env) || !readable(c, env))
      continue;
    lab_claim_runs rs = {.names = {cJSON_GetObjectItemCaseSensitive(c, "runs")->child->string}, .envs = {env}, .n = 1};
    char why[800], where[160];
    int holds = lab_claim_all_hold(&rs, c, why, sizeof why);
    if (holds) numbers(c, env, why, sizeof why);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(out, o);
    cJSON_AddStringToObject(o, "lesson", text_or(c, "lesson", ""));
    cJSON_AddStringToObject(o, "id", cJSON_GetObjectItemCaseSensitive(c, "id")->valuestring);
    cJSON_AddStringToObject(o, "quote", cJSON_GetObjectItemCaseSensitive(c, "quote")->valuestring);
    const cJSON *line = cJSON_GetObjectItemCaseSensitive(c, "line");
    snprintf(where, sizeof where, "%.120s:%d", text_or(c, "file", "?"),
             cJSON_IsNumber(line) && line->valuedouble > 0 && line->valuedouble < 1e9 ? (int)line->valuedouble : 0);
    cJSON_AddStringToObject(o, "where", where);
    cJSON_AddStringToObject(o, "experiment", exp);
    cJSON_AddBoolToObject(o, "holds", holds);
    cJSON_AddStringToObject(o, holds ? "numbers" : "why", why);
  }
  if (!cJSON_GetArraySize(out))
    *note = "no claim of the lessons reads this run: they ask for other parameters, or figures it does not have";
  return out;
}

cJSON *lab_compare_claims_public(const cJSON *claims) {
  static const char *const keep[] = {"lesson", "id", "file", "line", "quote", "experiment", "runs", "all_profiles",
                                     "real_gpu", "expect"};
  cJSON *out = cJSON_CreateObject(), *list = out ? cJSON_AddArrayToObject(out, "claims") : NULL;
  const cJSON *c;
  if (!list) {
    cJSON_Delete(out);
    return NULL;
  }
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(claims, "claims")) {
    if (cJSON_GetObjectItemCaseSensitive(c, "quiz") || cJSON_GetObjectItemCaseSensitive(c, "refused") ||
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "all_profiles")) ||
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "real_gpu")) || !is_text(c, "id") || !is_text(c, "quote") ||
        !is_text(c, "experiment") || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "runs")) != 1)
      continue;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(list, o)) {
      cJSON_Delete(o);
      cJSON_Delete(out);
      return NULL;
    }
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, keep[i]);
      if (v) cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
    }
  }
  return out;
}
