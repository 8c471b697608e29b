/* The measurement kit's envelopes drawn by the client's own views (compiled
 * natively), each checked against what its view reads: for every metric,
 * series, details entry and the timeline of the simulator's envelope of the
 * same experiment with the same parameters, the view is drawn once without
 * it; where the drawing changes, the view reads it, and the kit's envelope
 * must carry it, or declare it not measured on this device with why
 * (details.not_measured: crossover's GPU lines on a CPU), which is printed.
 * Every metric of gpulab's own envelope is in the kit's or declared. TAP.
 * Usage: kit_views KIT_FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "html.h"
#include "json.h"
#include "profiles.h"
#include "registry.h"
#include "result.h"

static int n_test, failed;

static void tap(int ok, const char *fmt, const char *a, const char *b) {
  printf("%s %d - ", ok ? "ok" : "not ok", ++n_test);
  printf(fmt, a, b);
  printf("\n");
  failed |= !ok;
}

static char *draw(const cJSON *env) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, false, NULL);
  char *out = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  return out;
}

/* Whether the view's drawing of sim changes when `what` is taken out of it. */
static int reads(const cJSON *sim, const char *base, const char *kind, const char *key) {
  cJSON *copy = cJSON_Duplicate(sim, 1);
  if (!strcmp(kind, "metric")) cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(copy, "metrics"), key);
  else if (!strcmp(kind, "details")) cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(copy, "details"), key);
  else if (!strcmp(kind, "timeline")) cJSON_ReplaceItemInObjectCaseSensitive(copy, "timeline", cJSON_CreateArray());
  else {
    cJSON *series = cJSON_GetObjectItem(copy, "series");
    for (int i = 0; i < cJSON_GetArraySize(series); i++) {
      const cJSON *id = cJSON_GetObjectItem(cJSON_GetArrayItem(series, i), "id");
      if (cJSON_IsString(id) && !strcmp(id->valuestring, key)) cJSON_DeleteItemFromArray(series, i--);
    }
  }
  char *out = draw(copy);
  int differs = strcmp(out, base) != 0;
  free(out);
  cJSON_Delete(copy);
  return differs;
}

static int has_series(const cJSON *env, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
    const cJSON *sid = cJSON_GetObjectItem(s, "id");
    if (cJSON_IsString(sid) && !strcmp(sid->valuestring, id) && cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")))
      return 1;
  }
  return 0;
}

static int declared(const cJSON *env, const char *key) {
  return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(env, "details"), "not_measured"), key) != NULL;
}

static void check_one(const cJSON *kit) {
  const char *exp = cJSON_GetStringValue(cJSON_GetObjectItem(kit, "experiment"));
  lab_error err = {0};
  if (!exp) exp = "?";
  tap(lab_envelope_check(kit, &err) == 0 && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(kit, "backend")), "pytorch"),
      "%s: a result envelope with backend pytorch%s", exp, err.message[0] ? err.message : "");
  cJSON *sim = NULL;
  const lab_experiment *e = lab_experiment_find(exp);
  int ran = e && lab_simulate_with(e, cJSON_GetObjectItem(kit, "params"), lab_profile_find("t4"), &sim, &err) == 0;
  tap(ran, "%s: its params are valid and simulate%s", exp, ran ? "" : err.message);
  if (!ran) return;
  char *base = draw(sim), missing[2048] = "";
  size_t m = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(sim, "metrics")) {
    int here = cJSON_GetObjectItem(cJSON_GetObjectItem(kit, "metrics"), it->string) != NULL;
    int ok = here || declared(kit, it->string);
    if (!ok && reads(sim, base, "metric", it->string))
      m += (size_t)snprintf(missing + m, sizeof missing - m, " metric %s;", it->string);
    if (m >= sizeof missing) m = sizeof missing - 1;
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(sim, "series")) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(it, "id"));
    if (id && !has_series(kit, id) && !declared(kit, id) && reads(sim, base, "series", id))
      m += (size_t)snprintf(missing + m, sizeof missing - m, " series %s;", id);
    if (m >= sizeof missing) m = sizeof missing - 1;
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(sim, "details")) {
    if (!cJSON_GetObjectItem(cJSON_GetObjectItem(kit, "details"), it->string) && !declared(kit, it->string) &&
        reads(sim, base, "details", it->string))
      m += (size_t)snprintf(missing + m, sizeof missing - m, " details.%s;", it->string);
    if (m >= sizeof missing) m = sizeof missing - 1;
  }
  if (cJSON_GetArraySize(cJSON_GetObjectItem(sim, "timeline")) && !cJSON_GetArraySize(cJSON_GetObjectItem(kit, "timeline")) &&
      !declared(kit, "timeline") && reads(sim, base, "timeline", NULL))
    m += (size_t)snprintf(missing + m, sizeof missing - m, " the timeline;");
  tap(m == 0, "%s: the view finds everything it reads%s", exp, missing);
  m = 0;
  missing[0] = '\0';
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(sim, "metrics")) {
    if (!cJSON_GetObjectItem(cJSON_GetObjectItem(kit, "metrics"), it->string) && !declared(kit, it->string))
      m += (size_t)snprintf(missing + m, sizeof missing - m, " %s;", it->string);
    if (m >= sizeof missing) m = sizeof missing - 1;
  }
  tap(m == 0, "%s: every metric of gpulab's envelope is there or declared not measured%s", exp, missing);
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(kit, "details"), "not_measured"))
    printf("#   %s: %s not measured: %s\n", exp, it->string, cJSON_IsString(it) ? it->valuestring : "(no reason given)");
  char *own = draw(kit);
  tap(strstr(own, "your run: ") != NULL, "%s: drawn and labelled as the learner's own run%s", exp, "");
  free(own);
  free(base);
  cJSON_Delete(sim);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : NULL;
  if (!path) return fprintf(stderr, "usage: kit_views KIT_FILE\n"), 2;
  FILE *f = fopen(path, "rb");
  static char text[2 << 20];
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[n] = '\0';
  cJSON *doc = lab_json_parse(text, n, LAB_JSON_MAX_DEPTH, NULL);
  const cJSON *env;
  if (!doc) return printf("not ok 1 - %s is a JSON file\n1..1\n", path), 1;
  cJSON_ArrayForEach(env, cJSON_GetObjectItem(doc, "results")) check_one(env);
  printf("1..%d\n", n_test);
  cJSON_Delete(doc);
  return failed;
}
