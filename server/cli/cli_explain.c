/* `gpulab explain FILE` (or - for standard input): the explainer of
 * lab/explain/explain.h on a pasted error, as text for a person or, with --json,
 * the same envelope POST /api/explain answers. `gpulab explain
 * --diagnoses` prints the explanation table itself as JSON, from which
 * tools/kit_diagnoses.py writes the measurement kit's copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "cli.h"
#include "explain.h"
#include "explain_diag.h"

static const char *s(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static void print_fact(const cJSON *f) {
  if (cJSON_IsString(f)) printf("%s", f->valuestring);
  else if (cJSON_IsBool(f)) printf("%s", cJSON_IsTrue(f) ? "yes" : "no");
  else if (cJSON_IsNumber(f)) printf("%g", f->valuedouble);
  else if (cJSON_IsObject(f) && cJSON_GetObjectItemCaseSensitive(f, "printed"))
    printf("%s (%.0f bytes)", s(f, "printed"), cJSON_GetObjectItemCaseSensitive(f, "bytes")->valuedouble);
  else {
    char *t = cJSON_PrintUnformatted(f);
    printf("%s", t ? t : "?");
    cJSON_free(t);
  }
}

static void print_text(const cJSON *env) {
  const cJSON *it, *x;
  int i = 0;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(env, "items")) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "diagnosis");
    i++;
    printf("%s%d. %s [%s]\n   %s\n", i > 1 ? "\n" : "", i, s(d, "title"), s(it, "kind"), s(d, "text"));
    const cJSON *facts = cJSON_GetObjectItemCaseSensitive(it, "facts");
    if (facts && facts->child) {
      printf("   Read from the text:\n");
      cJSON_ArrayForEach(x, facts) {
        printf("     %s: ", x->string);
        print_fact(x);
        printf("\n");
      }
    }
    const cJSON *bar = cJSON_GetObjectItemCaseSensitive(it, "bar");
    if (bar) {
      printf("   The GPU's memory:\n");
      cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(bar, "parts")) printf("     %-10s %s\n", s(x, "printed"), s(x, "label"));
      cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(bar, "request")) printf("     %-10s %s\n", s(x, "printed"), s(x, "label"));
    }
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(it, "layers");
    if (layers) {
      printf("   The layers CUDA work passes through:\n");
      cJSON_ArrayForEach(x, layers) printf("     %-13s %-28s %s\n", s(x, "layer"), s(x, "value")[0] ? s(x, "value") : "-", s(x, "state"));
    }
    printf("   First things to try:\n");
    int k = 1;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(it, "steps")) printf("     %d) %s\n", k++, x->valuestring);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(it, "lesson"), *e = cJSON_GetObjectItemCaseSensitive(it, "experiment");
    printf("   Lesson: %s, section \"%s\" (%s)\n", s(l, "id"), s(l, "section"), s(l, "href"));
    printf("   Experiment: gpulab run %s", s(e, "name"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(e, "params")) {
      if (cJSON_IsBool(x)) printf(" --%s=%s", x->string, cJSON_IsTrue(x) ? "true" : "false");
      else if (cJSON_IsNumber(x)) printf(" --%s=%g", x->string, x->valuedouble);
    }
    printf("\n");
    if (cJSON_GetObjectItemCaseSensitive(e, "ask")) {
      printf("   (give your model's size:");
      cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(e, "ask")) printf(" --%s", x->valuestring);
      printf(")\n");
    }
  }
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(env, "more")))
    printf("\n(more messages follow; paste them separately)\n");
}

/* [{"id","title","text","steps":[…],"lesson","section","experiment"}], as in lab/explain/explain_diag.c. */
static int print_table(void) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; arr && i < lab_ex_diag_count(); i++) {
    const lab_ex_diag *d = lab_ex_diag_at(i);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(arr, o);
    cJSON_AddStringToObject(o, "id", d->id);
    cJSON_AddStringToObject(o, "title", d->title);
    cJSON_AddStringToObject(o, "text", d->text);
    cJSON *steps = cJSON_AddArrayToObject(o, "steps");
    for (int k = 0; k < LAB_EX_MAX_STEPS && d->steps[k]; k++) cJSON_AddItemToArray(steps, cJSON_CreateString(d->steps[k]));
    cJSON_AddStringToObject(o, "lesson", d->lesson);
    cJSON_AddStringToObject(o, "section", d->section);
    cJSON_AddStringToObject(o, "experiment", d->experiment);
  }
  char *t = arr ? cJSON_Print(arr) : NULL;
  if (t) puts(t);
  cJSON_free(t);
  cJSON_Delete(arr);
  return t ? 0 : 1;
}

int srv_cmd_explain(int argc, char **argv) {
  int json = 0;
  const char *path = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--diagnoses")) return argc == 1 ? print_table() : srv_cli_usage("explain --diagnoses takes nothing else");
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!path) path = argv[i];
    else return srv_cli_usage("explain takes one FILE (or - for standard input) and --json");
  }
  if (!path) return srv_cli_usage("explain needs a FILE (or - for standard input)");
  lab_error err = {0};
  size_t n = 0;
  char *buf = srv_cli_read(path, LAB_EXPLAIN_MAX_BYTES, &n, &err);
  if (!buf && !err.code) return 1; /* cannot open: said */
  cJSON *env = buf ? lab_explain(buf, n, &err) : NULL;
  free(buf);
  return srv_cli_answer(env, &err, json, print_text);
}
