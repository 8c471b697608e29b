/* `gpulab plan`: will this training fit on this GPU, and how fast will a
 * step be? The flags become the planner's JSON settings (the body
 * POST /api/plan takes: --kv-heads is "kv_heads", --config FILE and
 * --profile-file FILE are read as JSON, --settings FILE gives the whole
 * object), lab_plan (lab/plan/plan.h) answers, and the answer is printed for
 * a person or, with --json, as the same JSON the API answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "cli.h"
#include "json.h"
#include "plan.h"
#include "units.h"

static const char *s(const cJSON *o, const char *k) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
  return v ? v : "";
}

static double n(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void print_band(const char *label, const cJSON *mem, const char *key, const char *band_key) {
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(mem, band_key);
  printf("  %-22s %10s  (band %s to %s)\n", label, LAB_IEC(n(mem, key)), LAB_IEC(cJSON_GetArrayItem(b, 0)->valuedouble),
         LAB_IEC(cJSON_GetArrayItem(b, 1)->valuedouble));
}

static void print_text(const cJSON *a) {
  const cJSON *set = cJSON_GetObjectItemCaseSensitive(a, "settings"), *model = cJSON_GetObjectItemCaseSensitive(a, "model");
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(a, "memory"), *c, *x;
  printf("%s: %.1f M parameters (%.1f M trainable), %s, micro-batch %.0f x %.0f, %s, %s, checkpointing %s, %s "
         "attention, profile %s\n",
         s(model, "name"), n(model, "params") / 1e6, n(model, "trainable_params") / 1e6, s(set, "arch"),
         n(set, "batch"), n(set, "accum"), s(set, "precision"), s(set, "optimizer"), s(set, "checkpointing"),
         s(set, "attention"), s(set, "profile"));
  if (n(model, "published_params") > 0) printf("  published: %.3g parameters (%s)\n", n(model, "published_params"), s(model, "source"));
  printf("\nMemory at the step's peak (%s):\n", s(mem, "peak_phase"));
  print_band("max_memory_allocated", mem, "allocated_bytes", "allocated_band");
  print_band("max_memory_reserved", mem, "reserved_bytes", "reserved_band");
  print_band("nvidia-smi", mem, "device_bytes", "device_band");
  printf("Components:\n");
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(mem, "components")) {
    printf("  %-10s %s\n", LAB_IEC(n(c, "bytes")), s(c, "label"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "sources")) printf("    %-10s %s\n", LAB_IEC(n(x, "bytes")), s(x, "label"));
  }
  printf("\n%s\n", s(a, "verdict"));
  char step[32];
  const cJSON *tb = cJSON_GetObjectItemCaseSensitive(a, "step_ms_band");
  printf("Step: %s (band %s to %s), %.0f tokens/s\n", lab_fmt_ms(n(a, "step_ms"), step, sizeof step),
         lab_fmt_ms(cJSON_GetArrayItem(tb, 0)->valuedouble, (char[32]){0}, 32),
         lab_fmt_ms(cJSON_GetArrayItem(tb, 1)->valuedouble, (char[32]){0}, 32), n(a, "tokens_per_s"));
  const cJSON *levers = cJSON_GetObjectItemCaseSensitive(a, "levers");
  if (cJSON_GetArraySize(levers) > 0) printf("\nLevers:\n");
  cJSON_ArrayForEach(c, levers)
    printf("  %-70s %s%s\n", s(c, "label"), s(c, "text"), cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "fits")) ? " (fits)" : "");
}

static cJSON *read_json_file(const char *path, const char *what, lab_error *err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    lab_fail(err, LAB_E_USAGE, what, "cannot open %.200s", path);
    return NULL;
  }
  char *buf = malloc(LAB_PLAN_MAX_BYTES + 1);
  size_t len = buf ? fread(buf, 1, LAB_PLAN_MAX_BYTES + 1, f) : 0;
  if (f != stdin) fclose(f);
  cJSON *json = NULL;
  if (!buf) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  else if (len > LAB_PLAN_MAX_BYTES) lab_fail(err, LAB_E_BODY_TOO_LARGE, what, "%.200s is over 64 KiB", path);
  else if (!(json = lab_json_parse(buf, len, LAB_JSON_MAX_DEPTH, NULL)))
    lab_fail(err, LAB_E_INVALID_JSON, what, "%.200s is not a JSON document", path);
  free(buf);
  return json;
}

/* A flag's value as JSON: a number when it reads as one, true/false, else text. */
static cJSON *typed(const char *v) {
  char *end;
  double d = strtod(v, &end);
  if (*v && !*end) return cJSON_CreateNumber(d);
  if (!strcmp(v, "true") || !strcmp(v, "false")) return cJSON_CreateBool(!strcmp(v, "true"));
  return cJSON_CreateString(v);
}

static void print_presets(void) {
  cJSON *o = lab_plan_presets_json();
  const cJSON *p;
  cJSON_ArrayForEach(p, o) printf("  %-16s %s\n", s(p, "name"), s(p, "source"));
  cJSON_Delete(o);
}

int srv_cmd_plan(int argc, char **argv) {
  int json = 0;
  lab_error err = {0};
  cJSON *req = cJSON_CreateObject(), *file = NULL;
  for (int i = 0; i < argc; i++) {
    const char *v = NULL, *a = argv[i];
    char key[32];
    if (!strcmp(a, "--json")) {
      json = 1;
      continue;
    }
    if (!strcmp(a, "--presets")) {
      cJSON_Delete(req);
      print_presets();
      return 0;
    }
    if (strncmp(a, "--", 2) != 0 || strlen(a) - 2 >= sizeof key) goto usage;
    /* --kv-heads=8 and --kv-heads 8 both name "kv_heads" */
    size_t k = 0;
    for (const char *p = a + 2; *p && *p != '=' && k + 1 < sizeof key; p++) key[k++] = *p == '-' ? '_' : *p;
    key[k] = 0;
    char flag[40];
    snprintf(flag, sizeof flag, "--%.*s", (int)strcspn(a + 2, "="), a + 2);
    if (!srv_cli_option(argc, argv, &i, flag, &v) || !v) goto usage;
    if (!strcmp(key, "settings") || !strcmp(key, "config") || !strcmp(key, "profile_file")) {
      if (!(file = read_json_file(v, key, &err))) break;
      if (!strcmp(key, "settings")) {
        if (!cJSON_IsObject(file)) {
          cJSON_Delete(file);
          lab_fail(&err, LAB_E_INVALID_JSON, "settings", "%.200s must hold a JSON object of settings", v);
          break;
        }
        /* the flags given so far stand over the file's fields */
        cJSON *f;
        while ((f = req->child)) {
          cJSON_DetachItemViaPointer(req, f);
          cJSON_DeleteItemFromObjectCaseSensitive(file, f->string);
          cJSON_AddItemToObject(file, f->string, f);
        }
        cJSON_Delete(req);
        req = file;
      } else {
        cJSON_DeleteItemFromObjectCaseSensitive(req, !strcmp(key, "config") ? "config" : "profile");
        cJSON_AddItemToObject(req, !strcmp(key, "config") ? "config" : "profile", file);
      }
      continue;
    }
    /* any other flag is a settings field: the settings refuse an unknown one, naming it */
    cJSON_DeleteItemFromObjectCaseSensitive(req, key);
    cJSON_AddItemToObject(req, key, !strcmp(key, "preset") || !strcmp(key, "profile") ? cJSON_CreateString(v) : typed(v));
  }
  cJSON *answer = err.code == LAB_OK ? lab_plan(req, &err) : NULL;
  cJSON_Delete(req);
  return srv_cli_answer(answer, &err, json, print_text);
usage:
  cJSON_Delete(req);
  return srv_cli_usage("plan takes --json, --presets, --settings FILE, --preset NAME or --config FILE, the model "
                       "and training flags (gpulab help) and --profile NAME or --profile-file FILE");
}
