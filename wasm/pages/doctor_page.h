/* The "Read your profile" page (#doctor): a drop zone and a file picker for
 * a PyTorch profiler trace, read in the browser by the doctor module (the
 * same lab/doctor/ C as `gpulab doctor`, in a Web Worker; the file is never
 * uploaded), a progress bar with a cancel button, then the answer: the
 * trace's summary, the steps, the step timeline when the answer has one,
 * and the findings, each with its lesson section and its experiment opened
 * in place with the trace's parameters. */
#ifndef UI_DOCTOR_PAGE_H
#define UI_DOCTOR_PAGE_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "gpu_panel.h"
#include "html.h"

/* Draws the page into the element "lesson"; dev must outlive the page (its experiments' widgets). */
void ui_doctor_show(const char *hash, const ui_device_state *dev, bool focus);
/* Handles "doctor-cancel" and "doctor-open" (arg: the finding's index); false for other actions. */
bool ui_doctor_action(const char *action, const char *arg);
/* The answer's markup: the doctor's envelope, or its {"error":…}. */
void ui_render_doctor_answer(ui_buf *b, const cJSON *env);
/* Stops a read under way and frees what the page holds. */
void ui_doctor_shutdown(void);

#endif
