/* POST /api/plan: the training planner (lab/plan/plan.h) on a JSON body of
 * settings (a preset or a pasted config.json, the training fields, a
 * profile) of at most 64 KiB, as a reader run (reader_run.h: bounded
 * uploads, a slot, a 30 s deadline, the CPU budget; class mode: a session,
 * charged like a simulated run). Answers the same JSON as
 * `gpulab plan --json`; nothing is stored. */
#include "api.h"
#include "json.h"
#include "plan.h"
#include "reader_run.h"

static cJSON *read_settings(srv_reader_input *in, lab_error *err) {
  const char *text;
  size_t len;
  if (srv_reader_whole(in, &text, &len, err) != 0) return NULL;
  cJSON *req = lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL);
  if (!cJSON_IsObject(req)) {
    cJSON_Delete(req);
    lab_fail(err, LAB_E_INVALID_JSON, "body", "the body must be a JSON object of settings (docs/plan.md), e.g. {\"preset\":\"gpt2-124m\",\"batch\":8}");
    return NULL;
  }
  cJSON *answer = lab_plan(req, err);
  cJSON_Delete(req);
  return answer;
}

static const char *const types[] = {"application/json", NULL};
static const srv_reader_route plan_route = {
    .what = "settings",
    .page = "#plan",
    .types = types,
    .types_text = "application/json",
    .type_required = 1,
    .max_body_bytes = LAB_PLAN_MAX_BYTES,
    .too_large = LAB_E_BODY_TOO_LARGE,
    .deadline_s = 30,
    .read = read_settings,
};

int srv_api_plan(struct mg_connection *conn, void *app) { return srv_reader_run(conn, app, &plan_route); }
