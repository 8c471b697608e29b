/* A learner's own measurement kit run beside the simulator's prediction
 * (the page #yours; docs/measure.md): where it ran, each experiment's
 * headline figures measured and predicted with their ratio and physical
 * check, the run drawn by the experiment's own renderer beside the
 * prediction drawn the same way, a figure the device cannot produce flagged
 * with its likely cause (and the run's chart then folded away as what the
 * file claims, never shown as a measurement), the captured error messages
 * with a link into #explain, what was skipped, and the lessons' claims
 * checked on the learner's numbers; a plan run (own_plan.h) beside its
 * plan. Plain C: the unit tests draw it. */
#ifndef UI_OWN_RUN_H
#define UI_OWN_RUN_H

#include <stddef.h>

#include "cjson_compat.h"
#include "html.h"

/* answer: {"kit": the file as read, "compare": lab_compare's report with
 * each experiment's "prediction"} (wasm/sim/kit_run.h). */
void ui_render_own_run(ui_buf *b, const cJSON *answer);

/* "your run: Tesla T4, PyTorch 2.5.1+cu121, Colab" from a comparison's
 * "run" (its device, kind, torch and platform). Returns buf. */
const char *ui_own_run_label(const cJSON *run, char *buf, size_t n);

/* A figure's value ("measured" or "predicted") with its unit: "12.1 GB/s",
 * "1.07 GB", "—" when absent. Returns out. */
const char *ui_own_figure_value(const cJSON *figure, const char *key, char *out, size_t n);


#endif
