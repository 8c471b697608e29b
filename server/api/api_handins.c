/* POST /api/handins: a learner hands in a measurement kit run (class mode;
 * the file kit/measure.py wrote, application/json, at most 1 MiB) as a
 * reader run (reader_run.h: bounded uploads, a slot, a 60 s deadline, the
 * CPU budget, the session). The file is read as untrusted input by
 * lab/compare/ (kit_file.h), summarised without simulating anything
 * (compare.h: the physical check of each headline figure), and stored with
 * its summary in the class's store: the learner's newest three are kept,
 * a new one replacing the oldest. It is never executed. GET /api/handins:
 * the learner's own, newest first. The instructor's view of them is
 * GET /api/instructor/handins (api_instructor.c). */
#include <civetweb.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "class.h"
#include "compare.h"
#include "http.h"
#include "kit_file.h"
#include "reader_run.h"
#include "session.h"

static cJSON *read_kit(srv_reader_input *in, lab_error *err) {
  const srv_store_session *sess = srv_reader_session(in);
  const char *text;
  size_t len;
  if (srv_reader_whole(in, &text, &len, err) != 0) return NULL;
  cJSON *kit = lab_kit_read(text, len, err), *summary = kit ? lab_compare_summary(kit) : NULL, *out = NULL, *h;
  char *kit_json = kit ? cJSON_PrintUnformatted(kit) : NULL, *summary_json = summary ? cJSON_PrintUnformatted(summary) : NULL;
  int64_t id = 0;
  long kept = 0;
  if (kit && (!summary || !kit_json || !summary_json)) lab_fail(err, LAB_E_NOMEM, NULL, "the server ran out of memory");
  else if (kit && srv_store_handin_add(srv_reader_app(in)->cls->store, sess->id, sess->learner_id, kit_json,
                                       summary_json, SRV_HANDINS_PER_LEARNER, &id, &kept, err) == 0 &&
           (out = cJSON_CreateObject()) && (h = cJSON_AddObjectToObject(out, "handin"))) {
    cJSON_AddNumberToObject(h, "id", (double)id);
    cJSON_AddNumberToObject(h, "kept", (double)kept);
    cJSON_AddNumberToObject(h, "keep", SRV_HANDINS_PER_LEARNER);
    cJSON_AddItemToObject(out, "summary", summary);
    summary = NULL;
  }
  free(kit_json);
  free(summary_json);
  cJSON_Delete(kit);
  cJSON_Delete(summary);
  return out;
}

static const char *const types[] = {"application/json", NULL};
static const srv_reader_route handin_route = {
    .what = "kit file",
    .page = "#yours",
    .types = types,
    .types_text = "application/json",
    .type_required = 1,
    .max_body_bytes = LAB_KIT_MAX_BYTES,
    .too_large = LAB_E_KIT_TOO_LARGE,
    .deadline_s = 60,
    .ok_status = 201,
    .read = read_kit,
};

/* {"handins":[{"id","at","summary"}],"keep":3}: the learner's own. */
static int mine(struct mg_connection *conn, srv_app *app) {
  lab_error err = {0};
  srv_store_session sess = {0};
  cJSON *list = NULL, *out;
  if (srv_session_require(conn, app->cls, &sess, &err) != 0 ||
      srv_store_handins_mine(app->cls->store, sess.learner_id, &list, &err) != 0)
    return srv_send_error(conn, &err);
  if (!(out = cJSON_CreateObject()) || !cJSON_AddItemToObject(out, "handins", list) ||
      !cJSON_AddNumberToObject(out, "keep", SRV_HANDINS_PER_LEARNER)) {
    if (!out || !cJSON_GetObjectItemCaseSensitive(out, "handins")) cJSON_Delete(list);
    cJSON_Delete(out);
    return srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  }
  int rc = srv_send_json(conn, 200, out);
  cJSON_Delete(out);
  return rc;
}

int srv_api_handins(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!app->cls) return srv_class_not_running(conn);
  if (strcmp(mg_get_request_info(conn)->local_uri, "/api/handins") != 0) return srv_api_not_found(conn, cbdata);
  if (!srv_method_ok(conn, "GET,POST")) return 405;
  if (!strcmp(mg_get_request_info(conn)->request_method, "GET")) return mine(conn, app);
  return srv_reader_run(conn, app, &handin_route);
}
