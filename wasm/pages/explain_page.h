/* The "Paste your error" page (#explain): a text box read in the browser
 * by lab/explain/explain.h (the same C as `gpulab explain`, compiled into the
 * reader module and run in its Web Worker; the text never leaves the
 * page), and each message explained: the memory bar
 * of an OOM, the diagnosis, the steps, the lesson section, and the
 * experiment opened in place with the parameters read from the text. */
#ifndef UI_EXPLAIN_PAGE_H
#define UI_EXPLAIN_PAGE_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "gpu_panel.h"
#include "html.h"

/* Draws the page into the element "lesson" (dev: unused; the experiments open on the workbench, #lab/NAME);
 * "#explain?text=…" (percent-encoded) puts that text in the box and explains it at once. */
void ui_explain_show(const char *hash, const ui_device_state *dev, bool focus);
/* Handles "explain-run"; false for other actions. */
bool ui_explain_action(const char *action, const char *arg);
/* The answer's markup for one envelope of lab_explain (or its error). */
void ui_render_explain_items(ui_buf *b, const cJSON *env);
/* The markup for the reader worker's answer (bridge.h, ui_explain_text):
 * status 200 and lab_explain's JSON, 400/413 and its {"error":…}, or 0
 * (the worker did not run: an alert that says so). */
void ui_render_explain_answer(ui_buf *b, int status, const char *text, size_t len);
/* The OOM bar of item i as an SVG with its labelled parts. */
void ui_render_explain_bar(ui_buf *b, const cJSON *bar, int i);
/* Frees what the page holds. */
void ui_explain_shutdown(void);

#endif
