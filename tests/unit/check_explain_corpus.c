/* The explain corpus runner: every case of tests/explain/own.json, of the
 * public corpus tests/explain/cases.json and of its Mac, AMD and free-tier
 * part tests/explain/real_platforms.json and of the GPU leases' messages in
 * tests/explain/gpu/, a .json per card (format in docs/explain.md), gives
 * the right kinds in order, the right facts (sizes compared as bytes, read
 * with PyTorch's units) and the right first diagnosis; and every answer's
 * advice follows the platform it read (no nvidia-smi or CUDA wheel on a
 * Mac, rocm-smi for an AMD card, all three checks when none shows) and
 * prints no placeholder. Runs from the repository root, as `make unit` does. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "explain.h"
#include "suites.h"

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(LAB_EXPLAIN_MAX_BYTES + 2);
  *n = buf ? fread(buf, 1, LAB_EXPLAIN_MAX_BYTES + 1, f) : 0;
  fclose(f);
  if (buf) buf[*n] = '\0';
  return buf;
}

/* expected (as the corpus writes it: the text as printed) against what the explainer read. */
static int same(const cJSON *want, const cJSON *got, char *why, size_t cap) {
  if (cJSON_IsNull(want)) /* the text has no value ("Could not collect"): nothing may be read */
    return (!got || cJSON_IsNull(got)) ? 1 : (snprintf(why, cap, "read a value where the text has none"), 0);
  if (!got) return snprintf(why, cap, "missing"), 0;
  if (cJSON_IsString(want) && cJSON_IsObject(got)) { /* a size: bytes against bytes */
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(got, "bytes"), *p = cJSON_GetObjectItemCaseSensitive(got, "printed");
    size_t used = 0;
    double wb = lab_explain_size(want->valuestring, strlen(want->valuestring), &used);
    if (wb >= 0 && used == strlen(want->valuestring))
      return (cJSON_IsNumber(b) && b->valuedouble == wb) ? 1 : (snprintf(why, cap, "%.0f bytes, want %.0f", b ? b->valuedouble : -1, wb), 0);
    return (cJSON_IsString(p) && !strcmp(p->valuestring, want->valuestring)) ? 1 : (snprintf(why, cap, "printed differs"), 0);
  }
  if (cJSON_IsString(want) && cJSON_IsString(got)) {
    size_t u1 = 0, u2 = 0;
    double a = lab_explain_size(want->valuestring, strlen(want->valuestring), &u1);
    double b = lab_explain_size(got->valuestring, strlen(got->valuestring), &u2);
    if (a >= 0 && u1 == strlen(want->valuestring) && b >= 0 && u2 == strlen(got->valuestring)) return a == b;
    return strcmp(want->valuestring, got->valuestring) == 0 ? 1 : (snprintf(why, cap, "\"%s\"", got->valuestring), 0);
  }
  if (cJSON_IsArray(want)) {
    if (!cJSON_IsArray(got) || cJSON_GetArraySize(want) != cJSON_GetArraySize(got))
      return snprintf(why, cap, "array size"), 0;
    for (int i = 0; i < cJSON_GetArraySize(want); i++)
      if (!same(cJSON_GetArrayItem(want, i), cJSON_GetArrayItem(got, i), why, cap)) return 0;
    return 1;
  }
  if (cJSON_IsObject(want)) { /* an nvidia-smi GPU: every expected key */
    const cJSON *k;
    cJSON_ArrayForEach(k, want) if (!same(k, cJSON_GetObjectItemCaseSensitive(got, k->string), why, cap)) return 0;
    return 1;
  }
  if (cJSON_IsNumber(want) && cJSON_IsString(got)) return atof(got->valuestring) == want->valuedouble;
  return cJSON_Compare(want, got, 1) ? 1 : (snprintf(why, cap, "differs"), 0);
}

/* The first item holding the fact. */
static const cJSON *find_fact(const cJSON *items, const char *key) {
  const cJSON *it;
  cJSON_ArrayForEach(it, items) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "facts"), key);
    if (f) return f;
  }
  return NULL;
}

/* A hole left in the words: "{fact}", "(?)", a template's "[" or "]". */
static const char *placeholder(const char *w) {
  if (strstr(w, "(?)")) return "(?)";
  for (const char *p = strchr(w, '{'); p; p = strchr(p + 1, '{')) {
    size_t k = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_.");
    if (k && p[1 + k] == '}') return p;
  }
  return NULL;
}

/* The advice of one item against its platform; the failures are counted in *failed. */
static void check_advice(const char *id, const cJSON *it, int *failed) {
  const cJSON *pf = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "facts"), "platform");
  const char *platform = cJSON_IsString(pf) ? pf->valuestring : "none";
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "diagnosis"), *st;
  const char *words[2] = {cJSON_GetObjectItemCaseSensitive(d, "title")->valuestring,
                          cJSON_GetObjectItemCaseSensitive(d, "text")->valuestring};
  for (int i = 0; i < 2; i++)
    if (placeholder(words[i]) || !words[i][0])
      fprintf(stderr, "explain corpus %s: placeholder in \"%s\"\n", id, words[i]), (*failed)++;
  cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(it, "steps")) {
    const char *w = st->valuestring;
    int smi = strstr(w, "nvidia-smi") != NULL;
    int wheel = strstr(w, "cu12") || strstr(w, "cu11") || strstr(w, "Install a CUDA build") || strstr(w, "CUDA build of PyTorch");
    const char *why = placeholder(w) ? "a placeholder"
                      : !strcmp(platform, "mac") && (smi || wheel) ? "nvidia-smi or a CUDA wheel on a Mac"
                      : !strcmp(platform, "rocm") && smi ? "nvidia-smi on an AMD card"
                      : !strcmp(platform, "none") && wheel ? "a CUDA wheel where no platform shows"
                      : !strcmp(platform, "none") && smi && !(strstr(w, "rocm-smi") && strstr(w, "mps.is_available"))
                          ? "nvidia-smi alone where no platform shows"
                          : NULL;
    if (why) fprintf(stderr, "explain corpus %s (%s): %s in \"%s\"\n", id, platform, why, w), (*failed)++;
  }
}

/* Runs one cases file; returns the cases run, -1 when the file is absent. */
static int run_file(const char *dir, const char *name, int *failed) {
  char path[512];
  size_t n = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = slurp(path, &n);
  if (!text) return -1;
  cJSON *doc = cJSON_Parse(text);
  free(text);
  ck_assert_msg(doc, "%s is not JSON", path);
  const cJSON *c;
  int count = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases")) {
    const char *id = cJSON_GetObjectItemCaseSensitive(c, "id")->valuestring;
    snprintf(path, sizeof path, "%s/%s", dir, cJSON_GetObjectItemCaseSensitive(c, "file")->valuestring);
    char *msg = slurp(path, &n);
    ck_assert_msg(msg, "%s: %s missing", id, path);
    lab_error err = {0};
    cJSON *env = lab_explain(msg, n, &err);
    free(msg);
    ck_assert_msg(env, "%s: %s", id, err.message);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(env, "items");
    /* kinds: in order of first appearance */
    char got[256] = "", want[256] = "";
    const cJSON *it, *k;
    cJSON_ArrayForEach(it, items) {
      const char *kind = cJSON_GetObjectItemCaseSensitive(it, "kind")->valuestring;
      char tag[40];
      snprintf(tag, sizeof tag, " %s ", kind);
      if (!strstr(got, tag)) snprintf(got + strlen(got), sizeof got - strlen(got), "%s", tag + (got[0] ? 1 : 0));
    }
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "kinds")) {
      char tag[40];
      snprintf(tag, sizeof tag, " %s ", k->valuestring);
      if (!strstr(want, tag)) snprintf(want + strlen(want), sizeof want - strlen(want), "%s", tag + (want[0] ? 1 : 0));
    }
    if (strcmp(got, want)) fprintf(stderr, "explain corpus %s: kinds [%s], want [%s]\n", id, got, want), (*failed)++;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "facts")) {
      char why[128] = "";
      if (!same(f, find_fact(items, f->string), why, sizeof why))
        fprintf(stderr, "explain corpus %s: fact %s: %s\n", id, f->string, why), (*failed)++;
    }
    const cJSON *dw = cJSON_GetObjectItemCaseSensitive(c, "diagnosis");
    if (!cJSON_IsString(dw)) { /* a lease's new message not labelled yet */
      fprintf(stderr, "explain corpus %s: no diagnosis written (facts and diagnosis are a person's: tests/explain/README.md)\n", id);
      (*failed)++;
      cJSON_Delete(env);
      continue;
    }
    const char *dwant = dw->valuestring;
    const char *dgot =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(items, 0), "diagnosis"), "id")
            ->valuestring;
    if (strcmp(dgot, dwant)) fprintf(stderr, "explain corpus %s: diagnosis %s, want %s\n", id, dgot, dwant), (*failed)++;
    cJSON_ArrayForEach(it, items) check_advice(id, it, failed);
    cJSON_Delete(env);
    count++;
  }
  cJSON_Delete(doc);
  return count;
}

START_TEST(explain_own_cases_give_kind_facts_and_first_diagnosis) {
  int failed = 0;
  int n = run_file("tests/explain", "own.json", &failed);
  ck_assert_int_ge(n, 20);
  ck_assert_int_eq(failed, 0);
}
END_TEST

START_TEST(explain_public_corpus_gives_kind_facts_and_first_diagnosis) {
  int failed = 0;
  int n = run_file("tests/explain", "cases.json", &failed);
  if (n < 0) return; /* the public corpus is not in this checkout */
  ck_assert_int_ge(n, 40);
  fprintf(stderr, "explain corpus: %d public cases, %d mismatches\n", n, failed);
  ck_assert_int_eq(failed, 0);
}
END_TEST

/* The Mac, AMD and free-tier messages: in every checkout (make test never skips them). */
START_TEST(explain_real_platform_messages_give_kind_facts_and_first_diagnosis) {
  int failed = 0;
  int n = run_file("tests/explain", "real_platforms.json", &failed);
  ck_assert_msg(n >= 80, "tests/explain/real_platforms.json gave %d cases", n);
  fprintf(stderr, "explain corpus: %d Mac, AMD and free-tier cases, %d mismatches\n", n, failed);
  ck_assert_int_eq(failed, 0);
}
END_TEST

/* PyTorch's own messages from the GPU leases (tests/explain/gpu, one GPU.json
 * per card the lease ran on, labelled by a person): every file there. */
START_TEST(explain_gpu_lease_messages_give_kind_facts_and_first_diagnosis) {
  int failed = 0, n = 0, files = 0;
  DIR *dir = opendir("tests/explain/gpu");
  ck_assert_msg(dir, "tests/explain/gpu missing (run from the repository root)");
  for (struct dirent *de; (de = readdir(dir));) {
    size_t len = strlen(de->d_name);
    if (len < 6 || strcmp(de->d_name + len - 5, ".json")) continue;
    char name[300];
    snprintf(name, sizeof name, "gpu/%s", de->d_name);
    int got = run_file("tests/explain", name, &failed);
    ck_assert_msg(got > 0, "tests/explain/%s holds no case", name);
    n += got, files++;
  }
  closedir(dir);
  ck_assert_msg(n >= 5, "tests/explain/gpu gave %d cases", n);
  fprintf(stderr, "explain corpus: %d GPU lease cases in %d files, %d mismatches\n", n, files, failed);
  ck_assert_int_eq(failed, 0);
}
END_TEST

Suite *make_explain_corpus_suite(void) {
  Suite *s = suite_create("explain_corpus");
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, explain_own_cases_give_kind_facts_and_first_diagnosis);
  tcase_add_test(tc, explain_public_corpus_gives_kind_facts_and_first_diagnosis);
  tcase_add_test(tc, explain_real_platform_messages_give_kind_facts_and_first_diagnosis);
  tcase_add_test(tc, explain_gpu_lease_messages_give_kind_facts_and_first_diagnosis);
  suite_add_tcase(s, tc);
  return s;
}
