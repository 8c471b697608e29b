/* The "Read your profile" page: the form, the reader's progress and the
 * doctor's answer (docs/doctor.md). The reading itself happens in the
 * doctor module's worker (bridge.h, ui_on_doctor); this file only draws. */
#include "doctor_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "experiment.h"
#include "experiment_run.h"
#include "lesson_html.h"
#include "json.h"
#include "json_get.h"
#include "units.h"
#include "registry.h"
#include "result_parts.h"

static struct {
  cJSON *env;                 /* the last answer, for the experiment buttons */
  const ui_device_state *dev; /* for the experiments' widgets */
  int open;                   /* the finding whose experiment is open, -1 none */
  bool reading;
  double size;                /* the file's bytes */
} st = {.open = -1};

static double num(const cJSON *o, const char *k) {
  double v;
  return ui_json_num(o, k, &v) ? v : NAN;
}

static void summary(ui_buf *b, const cJSON *env) {
  const cJSON *t = ui_json_obj(env, "trace");
  ui_buf_raw(b, "<h2 id=\"doctor-summary\">What the trace holds</h2><p class=\"doctor-trace\">");
  ui_buf_textf(b, "%.0f events (%.0f on the GPU) over %.3f ms, %.0f profiler steps.", num(t, "events"),
               num(t, "gpu_events"), num(t, "span_ms"), num(t, "profiler_steps"));
  double ops_lost = num(t, "host_ops_not_analysed"); /* NaN in an answer from before host operators were kept */
  double lost = num(t, "gpu_events_not_analysed") + num(t, "host_calls_not_analysed") + (ops_lost > 0 ? ops_lost : 0);
  if (lost > 0) ui_buf_textf(b, " %.0f events past the reader's caps were counted, not timed.", lost);
  ui_buf_raw(b, "</p>");
}

static void steps_table(ui_buf *b, const cJSON *env) {
  const cJSON *steps = ui_json_arr(env, "steps"), *x, *g;
  if (!cJSON_GetArraySize(steps) || !(num(ui_json_obj(env, "trace"), "gpu_events") > 0)) return;
  ui_buf_raw(b, "<div class=\"table-wrap doctor-steps-wrap\" tabindex=\"0\" role=\"group\" aria-label=\"The steps\"><table class=\"doctor-steps\"><caption>Each profiler step: how busy the GPU "
                "was, and its largest idle gaps with what the host did in them</caption><thead><tr>"
                "<th scope=\"col\">step</th><th scope=\"col\">wall ms</th><th scope=\"col\">GPU busy</th>"
                "<th scope=\"col\">kernels</th><th scope=\"col\">largest gaps</th></tr></thead><tbody>");
  cJSON_ArrayForEach(x, steps) {
    ui_buf_raw(b, "<tr><th scope=\"row\">");
    ui_buf_text(b, ui_json_text(x, "name"));
    ui_buf_rawf(b, "</th><td>%.3f</td><td>%.1f %%</td><td>%.0f</td><td>", num(x, "wall_ms"), num(x, "gpu_busy_pct"),
                num(x, "kernels"));
    int i = 0;
    cJSON_ArrayForEach(g, ui_json_arr(x, "gaps")) {
      if (i++) ui_buf_raw(b, "; ");
      /* the host operator covering most of the gap, when the trace recorded one */
      if (*ui_json_text(g, "host_op")) ui_buf_textf(b, "%.3f ms (%s, in %s)", num(g, "ms"), ui_json_text(g, "host"), ui_json_text(g, "host_op"));
      else ui_buf_textf(b, "%.3f ms (%s)", num(g, "ms"), ui_json_text(g, "host"));
    }
    if (!i) ui_buf_raw(b, "—");
    ui_buf_raw(b, "</td></tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
}

/* The answer's "timeline" (one step's spans, lanes "cpu" and
 * "gpu:N/streamK" as the experiments' envelopes have them) with the chart
 * the experiments use; "timeline_of" says which step and why that one. */
static void timeline(ui_buf *b, const cJSON *env) {
  if (!cJSON_GetArraySize(ui_json_arr(env, "timeline"))) return;
  const cJSON *of = ui_json_obj(env, "timeline_of");
  char title[160];
  const cJSON *step = cJSON_GetObjectItemCaseSensitive(of, "step");
  if (cJSON_IsString(step)) snprintf(title, sizeof title, "%.64s on a timeline", step->valuestring);
  else if (cJSON_IsNumber(step)) snprintf(title, sizeof title, "Step %.0f on a timeline", step->valuedouble);
  else snprintf(title, sizeof title, "One step on a timeline");
  ui_buf_raw(b, "<h2 id=\"doctor-timeline\">The step, span by span</h2>");
  if (ui_json_text(of, "why")[0] || num(of, "spans_left_out") > 0) {
    ui_buf_raw(b, "<p class=\"muted\">");
    ui_buf_text(b, ui_json_text(of, "why"));
    if (num(of, "spans_left_out") > 0) ui_buf_textf(b, " (%.0f shorter spans left out.)", num(of, "spans_left_out"));
    ui_buf_raw(b, "</p>");
  }
  ui_result_timeline(b, env, title,
                     "The host's calls and the GPU's kernels and copies in one profiler step, lane by lane; a gap "
                     "in a GPU lane is time that stream sat idle.");
}

static void fact(ui_buf *b, const cJSON *f) {
  char tmp[32];
  if (cJSON_IsString(f)) ui_buf_text(b, f->valuestring);
  else if (cJSON_IsBool(f)) ui_buf_raw(b, cJSON_IsTrue(f) ? "yes" : "no");
  else if (cJSON_IsNumber(f) && f->string && strstr(f->string, "bytes")) ui_buf_text(b, ui_fmt_bytes(f->valuedouble, tmp));
  else if (cJSON_IsNumber(f)) ui_buf_text(b, LAB_PLAIN(f->valuedouble)); /* never "7.7e+02" */
  else {
    char *t = cJSON_PrintUnformatted(f);
    ui_buf_text(b, t ? t : "");
    cJSON_free(t);
  }
}

static void one_finding(ui_buf *b, const cJSON *f, int i) {
  const cJSON *l = ui_json_obj(f, "lesson"), *e = ui_json_obj(f, "experiment"), *x;
  const char *cert = ui_json_text(f, "certainty");
  ui_buf_rawf(b, "<article class=\"explain-item doctor-finding\" id=\"doctor-finding-%d\" data-id=\"", i);
  ui_buf_text(b, ui_json_text(f, "id"));
  ui_buf_raw(b, "\"><h3>");
  ui_buf_text(b, ui_json_text(f, "title"));
  ui_buf_raw(b, " <span class=\"badge certainty-");
  ui_buf_text(b, cert);
  ui_buf_raw(b, "\">");
  ui_buf_text(b, cert);
  ui_buf_raw(b, "</span></h3><p>");
  ui_buf_text(b, ui_json_text(f, "text"));
  ui_buf_raw(b, "</p>");
  const cJSON *facts = ui_json_obj(f, "facts"), *labels = ui_json_obj(f, "labels");
  if (facts && facts->child) {
    ui_buf_raw(b, "<details class=\"explain-facts\"><summary>The numbers</summary><dl>");
    cJSON_ArrayForEach(x, facts) {
      ui_buf_raw(b, "<dt>");
      ui_buf_text(b, ui_json_str(labels, x->string) ? ui_json_str(labels, x->string) : x->string);
      ui_buf_raw(b, "</dt><dd>");
      fact(b, x);
      ui_buf_raw(b, "</dd>");
    }
    ui_buf_raw(b, "</dl></details>");
  }
  ui_buf_raw(b, "<p class=\"explain-links\">");
  ui_render_lesson_link(b, l);
  const lab_experiment *ex = lab_experiment_find(ui_json_text(e, "name"));
  if (ex) {
    const cJSON *params = ui_json_obj(e, "params");
    ui_buf_rawf(b, "<button type=\"button\" class=\"button\" data-action=\"doctor-open\" data-arg=\"%d\">", i);
    ui_buf_raw(b, "Open the experiment: ");
    ui_buf_text(b, ex->title);
    if (params && params->child) {
      ui_buf_raw(b, " (");
      int k = 0;
      cJSON_ArrayForEach(x, params) {
        if (k++) ui_buf_raw(b, ", ");
        ui_buf_text(b, x->string);
        ui_buf_raw(b, " = ");
        fact(b, x);
      }
      ui_buf_raw(b, ", from your trace)");
    }
    char href[512];
    ui_exp_workbench_href(ex, params, href, sizeof href); /* its own page, with the trace's numbers too */
    ui_buf_raw(b, "</button> <a class=\"muted\" href=\"");
    ui_buf_text(b, href);
    ui_buf_raw(b, "\">its page</a>");
  }
  ui_buf_rawf(b, "</p><div class=\"explain-exp\" id=\"doctor-exp-%d\"></div></article>", i);
}

void ui_render_doctor_answer(ui_buf *b, const cJSON *env) {
  const cJSON *err = ui_json_obj(env, "error"), *f;
  if (err) {
    ui_buf_raw(b, "<p class=\"exp-failure\" role=\"alert\" id=\"doctor-error\"><strong>");
    ui_buf_text(b, ui_json_text(err, "code"));
    ui_buf_raw(b, "</strong>: ");
    ui_buf_text(b, ui_json_text(err, "message"));
    ui_buf_raw(b, "</p>");
    return;
  }
  summary(b, env);
  steps_table(b, env);
  timeline(b, env);
  ui_buf_raw(b, "<h2 id=\"doctor-findings\">What it shows</h2>");
  int i = 0;
  cJSON_ArrayForEach(f, ui_json_arr(env, "findings")) one_finding(b, f, i++);
  if (!i) ui_buf_raw(b, "<p>Nothing stood out in this trace.</p>");
}

static void set_progress(double read, double size, const char *text) {
  char v[32];
  snprintf(v, sizeof v, "%.0f", size > 0 ? size : 1);
  ui_dom_set_attr("doctor-progress", "max", v);
  snprintf(v, sizeof v, "%.0f", size > 0 ? (read < size ? read : size) : 1);
  ui_dom_set_attr("doctor-progress", "value", v);
  ui_dom_set_text("doctor-progress-text", text);
}

static void on_doctor(int event, double a, double bytes, const char *text, size_t len, void *ctx) {
  (void)ctx;
  char line[200], r[32], t[32];
  if (event == UI_DOCTOR_START) {
    cJSON_Delete(st.env);
    st.env = NULL;
    st.open = -1;
    st.reading = true;
    st.size = bytes;
    ui_dom_set_html("doctor-out", "");
    ui_dom_set_attr("doctor-status", "hidden", NULL);
    ui_dom_set_attr("doctor-cancel", "hidden", NULL);
    ui_dom_set_attr("doctor-out", "aria-busy", "true");
    ui_dom_set_attr("doctor-status", "data-state", "reading");
    ui_dom_set_text("doctor-file-name", text);
    snprintf(line, sizeof line, "Reading 0 of %s…", ui_fmt_bytes(bytes, t));
    set_progress(0, bytes, line);
    return;
  }
  if (!st.reading) return; /* cancelled */
  if (event == UI_DOCTOR_PROGRESS) {
    snprintf(line, sizeof line, "Reading %s of %s (%.0f %%)…", ui_fmt_bytes(a, r), ui_fmt_bytes(bytes, t),
             bytes > 0 ? 100 * a / bytes : 100);
    set_progress(a, bytes, line);
    return;
  }
  st.reading = false;
  ui_dom_set_attr("doctor-cancel", "hidden", "");
  ui_dom_set_attr("doctor-out", "aria-busy", "false");
  int status = (int)a;
  cJSON *j = status ? lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  ui_buf b;
  ui_buf_init(&b);
  if (status == 200 && j && !ui_json_obj(j, "error")) {
    st.env = j;
    snprintf(line, sizeof line, "Done: read all %s.", ui_fmt_bytes(st.size, t));
    set_progress(st.size, st.size, line);
    ui_dom_set_attr("doctor-status", "data-state", "done");
    ui_render_doctor_answer(&b, j);
  } else {
    ui_dom_set_attr("doctor-status", "data-state", "failed");
    ui_dom_set_text("doctor-progress-text", "Stopped: the trace could not be read.");
    if (j && ui_json_obj(j, "error")) ui_render_doctor_answer(&b, j);
    else
      ui_buf_raw(&b, "<p class=\"exp-failure\" role=\"alert\" id=\"doctor-error\">The reader did not start in this browser "
                     "(offline before its first visit to this page, or no Web Worker): reload the page online once, or "
                     "run <code>gpulab doctor trace.json</code>.</p>");
    cJSON_Delete(j);
  }
  ui_dom_set_html("doctor-out", b.failed ? "<p>Out of memory while drawing the answer.</p>" : ui_buf_str(&b));
  ui_buf_free(&b);
  if (st.env) ui_dom_focus("doctor-summary");
}

void ui_doctor_show(const char *hash, const ui_device_state *dev, bool focus) {
  (void)hash; /* "#doctor" alone */
  ui_buf b;
  st.dev = dev;
  if (st.reading) { /* back on the page mid-read: its progress bar is gone with the old page */
    ui_doctor_cancel();
    st.reading = false;
  }
  ui_buf_init(&b);
  ui_buf_raw(&b,
             "<header class=\"lesson-head\"><p class=\"kicker\">Your own training loop</p>"
             "<h1 id=\"lesson-title\" tabindex=\"-1\">Read your profile</h1><p class=\"lesson-summary\">Give it the "
             "trace PyTorch's profiler wrote, and it says how busy your GPU was each step, what the host did while "
             "the GPU waited, and which lesson explains it. <strong>It is read in your browser: nothing is "
             "uploaded</strong>, and it works offline.</p></header>"
             "<p>Make a trace with <code>torch.profiler</code> around a few steps, calling <code>prof.step()</code> "
             "each step:</p><pre class=\"doctor-howto\"><code>with torch.profiler.profile(activities=[ProfilerActivity.CPU, "
             "ProfilerActivity.CUDA]) as prof:\n    for batch in loader:\n        train_step(batch)\n        prof.step()\n"
             "prof.export_chrome_trace(\"trace.json\")</code></pre>"
             "<div class=\"doctor-drop\" id=\"doctor-drop\"><p>Drop <code>trace.json</code> (or a <code>.json.gz</code>) "
             "here, or</p><label class=\"button\" for=\"doctor-file\">Choose a trace file</label>"
             "<input type=\"file\" id=\"doctor-file\" class=\"doctor-file\" accept=\".json,.gz,application/json,"
             "application/gzip\" aria-describedby=\"doctor-privacy\"><p id=\"doctor-privacy\" class=\"muted\">Read "
             "here, in your browser, in chunks: the file never leaves this computer.</p></div>"
             "<div id=\"doctor-status\" class=\"doctor-status\" hidden><p><span id=\"doctor-file-name\"></span></p>"
             "<progress id=\"doctor-progress\" max=\"1\" value=\"0\" aria-labelledby=\"doctor-progress-text\"></progress> "
             "<span id=\"doctor-progress-text\" aria-live=\"polite\"></span> "
             "<button type=\"button\" class=\"button button-quiet\" id=\"doctor-cancel\" data-action=\"doctor-cancel\" "
             "hidden>Cancel</button></div><section id=\"doctor-out\" aria-live=\"polite\"></section>");
  ui_dom_set_html("lesson", b.failed ? "<p>Out of memory while drawing this page. Reload the page.</p>" : ui_buf_str(&b));
  ui_buf_free(&b);
  ui_dom_set_attr("lesson", "aria-busy", "false");
  ui_dom_set_title("Read your profile — gpulab");
  ui_on_doctor(on_doctor, NULL);
  if (focus) ui_dom_focus("lesson-title");
}

/* The experiment's widget in place under its finding, its fields set to the trace's values. */
static void open_experiment(int i) {
  const cJSON *f = cJSON_GetArrayItem(ui_json_arr(st.env, "findings"), i);
  const cJSON *e = ui_json_obj(f, "experiment"), *p;
  const lab_experiment *ex = lab_experiment_find(ui_json_text(e, "name"));
  char id[128], v[96];
  if (!ex) return;
  if (st.open >= 0) { /* one widget per experiment on a page: close the other */
    snprintf(id, sizeof id, "doctor-exp-%d", st.open);
    ui_dom_set_html(id, "");
  }
  st.open = i;
  snprintf(id, sizeof id, "doctor-exp-%d", i);
  snprintf(v, sizeof v, "<div class=\"experiment\" data-experiment=\"%s\"></div>", ex->name);
  ui_dom_set_html(id, v);
  ui_exp_fill(ex->name, st.dev);
  cJSON_ArrayForEach(p, ui_json_obj(e, "params")) {
    for (int k = 0; k < ex->n_params; k++) {
      if (strcmp(ex->params[k].name, p->string) != 0) continue;
      ui_exp_field_id(id, sizeof id, ex, &ex->params[k]);
      if (cJSON_IsBool(p)) ui_dom_set_attr(id, "checked", cJSON_IsTrue(p) ? "" : NULL);
      else if (cJSON_IsNumber(p)) snprintf(v, sizeof v, "%g", p->valuedouble), ui_dom_set_attr(id, "value", v);
    }
  }
}

bool ui_doctor_action(const char *action, const char *arg) {
  if (!strcmp(action, "doctor-cancel")) {
    if (!st.reading) return true;
    ui_doctor_cancel();
    st.reading = false;
    ui_dom_set_attr("doctor-cancel", "hidden", "");
    ui_dom_set_attr("doctor-out", "aria-busy", "false");
    ui_dom_set_attr("doctor-status", "data-state", "cancelled");
    ui_dom_set_text("doctor-progress-text", "Cancelled: choose the file again to read it.");
  } else if (!strcmp(action, "doctor-open")) {
    open_experiment(atoi(arg ? arg : "-1"));
  } else {
    return false;
  }
  return true;
}

void ui_doctor_shutdown(void) {
  if (st.reading) ui_doctor_cancel();
  cJSON_Delete(st.env);
  st.env = NULL;
  st.open = -1;
  st.reading = false;
}
