/* POST /api/explain: the explainer (lab/explain/explain.h) on a text/plain body of
 * at most 256 KiB, as a reader run (reader_run.h: bounded uploads, a slot,
 * a 60 s deadline, the CPU budget). The text is read, explained and
 * dropped: never stored, never logged. Answers the same envelope as
 * `gpulab explain --json`. */
#include "api.h"
#include "explain.h"
#include "reader_run.h"

static cJSON *read_paste(srv_reader_input *in, lab_error *err) {
  const char *text;
  size_t len;
  return srv_reader_whole(in, &text, &len, err) != 0 ? NULL : lab_explain(text, len, err);
}

static const char *const types[] = {"text/plain", NULL};
static const srv_reader_route explain_route = {
    .what = "paste",
    .page = "#explain",
    .types = types,
    .types_text = "text/plain",
    .type_required = 0,
    .max_body_bytes = LAB_EXPLAIN_MAX_BYTES,
    .too_large = LAB_E_EXPLAIN_TOO_LARGE,
    .deadline_s = 60,
    .read = read_paste,
};

int srv_api_explain(struct mg_connection *conn, void *app) { return srv_reader_run(conn, app, &explain_route); }
