/* GET /api/lessons (the index), GET /api/lessons/ID (a public bundle, no
 * answer key), both compiled at build time into the web root, and
 * POST /api/lessons/ID/quiz: an attempt scored against the server-only key. */
#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cjson_compat.h"
#include "files.h"
#include "http.h"
#include "learner.h"
#include "quiz.h"
#include "session.h"

#define MAX_BUNDLE_BYTES (4 * 1024 * 1024)

static int valid_id(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n > 64) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') || id[i] == '-')) return 0;
  return 1;
}

static int send_file_json(struct mg_connection *conn, const char *path, const char *id) {
  char *text = NULL;
  size_t len = 0;
  if (srv_read_file(path, MAX_BUNDLE_BYTES, &text, &len) != 0)
    return srv_send_fail(conn, LAB_E_UNKNOWN_LESSON, "id", "no lesson '%.64s'; GET /api/lessons lists them", id);
  cJSON *json = cJSON_ParseWithLength(text, len);
  free(text);
  if (!json) return srv_send_fail(conn, LAB_E_INTERNAL, NULL, "the lesson bundle is damaged; rebuild with 'make'");
  int rc = srv_send_json(conn, 200, json);
  cJSON_Delete(json);
  return rc;
}

/* class mode: keeps a scored attempt (score, pass, the answers given),
 * counted against the learner's attempts per minute first: a refused one
 * gets no score either, so the limit also slows a search of the key. */
static int store_attempt(srv_app *app, const srv_store_session *sess, const char *lesson, const cJSON *answers,
                         const cJSON *result, double *retry_after_s, lab_error *err) {
  int64_t ticket = 0;
  if (srv_learner_quiz_admit(app->cls->store, sess->learner_id, &ticket, retry_after_s, err) != 0) return -1;
  char *given = cJSON_PrintUnformatted(answers);
  if (!given) {
    srv_learner_quiz_undo(app->cls->store, ticket);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  int rc = srv_store_quiz_add(app->cls->store, sess->id, lesson,
                              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "score")),
                              cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "total")),
                              cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "passed")), given, err);
  cJSON_free(given);
  if (rc != 0) srv_learner_quiz_undo(app->cls->store, ticket); /* not stored: not counted */
  return rc;
}

static int score_quiz(struct mg_connection *conn, srv_app *app, const char *id) {
  char path[4400], *text = NULL;
  size_t len = 0;
  lab_error err = {0};
  double retry = 0;
  cJSON *key = NULL, *body = NULL, *result = NULL;
  int rc;
  srv_store_session sess = {0};
  /* class mode: an attempt belongs to a session and is kept with it */
  if (app->cls && srv_session_require(conn, app->cls, &sess, &err) != 0) goto fail;
  snprintf(path, sizeof path, "%s/%s.key.json", app->lesson_keys, id);
  if (srv_read_file(path, MAX_BUNDLE_BYTES, &text, &len) != 0) {
    lab_fail(&err, LAB_E_UNKNOWN_LESSON, "id", "no quiz for lesson '%.64s'; GET /api/lessons lists them", id);
    goto fail;
  }
  if (!(key = cJSON_ParseWithLength(text, len))) {
    lab_fail(&err, LAB_E_INTERNAL, NULL, "the answer key is damaged; rebuild with 'make'");
    goto fail;
  }
  static const char *const fields[] = {"answers", NULL};
  if (srv_read_json_object(conn, app->max_body_bytes, fields, 0, "{\"answers\":{\"q1\":[\"b\"]}}", &body, &err))
    goto fail;
  const cJSON *answers = cJSON_GetObjectItemCaseSensitive(body, "answers");
  if (!cJSON_IsObject(answers)) {
    lab_fail(&err, LAB_E_INVALID_PARAM, "answers", "answers must be an object of question id: [option ids]");
    goto fail;
  }
  if (lab_quiz_score(key, answers, &result, &err) != 0) goto fail;
  if (app->cls && store_attempt(app, &sess, id, answers, result, &retry, &err) != 0) goto fail; /* class mode */
  rc = srv_send_json(conn, 200, result);
  goto done;
fail:
  rc = srv_send_error_retry(conn, &err, retry);
done:
  cJSON_Delete(result);
  cJSON_Delete(body);
  cJSON_Delete(key);
  free(text);
  return rc;
}

int srv_api_lessons(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  const char *rest = mg_get_request_info(conn)->local_uri + strlen("/api/lessons");
  char path[4400];
  if (*rest == 0) {
    if (!srv_method_ok(conn, "GET,HEAD")) return 405;
    snprintf(path, sizeof path, "%s/lessons/index.json", app->web_root);
    return send_file_json(conn, path, "index");
  }
  if (*rest != '/') return srv_api_not_found(conn, cbdata);
  char id[80];
  snprintf(id, sizeof id, "%.79s", rest + 1);
  char *quiz = strstr(id, "/quiz");
  if (quiz && strcmp(quiz, "/quiz") == 0) {
    *quiz = 0;
    if (!valid_id(id))
      return srv_send_fail(conn, LAB_E_UNKNOWN_LESSON, "id", "no lesson '%.64s'; GET /api/lessons lists them", id);
    if (!srv_method_ok(conn, "POST")) return 405;
    return score_quiz(conn, app, id);
  }
  if (!valid_id(id))
    return srv_send_fail(conn, LAB_E_UNKNOWN_LESSON, "id",
                         "lesson ids are 1 to 64 lower-case letters, digits and '-'; GET /api/lessons lists them");
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  snprintf(path, sizeof path, "%s/lessons/%s.json", app->web_root, id);
  return send_file_json(conn, path, id);
}
