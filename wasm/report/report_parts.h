/* The pieces of the lab report that every lesson's report shares
 * (report_parts.c), and what a report is built from. Used by report.c
 * (the frame and lesson 1's sections) and report_generic.c (every other
 * lesson's); includes neither. */
#ifndef UI_REPORT_PARTS_H
#define UI_REPORT_PARTS_H

#include "cjson_compat.h"
#include "gpu_panel.h"
#include "html.h"
#include "progress.h"

typedef struct ui_report_input {
  const cJSON *lesson;               /* the bundle: id, title, which section runs which experiment */
  const char *date;                 /* "2026-11-22 15:04 UTC" */
  const char *version;              /* gpulab version, or NULL when unknown (offline) */
  const ui_device_state *device;    /* views NULL: the check has not finished */
  const ui_progress *progress;      /* the quiz's best and last attempt */
  const cJSON *runs;                /* {"NAME": the learner's last NAME envelope, …}, or NULL */
  /* The experiment the report quotes at its defaults when the learner has
   * no run of it (ui_report_default_experiment), simulated in the browser;
   * NULL when there is none or it could not run. */
  const cJSON *default_run;
  /* The learner's own kit run as the page (#yours) compared it (report.h,
   * UI_STORE_OWN_RUN), or NULL: every lesson's report ends with it. */
  const cJSON *own_run;
} ui_report_input;

/* The learner's last run of name in in->runs (an envelope of that
 * experiment with metrics), or NULL. */
const cJSON *ui_report_run(const ui_report_input *in, const char *name);
/* Where an envelope's figures come from, in words: "live (NVIDIA H100 …)",
 * "recorded on NVIDIA A100 … (2026-01-05)", "simulated (profile: h100-sxm)". */
const char *ui_report_source(const cJSON *env, char *out, int n);
/* "; measured for real in your browser (…): LABEL" for each series of env
 * with a "source" (docs/architecture.md), nothing when there is none. */
void ui_report_real_series(ui_buf *b, const cJSON *env);
/* A note when the runs of one report (n envelopes, NULL ones skipped) come
 * from different profiles or sources, so a reader does not compare them
 * as one machine's numbers. */
void ui_report_mixed_note(ui_buf *b, const cJSON *const *envs, int n);

/* Appends s with Markdown punctuation backslash-escaped, line breaks as spaces. */
void ui_report_md(ui_buf *b, const char *s);
/* The title of the lesson section that runs experiment `name`, or NULL. */
const char *ui_report_section_for(const cJSON *lesson, const char *name);
/* "Run the **NAME** experiment (section "…"), then download this report again." */
void ui_report_run_hint(ui_buf *b, const cJSON *lesson, const char *name);
/* "HEADING" and a Markdown bullet per string of items; nothing when empty. */
void ui_report_list(ui_buf *b, const char *heading, const cJSON *items);
/* The envelope's findings as a list, or nothing when it has none. */
void ui_report_findings(ui_buf *b, const cJSON *env);
/* "## 1. Device check …": both views and the verdict. */
void ui_report_device_section(ui_buf *b, const ui_device_state *d);
/* "## NUMBER. Quiz": best and last attempt. */
void ui_report_quiz_section(ui_buf *b, const ui_progress *p, int number);
/* The sources table: its heading and device row (start), its quiz row and
 * the legend (end); each lesson adds its own rows between them. */
void ui_report_sources_start(ui_buf *b, const ui_device_state *d);
void ui_report_sources_end(ui_buf *b, const ui_progress *p);

#endif
