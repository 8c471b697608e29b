/* An experiment's result, whoever produced it: the source label (live,
 * recorded or simulated, and where), how it was measured, one chart kind
 * per experiment with its numbers as a table, and the findings. */
#ifndef UI_RESULT_H
#define UI_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "cjson_compat.h"
#include "html.h"

/* "live on NVIDIA H100 80GB HBM3", "recorded on <device>, <date>" or
 * "simulated — profile T4 (in your browser)"; in_browser says where a
 * simulated envelope was computed. Returns buf. */
const char *ui_result_source(const cJSON *env, bool in_browser, char *buf, size_t n);
/* The label of a measurement kit run (backend "pytorch": "your run: Tesla T4,
 * PyTorch 2.5.1, Colab"), or of one kept as a recording (rec: its
 * "recorded" object: "recorded with the measurement kit, PyTorch …, on …,
 * DATE"), from the envelope's "measured_with". */
const char *ui_result_kit_source(const cJSON *env, const cJSON *rec, char *buf, size_t n);
/* The whole result; note (may be NULL) says why it did not run where asked. */
void ui_render_result(ui_buf *b, const cJSON *env, bool in_browser, const char *note);

#endif
