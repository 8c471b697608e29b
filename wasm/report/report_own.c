/* The report's "Your own GPU" section (report_own.h): the comparison the
 * page made of the learner's kit run, as Markdown. Every text from the
 * file is escaped (a device name could otherwise become Markdown); an
 * impossible figure is written as flagged, with its cause, never as a
 * measurement. */
#include "report_own.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "own_run.h"
#include "registry.h"
#include "report_parts.h"

static void figures(ui_buf *b, const cJSON *e) {
  const cJSON *f;
  char m[64], p[64];
  double r;
  ui_buf_raw(b, "| Figure | Your run | Predicted | Ratio | Physically possible? |\n|---|---|---|---|---|\n");
  cJSON_ArrayForEach(f, ui_json_arr(e, "figures")) {
    int plausible = ui_json_bool(f, "plausible");
    ui_buf_raw(b, "| ");
    ui_report_md(b, ui_json_text(f, "metric")); /* escaped, not in a code span: the name comes from the file */
    ui_buf_raw(b, " | ");
    ui_report_md(b, ui_own_figure_value(f, "measured", m, sizeof m));
    if (plausible == 0) ui_buf_raw(b, " (flagged)");
    ui_buf_raw(b, " | ");
    ui_report_md(b, ui_own_figure_value(f, "predicted", p, sizeof p));
    if (ui_json_num(f, "ratio", &r)) ui_buf_rawf(b, " | %.2f× | ", r);
    else ui_buf_raw(b, " | — | ");
    ui_buf_raw(b, plausible == 0 ? "**no**: " : plausible == 1 ? "yes" : "not checked");
    if (plausible == 0) ui_report_md(b, ui_json_text(f, "reason"));
    ui_buf_raw(b, " |\n");
  }
  ui_buf_raw(b, "\n");
}

void ui_report_own_run(ui_buf *b, const cJSON *own) {
  const cJSON *run = ui_json_obj(own, "run"), *prof = ui_json_obj(own, "profile"), *e, *c;
  char label[300];
  double bad = 0;
  if (!run) return;
  ui_buf_raw(b, "## Your own GPU (the measurement kit)\n\nSource: **");
  ui_report_md(b, ui_own_run_label(run, label, sizeof label));
  ui_buf_raw(b, "**, measured ");
  ui_report_md(b, ui_json_str(run, "date") ? ui_json_text(run, "date") : "on an unknown date");
  ui_buf_raw(b, " with the measurement kit and brought back to the page; beside the simulator's prediction for **");
  ui_report_md(b, ui_json_str(prof, "label") ? ui_json_text(prof, "label") : ui_json_text(prof, "name"));
  ui_buf_raw(b, "** (");
  ui_report_md(b, ui_json_text(prof, "how"));
  ui_buf_raw(b, ").\n\n");
  if (ui_json_num(own, "implausible", &bad) && bad >= 1)
    ui_buf_rawf(b, "**%.0f figure%s physically impossible on this device**: flagged below with the likely cause; "
                   "not a measurement.\n\n", bad, bad < 2 ? " is" : "s are");
  cJSON_ArrayForEach(e, ui_json_arr(own, "experiments")) {
    const lab_experiment *x = lab_experiment_find(ui_json_text(e, "experiment"));
    if (!x || !cJSON_GetArraySize(ui_json_arr(e, "figures"))) continue;
    ui_buf_raw(b, "### ");
    ui_report_md(b, x->title);
    ui_buf_rawf(b, " (`%s`)\n\n", x->name);
    if (ui_json_str(e, "note")) {
      ui_report_md(b, ui_json_text(e, "note"));
      ui_buf_raw(b, ".\n\n");
    }
    figures(b, e);
  }
  if (cJSON_GetArraySize(ui_json_arr(own, "claims"))) {
    ui_buf_raw(b, "### The lessons' claims on your numbers\n\n");
    cJSON_ArrayForEach(c, ui_json_arr(own, "claims")) {
      int holds = ui_json_bool(c, "holds") == 1;
      ui_buf_raw(b, holds ? "- holds: \"" : "- does **not** hold: \"");
      ui_report_md(b, ui_json_text(c, "quote"));
      ui_buf_raw(b, "\" (");
      ui_report_md(b, holds ? ui_json_text(c, "numbers") : ui_json_text(c, "why"));
      ui_buf_raw(b, ")\n");
    }
    ui_buf_raw(b, "\n");
  } else if (ui_json_str(own, "claims_note")) {
    ui_buf_raw(b, "The lessons' claims: ");
    ui_report_md(b, ui_json_text(own, "claims_note"));
    ui_buf_raw(b, ".\n\n");
  }
}
