/* The learner's lab report as Markdown. Lesson 1: the device check (driver
 * view vs runtime view and the verdict), a timing run with and without
 * synchronization, the memory terms that can end in out-of-memory. Lesson 2:
 * the device check and the learner's last run of each of its experiments.
 * Every lesson: the quiz result, the date, and where every figure came from
 * (live / recorded / simulated + profile). Plain C, so the report is
 * unit-tested natively. */
#ifndef UI_VIEW_REPORT_H
#define UI_VIEW_REPORT_H

#include "cjson_compat.h"
#include "device.h"
#include "html.h"
#include "progress.h"

typedef struct ui_report_input {
  const cJSON *lesson;               /* the bundle: id, title, which section runs which experiment */
  const char *date;                 /* "2026-11-22 15:04 UTC" */
  const char *version;              /* gpulab version, or NULL when unknown (offline) */
  const ui_device_state *device;    /* views NULL: the check has not finished */
  const cJSON *timing;              /* the learner's last timing envelope, or NULL */
  const cJSON *memory;              /* the learner's last memory envelope, or NULL */
  const cJSON *memory_default;      /* the lesson's default memory run, simulated in the browser */
  const ui_progress *progress;      /* the quiz's best and last attempt */
  const cJSON *runs;                /* lesson 2 on: {"NAME": the learner's last NAME envelope, …}, or NULL */
} ui_report_input;

/* Appends the report. Every outside string is escaped for Markdown. */
void ui_report_markdown(ui_buf *b, const ui_report_input *in);

/* Where an envelope's figures come from, in words: "live (NVIDIA H100 …)",
 * "recorded on NVIDIA A100 … (2026-01-05)", "simulated (profile: h100-sxm)". */
const char *ui_report_source(const cJSON *env, char *out, int n);

/* "gpulab-report-LESSON-YYYY-MM-DD.md" from the lesson id and the date. */
const char *ui_report_filename(const char *lesson_id, const char *date, char *out, int n);

#endif
