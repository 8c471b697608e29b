/* Recordings as answers to claims (claim_recorded.h): each DIR/NAME.json read
 * once, accepted only when a GPU made it (backend "cuda", or "recorded"
 * with the recording's device), and matched to a run by its validated
 * parameters, so a claim that changes a parameter is never answered by a
 * default run. */
#include "claim_recorded.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "registry.h"

#define MAX_RECORDINGS 64

typedef struct {
  char name[48];
  cJSON *env;    /* NULL: unusable, err says why */
  char err[240];
} recording;

static recording recs[MAX_RECORDINGS];
static int n_recs;

static bool made_on_a_gpu(const cJSON *env) {
  const cJSON *backend = cJSON_GetObjectItemCaseSensitive(env, "backend");
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(env, "recorded");
  if (!cJSON_IsString(backend)) return false;
  if (!strcmp(backend->valuestring, "cuda")) return true;
  return !strcmp(backend->valuestring, "recorded") && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(meta, "device"));
}

static const recording *load(const char *dir, const char *experiment) {
  for (int i = 0; i < n_recs; i++)
    if (!strcmp(recs[i].name, experiment)) return &recs[i];
  if (n_recs == MAX_RECORDINGS) return NULL;
  recording *r = &recs[n_recs++];
  snprintf(r->name, sizeof r->name, "%s", experiment);
  r->env = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.json", dir, experiment);
  size_t len;
  FILE *f = fopen(path, "rb"); /* a missing one is a skip, not lesson_read_file's complaint */
  char *text = f ? (fclose(f), lesson_read_file(path, &len)) : NULL;
  if (!text) {
    snprintf(r->err, sizeof r->err, "no recording of %.40s (%.160s)", experiment, path);
    return r;
  }
  r->env = cJSON_Parse(text);
  free(text);
  if (!r->env) {
    snprintf(r->err, sizeof r->err, "%.200s is not JSON", path);
  } else if (!made_on_a_gpu(r->env)) {
    snprintf(r->err, sizeof r->err, "%.160s was not made on a GPU (its backend is not cuda or recorded)", path);
    cJSON_Delete(r->env);
    r->env = NULL;
  }
  return r;
}

const cJSON *claims_recorded_env(const char *dir, const char *experiment, const cJSON *params, char *err, size_t n) {
  const recording *r = load(dir, experiment);
  if (!r) return snprintf(err, n, "more recordings than claimcheck keeps (MAX_RECORDINGS)"), NULL;
  if (!r->env) return snprintf(err, n, "%s", r->err), NULL;
  const lab_experiment *e = lab_experiment_find(experiment);
  lab_params want, got;
  lab_error le = {0};
  if (!e || lab_experiment_params(e, params, &want, &le))
    return snprintf(err, n, "the claim's run of %.40s does not validate", experiment), NULL;
  if (lab_experiment_params(e, cJSON_GetObjectItemCaseSensitive(r->env, "params"), &got, &le))
    return snprintf(err, n, "the recording of %.40s has parameters this gpulab refuses: %.120s", experiment,
                    le.message), NULL;
  /* view applies to the simulator only: a GPU run measures raw CUDA and
   * records view "cuda" whatever it was asked (lab/experiments/framework.h). */
  for (int i = 0; i < want.n; i++)
    if (want.v[i] != got.v[i] && strcmp(want.spec[i].name, "view"))
      return snprintf(err, n, "the run sets %.40s = %.6g; the recording of %.40s was made with %.6g",
                      want.spec[i].name, want.v[i], experiment, got.v[i]), NULL;
  return r->env;
}

void claims_recorded_free(void) {
  for (int i = 0; i < n_recs; i++) cJSON_Delete(recs[i].env);
  n_recs = 0;
}
