/* The learner's own kit run beside the prediction (own_run.h): a table of
 * headline figures per experiment, then the run and the prediction each
 * drawn by the experiment's own renderer (result.c). A figure the physical
 * checks found impossible is flagged where it is read, and that run's
 * chart is folded into a <details> that says what it is: the file's claim,
 * not a measurement. */
#include "own_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "own_parts.h"
#include "own_plan.h"
#include "registry.h"
#include "result.h"

#define EXPLAIN_TEXT_MAX 4096 /* bytes of a message put into an #explain link (the kit keeps 4 KiB at most) */

const char *ui_own_run_label(const cJSON *run, char *buf, size_t n) {
  const char *kind = ui_json_text(run, "kind"), *platform = ui_json_str(run, "platform");
  int cpu = strcmp(kind, "cpu") == 0;
  snprintf(buf, n, "your run: %s%s, PyTorch %s%s%s", ui_json_str(run, "device") ? ui_json_text(run, "device") : "this machine",
           cpu ? " (no GPU: the CPU)" : "", ui_json_str(run, "torch") ? ui_json_text(run, "torch") : "?", platform ? ", " : "",
           platform ? platform : "");
  return buf;
}

/* "Open it in Paste your error": a link carrying the message. */
static void explain_link(ui_buf *b, const char *message) {
  ui_buf_raw(b, " <a class=\"own-explain\" href=\"");
  ui_own_explain_href(b, message, EXPLAIN_TEXT_MAX);
  ui_buf_raw(b, "\">Explain this message</a>");
}

const char *ui_own_figure_value(const cJSON *f, const char *key, char *out, size_t n) {
  double v;
  char t[32];
  const char *unit = ui_json_text(f, "unit");
  if (!ui_json_num(f, key, &v)) snprintf(out, n, "—");
  else if (!strcmp(unit, "bytes")) snprintf(out, n, "%s", ui_fmt_bytes(v, t));
  else snprintf(out, n, "%.3g%s%s", v, unit[0] && strcmp(unit, "%") ? " " : "", unit);
  return out;
}

static void value(ui_buf *b, const cJSON *f, const char *key) {
  char t[64];
  ui_buf_text(b, ui_own_figure_value(f, key, t, sizeof t));
}

/* The figures of one experiment: measured, predicted, ratio, physical check. */
static void figures_table(ui_buf *b, const cJSON *e, const char *profile) {
  const cJSON *f;
  double r;
  if (!cJSON_GetArraySize(ui_json_arr(e, "figures"))) return;
  /* The roles keep it a table for screen readers where a phone's style
   * lays each row out as a small card (web/style.css). */
  ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"own-figures\" role=\"table\"><caption>Your figures beside "
                "the prediction for ");
  ui_buf_text(b, profile);
  ui_buf_raw(b, "</caption><thead role=\"rowgroup\"><tr role=\"row\"><th scope=\"col\" role=\"columnheader\">figure</th>"
                "<th scope=\"col\" role=\"columnheader\">your run</th><th scope=\"col\" role=\"columnheader\">predicted"
                "</th><th scope=\"col\" role=\"columnheader\">ratio</th><th scope=\"col\" role=\"columnheader\">physically "
                "possible?</th></tr></thead><tbody role=\"rowgroup\">");
  cJSON_ArrayForEach(f, ui_json_arr(e, "figures")) {
    int plausible = ui_json_bool(f, "plausible");
    ui_buf_rawf(b, "<tr role=\"row\" class=\"%s\"><th scope=\"row\" role=\"rowheader\"><code>",
                plausible == 0 ? "own-flagged" : "own-ok");
    ui_buf_text(b, ui_json_text(f, "metric"));
    ui_buf_raw(b, "</code></th><td role=\"cell\" data-label=\"your run\">");
    value(b, f, "measured");
    ui_buf_raw(b, "</td><td role=\"cell\" data-label=\"predicted\">");
    value(b, f, "predicted");
    ui_buf_raw(b, "</td><td role=\"cell\" data-label=\"ratio\">");
    if (ui_json_num(f, "ratio", &r)) ui_buf_rawf(b, "%.2f×", r);
    else ui_buf_raw(b, "—");
    ui_buf_raw(b, "</td><td role=\"cell\">");
    ui_buf_raw(b, plausible == 0 ? "<strong class=\"own-flag-word\">no:</strong> " : plausible == 1 ? "yes: "
                                                                                        : "<span class=\"muted\">");
    ui_buf_text(b, ui_json_text(f, "reason")); /* unchecked: the reason says why ("not checked: …", "no physical limit …") */
    ui_buf_raw(b, plausible == 0 || plausible == 1 ? "</td></tr>" : "</span></td></tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
}

static int flagged(const cJSON *e) {
  const cJSON *f;
  cJSON_ArrayForEach(f, ui_json_arr(e, "figures")) if (ui_json_bool(f, "plausible") == 0) return 1;
  return 0;
}

/* The messages the run caught (placement's device mismatch, memory's
 * out-of-memory, a format the device lacks), each with its explain link. */
static void captured(ui_buf *b, const cJSON *env) {
  const cJSON *d = ui_json_obj(env, "details"), *x;
  const char *msgs[8];
  int n = 0;
  if (ui_json_str(d, "real_error")) msgs[n++] = ui_json_str(d, "real_error");
  if (ui_json_str(ui_json_obj(d, "oom"), "message")) msgs[n++] = ui_json_str(ui_json_obj(d, "oom"), "message");
  cJSON_ArrayForEach(x, ui_json_obj(d, "errors")) if (cJSON_IsString(x) && n < 8) msgs[n++] = x->valuestring;
  if (!n) return;
  ui_buf_raw(b, "<ul class=\"own-errors\" aria-label=\"Error messages your run caught\">");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<li><span class=\"muted\">Caught for real:</span> <code>");
    ui_buf_text(b, msgs[i]);
    ui_buf_raw(b, "</code>");
    explain_link(b, msgs[i]);
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}

static const cJSON *kit_result(const cJSON *kit, const char *name) {
  const cJSON *env;
  cJSON_ArrayForEach(env, ui_json_arr(kit, "results")) if (!strcmp(ui_json_text(env, "experiment"), name)) return env;
  return NULL;
}

static void one_experiment(ui_buf *b, const cJSON *e, const cJSON *kit, const char *profile) {
  const char *name = ui_json_text(e, "experiment");
  const lab_experiment *x = lab_experiment_find(name);
  const cJSON *env = kit_result(kit, name), *pred = ui_json_obj(e, "prediction"), *f;
  int bad = flagged(e);
  if (!x || !env) return;
  ui_buf_rawf(b, "<article class=\"own-exp\" id=\"yours-exp-%s\" data-experiment=\"%s\" data-flagged=\"%s\"><h3>",
              x->name, x->name, bad ? "true" : "false");
  ui_buf_text(b, x->title);
  ui_buf_raw(b, "</h3>");
  if (ui_json_str(e, "note")) {
    ui_buf_raw(b, "<p class=\"exp-note\">");
    ui_buf_text(b, ui_json_text(e, "note"));
    ui_buf_raw(b, "</p>");
  }
  cJSON_ArrayForEach(f, ui_json_arr(e, "figures")) {
    if (ui_json_bool(f, "plausible") != 0) continue;
    ui_buf_raw(b, "<p class=\"own-flag\" role=\"note\"><strong>Not measured as the lessons teach:</strong> <code>");
    ui_buf_text(b, ui_json_text(f, "metric"));
    ui_buf_raw(b, "</code> ");
    ui_buf_text(b, ui_json_text(f, "reason"));
    ui_buf_raw(b, "</p>");
  }
  figures_table(b, e, profile);
  captured(b, env);
  /* each experiment's two regions named apart (axe: landmark-unique) */
  ui_buf_raw(b, "<div class=\"own-pair\"><section class=\"own-side own-mine\" aria-label=\"Your run: ");
  ui_buf_text(b, x->title);
  ui_buf_raw(b, "\"><h4>Your run</h4>");
  if (bad) {
    ui_buf_raw(b, "<details class=\"own-claimed\"><summary>Its charts as the file claims them (not a measurement: a "
                  "figure above is impossible on this device)</summary>");
    ui_render_result(b, env, false, NULL);
    ui_buf_raw(b, "</details>");
  } else {
    ui_render_result(b, env, false, NULL);
  }
  ui_buf_raw(b, "</section><section class=\"own-side own-predicted\" aria-label=\"The prediction: ");
  ui_buf_text(b, x->title);
  ui_buf_raw(b, "\"><h4>The simulator's prediction</h4>");
  if (pred) ui_render_result(b, pred, true, NULL);
  else ui_buf_raw(b, "<p class=\"muted\">No prediction: the simulator could not run it with your run's parameters.</p>");
  ui_buf_raw(b, "</section></div></article>");
}

static void lists(ui_buf *b, const cJSON *kit) {
  const cJSON *x;
  if (cJSON_GetArraySize(ui_json_arr(kit, "skipped"))) {
    ui_buf_raw(b, "<h3 id=\"yours-skipped\">Not run on this device</h3>");
    ui_own_reasons(b, ui_json_arr(kit, "skipped"), "experiment", NULL);
  }
  if (cJSON_GetArraySize(ui_json_arr(kit, "failed"))) {
    ui_buf_raw(b, "<h3 id=\"yours-failed\">Failed on your machine</h3><ul class=\"own-errors\">");
    cJSON_ArrayForEach(x, ui_json_arr(kit, "failed")) {
      ui_buf_raw(b, "<li><strong>");
      ui_buf_text(b, ui_json_text(x, "experiment"));
      ui_buf_raw(b, "</strong>: <code>");
      ui_buf_text(b, ui_json_text(x, "error"));
      ui_buf_raw(b, "</code>");
      explain_link(b, ui_json_text(x, "error"));
      ui_buf_raw(b, "</li>");
    }
    ui_buf_raw(b, "</ul>");
  }
}

/* The kit's preflight findings, each openable in explain with its evidence. */
static void preflight(ui_buf *b, const cJSON *kit) {
  const cJSON *x, *l;
  if (!cJSON_GetArraySize(ui_json_arr(kit, "preflight"))) return;
  ui_buf_raw(b, "<h3 id=\"yours-preflight\">What the kit checked first</h3><ul class=\"own-preflight\">");
  cJSON_ArrayForEach(x, ui_json_arr(kit, "preflight")) {
    ui_buf b2;
    ui_buf_init(&b2);
    cJSON_ArrayForEach(l, ui_json_arr(x, "evidence")) {
      if (!cJSON_IsString(l)) continue;
      ui_buf_raw(&b2, l->valuestring);
      ui_buf_raw(&b2, "\n");
    }
    ui_buf_raw(b, ui_json_bool(x, "blocking") == 1 ? "<li class=\"own-blocking\">" : "<li>");
    ui_buf_text(b, ui_json_text(x, "title"));
    /* a finding pasted into explain gets the same diagnosis (docs/measure.md); nothing to explain when all agrees */
    if (!b2.failed && b2.len && strcmp(ui_json_text(x, "id"), "env_consistent") != 0) explain_link(b, ui_buf_str(&b2));
    ui_buf_raw(b, "</li>");
    ui_buf_free(&b2);
  }
  ui_buf_raw(b, "</ul>");
}

static void claims(ui_buf *b, const cJSON *cmp, const char *device) {
  const cJSON *c;
  ui_buf_raw(b, "<h3 id=\"yours-claims\">The lessons' claims on your numbers</h3>");
  if (ui_json_str(cmp, "claims_note")) {
    ui_buf_raw(b, "<p class=\"muted\">");
    ui_buf_text(b, ui_json_text(cmp, "claims_note"));
    ui_buf_raw(b, ".</p>");
  }
  if (!cJSON_GetArraySize(ui_json_arr(cmp, "claims"))) return;
  ui_buf_raw(b, "<ul class=\"own-claims\">");
  cJSON_ArrayForEach(c, ui_json_arr(cmp, "claims")) {
    int holds = ui_json_bool(c, "holds") == 1;
    ui_buf_rawf(b, "<li class=\"%s\">On your ", holds ? "own-holds" : "own-fails");
    ui_buf_text(b, device);
    ui_buf_raw(b, holds ? " the lesson's claim <strong>holds</strong>: “" : " the lesson's claim <strong>does not hold</strong>: “");
    ui_buf_text(b, ui_json_text(c, "quote"));
    ui_buf_raw(b, "” <span class=\"muted\">(");
    ui_buf_text(b, holds ? ui_json_text(c, "numbers") : ui_json_text(c, "why"));
    ui_buf_raw(b, ")</span>");
    if (ui_json_str(c, "lesson")) {
      ui_buf_raw(b, " <a href=\"#lesson/");
      ui_buf_text(b, ui_json_text(c, "lesson"));
      ui_buf_raw(b, "\">the lesson</a>");
    }
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}

void ui_render_own_run(ui_buf *b, const cJSON *answer) {
  const cJSON *kit = ui_json_obj(answer, "kit"), *cmp = ui_json_obj(answer, "compare");
  const cJSON *run = ui_json_obj(cmp, "run"), *prof = ui_json_obj(cmp, "profile"), *e;
  char label[300], profile[120];
  double bad = 0;
  snprintf(profile, sizeof profile, "%s", ui_json_str(prof, "label") ? ui_json_text(prof, "label") : ui_json_text(prof, "name"));
  ui_own_run_label(run, label, sizeof label);
  label[0] = 'Y'; /* "Your run: …" as a heading */
  ui_buf_raw(b, "<h2 id=\"yours-summary\" tabindex=\"-1\">");
  ui_buf_text(b, label);
  ui_buf_raw(b, "</h2><p class=\"own-meta\"><span class=\"badge badge-own badge-small\">your own run</span> ");
  ui_buf_textf(b, "Measured %s with the measurement kit %s", ui_json_str(run, "date") ? ui_json_text(run, "date") : "(no date)",
               ui_json_str(run, "kit_version") ? ui_json_text(run, "kit_version") : "");
  if (ui_json_str(run, "cuda_runtime")) ui_buf_textf(b, " · CUDA runtime %s", ui_json_text(run, "cuda_runtime"));
  if (ui_json_str(run, "hip_runtime")) ui_buf_textf(b, " · ROCm (HIP) %s", ui_json_text(run, "hip_runtime"));
  if (ui_json_str(run, "driver")) ui_buf_textf(b, " · driver %s", ui_json_text(run, "driver"));
  ui_buf_raw(b, ".</p><p class=\"own-profile\">Beside the simulator's prediction for <strong>");
  ui_buf_text(b, profile);
  ui_buf_raw(b, "</strong>: ");
  ui_buf_text(b, ui_json_text(prof, "how"));
  ui_buf_raw(b, ".</p>");
  if (ui_json_obj(prof, "fitted")) {
    ui_buf_raw(b, "<p class=\"own-fitted\" id=\"yours-fitted\">Every experiment can now be simulated on your GPU: pick "
                  "<strong>");
    ui_buf_text(b, profile);
    ui_buf_raw(b, "</strong> in an experiment's “simulate as” choice, in the lessons or in <a href=\"#lab\">All "
                  "experiments</a>. It was fitted to this run's copies and launch and matmul times, so the ratios of "
                  "those figures below are near 1 by construction: they show the fit, not a prediction.</p>");
  }
  if (ui_json_num(cmp, "implausible", &bad) && bad >= 1)
    ui_buf_rawf(b, "<p class=\"own-flag\" role=\"alert\" id=\"yours-implausible\"><strong>%.0f figure%s physically "
                   "impossible on this device</strong>: flagged below with the likely cause, and not drawn as measured.</p>",
                bad, bad < 2 ? " is" : "s are");
  preflight(b, kit);
  if (ui_json_obj(cmp, "plan")) ui_render_own_plan(b, ui_json_obj(cmp, "plan"));
  cJSON_ArrayForEach(e, ui_json_arr(cmp, "experiments")) one_experiment(b, e, kit, profile);
  lists(b, kit);
  claims(b, cmp, ui_json_str(run, "device") ? ui_json_text(run, "device") : "machine");
}
