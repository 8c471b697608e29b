/* A result envelope's timeline as a Chrome Trace Event Format file, the JSON
 * that ui.perfetto.dev and chrome://tracing open (docs/trace.md). Portable C:
 * the CLI, the server and the page (wasm) build the same file. */
#ifndef LAB_TRACE_EXPORT_H
#define LAB_TRACE_EXPORT_H

#include "error.h"

/* Whether env has anything to draw (a timeline span or a memory counter). */
int lab_trace_has_timeline(const cJSON *env);

/* The trace of env: {"traceEvents": [...], "displayTimeUnit": "ms",
 * "otherData": {...}}. version and date (ISO 8601, UTC) go in otherData
 * and may be NULL (left out). The caller owns the result (cJSON_Delete).
 * An envelope with nothing to draw gives a trace of its metadata alone.
 * NULL with err set when env is no envelope (LAB_E_INTERNAL) or memory
 * runs out (LAB_E_NOMEM). */
cJSON *lab_trace_from_envelope(const cJSON *env, const char *version, const char *date, lab_error *err);

#endif
