/* The reader module's second entry point: "Paste your error" (#explain).
 * The UI module (wasm/pages/explain_page.c) posts the pasted text to the
 * reader's worker (web/reader_worker.js), which calls gpulab_explain here:
 * the same lab/explain/explain.h as `gpulab explain`, kept out of the first
 * screen's module (it is 13 KB of brotli that only #explain needs). */
#include <emscripten.h>
#include <stdlib.h>

#include "cjson_compat.h"
#include "explain.h"

static char *answer; /* the last answer's or error's JSON text */

/* text[0..n) explained: 200, or the HTTP status of its error; the JSON
 * (lab_explain's envelope or lab_error_json's) is then gpulab_explain_text. */
EMSCRIPTEN_KEEPALIVE int gpulab_explain(const char *text, int n) {
  lab_error err = {0};
  cJSON *env = n >= 0 ? lab_explain(text, (size_t)n, &err) : NULL;
  if (n < 0) lab_fail(&err, LAB_E_EXPLAIN_TOO_LARGE, NULL, NULL);
  free(answer);
  answer = env ? cJSON_PrintUnformatted(env) : NULL;
  if (env && !answer) lab_fail(&err, LAB_E_NOMEM, NULL, NULL);
  cJSON_Delete(env);
  if (answer) return 200;
  cJSON *e = lab_error_json(&err);
  answer = e ? cJSON_PrintUnformatted(e) : NULL;
  cJSON_Delete(e);
  return lab_err_http_status(err.code);
}

EMSCRIPTEN_KEEPALIVE const char *gpulab_explain_text(void) { return answer ? answer : ""; }
