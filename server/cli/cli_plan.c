/* `gpulab plan`: will this training fit on this GPU, and how fast will a
 * step be? The flags (or --settings FILE, the JSON POST /api/plan takes)
 * become the planner's settings (lab/plan/plan.h); the answer is printed
 * for a person or, with --json, as the same JSON the API answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "cli.h"
#include "json.h"
#include "plan.h"

static void print_text(const cJSON *answer) {
  char *t = cJSON_Print(answer);
  if (t) puts(t);
  cJSON_free(t);
}

static cJSON *read_json_file(const char *path, const char *what, lab_error *err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    lab_fail(err, LAB_E_USAGE, what, "cannot open %.200s", path);
    return NULL;
  }
  char *buf = malloc(LAB_PLAN_MAX_BYTES + 1);
  size_t n = buf ? fread(buf, 1, LAB_PLAN_MAX_BYTES + 1, f) : 0;
  if (f != stdin) fclose(f);
  cJSON *json = NULL;
  if (!buf) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  else if (n > LAB_PLAN_MAX_BYTES) lab_fail(err, LAB_E_BODY_TOO_LARGE, what, "%.200s is over 64 KiB", path);
  else if (!(json = lab_json_parse(buf, n, LAB_JSON_MAX_DEPTH, NULL)))
    lab_fail(err, LAB_E_INVALID_JSON, what, "%.200s is not a JSON document", path);
  free(buf);
  return json;
}

int srv_cmd_plan(int argc, char **argv) {
  int json = 0;
  lab_error err = {0};
  cJSON *req = NULL;
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (srv_cli_option(argc, argv, &i, "--settings", &v) && v) {
      cJSON_Delete(req);
      if (!(req = read_json_file(v, "settings", &err))) return srv_cli_answer(NULL, &err, json, print_text);
    } else {
      cJSON_Delete(req);
      return srv_cli_usage("plan: unknown option");
    }
  }
  if (!req) req = cJSON_CreateObject();
  cJSON *answer = lab_plan(req, &err);
  cJSON_Delete(req);
  return srv_cli_answer(answer, &err, json, print_text);
}
