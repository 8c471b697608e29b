/* What the store's backends share (store_backend.h) and the spec helpers
 * every caller uses: the instructor overview assembled from a backend's
 * rows, the time stamps, and where a store setting points. Calls nothing
 * of the backends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "store_backend.h"

int srv_store_spec_is_pg(const char *spec) {
  return strncmp(spec, "postgresql://", 13) == 0 || strncmp(spec, "postgres://", 11) == 0;
}

void srv_store_where(const char *spec, char *out, size_t n) {
  if (!srv_store_spec_is_pg(spec)) {
    snprintf(out, n, "%s", strncmp(spec, "sqlite:", 7) == 0 ? spec + 7 : spec);
    return;
  }
  /* scheme://[user[:password]@]host… : the password never goes into a message */
  const char *auth = strstr(spec, "://") + 3, *at = strchr(auth, '@'), *slash = strchr(auth, '/');
  const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
  if (at && (!slash || at < slash) && colon)
    snprintf(out, n, "%.*s:***%s", (int)(colon - spec), spec, at);
  else
    snprintf(out, n, "%s", spec);
  char *q = strchr(out, '?'); /* options may carry a password too */
  if (q) *q = 0;
}

static cJSON *learner_entry(cJSON **by_id, int n, double id) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    double v = cJSON_GetObjectItemCaseSensitive(by_id[mid], "id")->valuedouble;
    if (v == id) return by_id[mid];
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}

/* Adds one lesson's summary to its learner's quiz: attempts and last_at grow. */
static void add_lesson(cJSON *home, cJSON *lesson) {
  cJSON *quiz = cJSON_GetObjectItemCaseSensitive(home, "quiz");
  cJSON *count = cJSON_GetObjectItemCaseSensitive(quiz, "attempts");
  cJSON *last = cJSON_GetObjectItemCaseSensitive(quiz, "last_at");
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(lesson, "last_at");
  cJSON_SetNumberValue(count, count->valuedouble + cJSON_GetObjectItemCaseSensitive(lesson, "attempts")->valuedouble);
  /* ISO 8601 UTC of one format: later sorts later */
  if (cJSON_IsString(at) && (!cJSON_IsString(last) || strcmp(at->valuestring, last->valuestring) > 0)) {
    cJSON *copy = cJSON_CreateString(at->valuestring);
    if (copy) cJSON_ReplaceItemInObjectCaseSensitive(quiz, "last_at", copy);
  }
  if (!cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(quiz, "lessons"), lesson)) cJSON_Delete(lesson);
}

int srv_store_overview_assemble(cJSON *learners, cJSON *quiz, cJSON *waiting, cJSON **out, lab_error *err) {
  int n = cJSON_GetArraySize(learners);
  cJSON **by_id = n > 0 ? malloc((size_t)n * sizeof *by_id) : NULL;
  cJSON *l, *a;
  int i = 0;
  cJSON_ArrayForEach(l, learners) if (by_id) by_id[i++] = l;
  while ((a = cJSON_DetachItemFromArray(quiz, 0)) != NULL) {
    double lid = cJSON_GetObjectItemCaseSensitive(a, "learner_id")->valuedouble;
    cJSON *home = by_id ? learner_entry(by_id, n, lid) : NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(a, "learner_id");
    if (home) add_lesson(home, a);
    else cJSON_Delete(a);
  }
  free(by_id);
  cJSON_Delete(quiz);
  cJSON *o = cJSON_CreateObject();
  if (o && cJSON_AddItemToObject(o, "learners", learners)) learners = NULL;
  if (o && !learners && cJSON_AddItemToObject(o, "waiting", waiting)) waiting = NULL;
  if (learners || waiting || (n > 0 && !by_id)) {
    cJSON_Delete(learners);
    cJSON_Delete(waiting);
    cJSON_Delete(o);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  *out = o;
  return 0;
}

int srv_store_learner_runs(cJSON *entry, const double counts[6], double live, double total) {
  static const char *const names[] = {"total", "queued", "running", "done", "failed", "cancelled"};
  cJSON *runs = cJSON_CreateObject(), *sessions = NULL, *quiz = NULL;
  for (int i = 0; runs && i < 6; i++)
    if (!cJSON_AddNumberToObject(runs, names[i], counts[i])) {
      cJSON_Delete(runs);
      runs = NULL;
    }
  if (!runs || !cJSON_AddItemToObject(entry, "runs", runs)) {
    cJSON_Delete(runs);
    return -1;
  }
  return (sessions = cJSON_AddObjectToObject(entry, "sessions")) && cJSON_AddNumberToObject(sessions, "live", live) &&
                 cJSON_AddNumberToObject(sessions, "total", total) &&
                 (quiz = cJSON_AddObjectToObject(entry, "quiz")) && cJSON_AddNumberToObject(quiz, "attempts", 0) &&
                 cJSON_AddNullToObject(quiz, "last_at") && cJSON_AddArrayToObject(quiz, "lessons")
             ? 0
             : -1;
}

int64_t srv_store_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void srv_store_time_iso(int64_t ms, char out[32]) {
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  char day[24];
  if (ms < 0 || !gmtime_r(&t, &tm)) {
    snprintf(out, 32, "1970-01-01T00:00:00.000Z");
    return;
  }
  strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out, 32, "%.19s.%03dZ", day, (int)(ms % 1000));
}
