/* The experiment widget that replaces a lesson's placeholder
 * (<div class="experiment" data-experiment="NAME">): title and summary from
 * the registry, one labelled control per parameter, the backend/profile
 * picker, a Run button and the result. This file draws it and validates
 * what the learner typed with lab/face/params.c; experiment_run.c drives it. */
#ifndef UI_EXPERIMENT_H
#define UI_EXPERIMENT_H

#include <stdbool.h>

#include "gpu_panel.h"
#include "html.h"
#include "registry.h"

#define UI_EXP_TEXT_MAX 48

typedef struct ui_exp_widget {
  const lab_experiment *e;
  char text[LAB_MAX_PARAMS][UI_EXP_TEXT_MAX]; /* each control's value as typed ("1"/"0" for a checkbox) */
  char error[LAB_MAX_PARAMS][320];            /* per-parameter message, "" when valid */
  char target[32];                            /* "auto", a profile name, or "recorded" */
  bool running;
  const cJSON *result; /* the envelope shown, or NULL */
  bool in_browser;     /* the result was computed by the in-browser simulator */
  const char *note;    /* why it ran somewhere else than asked, or NULL */
  const char *failure; /* why the run gave no result, or NULL */
  bool not_applicable; /* the failure: the experiment has no meaning on the profile picked (an Apple GPU's copies) */
  /* "recorded on DEVICE, DATE" when web/recorded/ holds a real GPU run of
   * this experiment (make record), else NULL: the picker then offers it. */
  const char *recorded_label;
} ui_exp_widget;

/* Default values, target "auto", nothing run yet. */
void ui_exp_widget_init(ui_exp_widget *w, const lab_experiment *e);
/* true when the server's GPU can run experiments (from the device check). */
bool ui_exp_gpu_usable(const ui_device_state *dev);

/* The picker's "auto" choice and its help line, which depend on the device check. */
const char *ui_exp_auto_label(const ui_device_state *dev, char *buf, size_t n);
const char *ui_exp_target_help(const ui_device_state *dev);

/* Validates every parameter's text (each on its own, so every bad field
 * gets its message); returns how many are invalid. On 0, *params is the
 * normalised JSON object (caller owns; what a request to the server sends)
 * and *checked (when not NULL) the checked values, which a simulation in
 * the browser takes as they are (lab_simulate_checked). */
int ui_exp_validate(ui_exp_widget *w, cJSON **params, lab_params *checked);
/* Records an error the run reported (err->param names a field, or none). */
void ui_exp_set_error(ui_exp_widget *w, const lab_error *err);

/* Element ids, all "exp-NAME-…": the widget's parts that change alone. */
void ui_exp_id(char *buf, size_t n, const lab_experiment *e, const char *part);
void ui_exp_field_id(char *buf, size_t n, const lab_experiment *e, const lab_param_spec *s);

/* The whole widget; dev may be NULL (no device check yet). */
void ui_render_experiment_widget(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev);
/* The controls alone (re-drawn with their errors after a failed check). */
void ui_render_experiment_fields(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev);
/* The "Run on" picker's inside (element "exp-NAME-picker"), re-drawn alone
 * when a recorded run turns up after the widget was drawn. */
void ui_render_experiment_picker(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev);
/* The result area: the hint before a run, the failure, or the result. */
void ui_render_experiment_output(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev);
/* A placeholder naming an experiment this build does not have. */
void ui_render_experiment_unknown(ui_buf *b, const char *name);
/* A fresh widget for name (unchecked text), or the "unknown" card. */
void ui_render_experiment_card(ui_buf *b, const char *name, const ui_device_state *device);

/* The workbench's link to ex (wasm/pages/workbench.h), "#lab/NAME", with
 * "?k=v&…" for the numbers and booleans of params that ex takes (the page
 * fills its fields from them). Returns 1 when it carries any, 0 for the
 * bare "#lab/NAME" (also when they would not fit in n). */
int ui_exp_workbench_href(const lab_experiment *ex, const cJSON *params, char *out, size_t n);

#endif
