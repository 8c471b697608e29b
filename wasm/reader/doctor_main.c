/* The reader module's entry points for the doctor (gpulab_reader.js and .wasm): the same
 * lab/doctor/doctor.h reader as `gpulab doctor`, run in a Web Worker
 * (web/reader_worker.js) that the page starts only when the learner gives
 * it a trace. The worker feeds the file's bytes as they stream in (it
 * inflates a .gz with the browser's DecompressionStream, so no zlib here);
 * one trace per worker. A call returns 0 or the HTTP status of its error,
 * whose {"error":…} JSON gpulab_doctor_text then holds. */
#include <emscripten.h>
#include <stdlib.h>

#include "cjson_compat.h"
#include "doctor.h"

static lab_doctor *doc;
static char *last; /* the answer's or the error's JSON text */

static int failed(const lab_error *err) {
  cJSON *e = lab_error_json(err);
  free(last);
  last = e ? cJSON_PrintUnformatted(e) : NULL;
  cJSON_Delete(e);
  lab_doctor_free(doc);
  doc = NULL;
  return lab_err_http_status(err->code);
}

EMSCRIPTEN_KEEPALIVE int gpulab_doctor_begin(void) {
  lab_error err = {0};
  lab_doctor_free(doc);
  free(last);
  last = NULL;
  doc = lab_doctor_new();
  if (doc) return 0;
  lab_fail(&err, LAB_E_NOMEM, NULL, "The browser gave the reader too little memory.");
  return failed(&err);
}

EMSCRIPTEN_KEEPALIVE int gpulab_doctor_feed(const char *buf, int n) {
  lab_error err = {0};
  if (!doc) return 0;
  if (n > 0 && lab_doctor_feed(doc, buf, (size_t)n, &err)) return failed(&err);
  return 0;
}

/* After each inflated chunk of a .gz: the gzip-bomb rule on the totals so far. */
EMSCRIPTEN_KEEPALIVE int gpulab_doctor_inflated(double in_bytes, double out_bytes) {
  lab_error err = {0};
  if (doc && lab_doctor_gzip_check(in_bytes, out_bytes, &err)) return failed(&err);
  return 0;
}

/* DecompressionStream refused the data: cut short, or damaged (why: its words). */
EMSCRIPTEN_KEEPALIVE int gpulab_doctor_gzip_failed(double in_bytes, int cut_short, const char *why) {
  lab_error err = {0};
  lab_doctor_gzip_fail(in_bytes, cut_short, why, &err);
  return failed(&err);
}

EMSCRIPTEN_KEEPALIVE int gpulab_doctor_end(void) {
  lab_error err = {0};
  if (!doc) return 0;
  cJSON *env = lab_doctor_finish(doc, &err);
  if (!env) return failed(&err);
  free(last);
  last = cJSON_PrintUnformatted(env);
  cJSON_Delete(env);
  lab_doctor_free(doc);
  doc = NULL;
  if (last) return 200;
  lab_fail(&err, LAB_E_NOMEM, NULL, NULL);
  return failed(&err);
}

EMSCRIPTEN_KEEPALIVE const char *gpulab_doctor_text(void) { return last ? last : ""; }
