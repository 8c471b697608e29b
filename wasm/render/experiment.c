/* Draws the experiment widget and checks its parameters with the same
 * lab/face/params.c code the server runs, so a bad value is caught in the page
 * with the same message the API would give. */
#include "experiment.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "profiles.h"
#include "result.h"
#include "trace_export.h"

static void default_text(const lab_param_spec *s, char *buf, size_t n) {
  if (s->type == LAB_P_BOOL) snprintf(buf, n, "%d", s->def != 0);
  else if (s->type == LAB_P_ENUM) snprintf(buf, n, "%s", s->choices ? s->choices[(int)s->def] : "");
  else snprintf(buf, n, "%.15g", s->def);
}

void ui_exp_widget_init(ui_exp_widget *w, const lab_experiment *e) {
  memset(w, 0, sizeof *w);
  w->e = e;
  snprintf(w->target, sizeof w->target, "auto");
  for (int i = 0; i < e->n_params && i < LAB_MAX_PARAMS; i++) default_text(&e->params[i], w->text[i], UI_EXP_TEXT_MAX);
}

bool ui_exp_gpu_usable(const ui_device_state *dev) {
  const cJSON *verdict = dev ? ui_json_obj(dev->views, "verdict") : NULL;
  return verdict && !dev->offline && !dev->simulated && ui_json_bool(verdict, "usable") == 1 &&
         ui_json_bool(verdict, "simulate") != 1;
}

int ui_exp_validate(ui_exp_widget *w, cJSON **params, lab_params *checked) {
  lab_params p;
  int bad = 0;
  *params = NULL;
  lab_params_init(&p, w->e->params, w->e->n_params);
  for (int i = 0; i < w->e->n_params && i < LAB_MAX_PARAMS; i++) {
    lab_error err;
    memset(&err, 0, sizeof err);
    w->error[i][0] = '\0';
    if (lab_params_set_text(&p, w->e->params[i].name, w->text[i], &err) != 0) {
      snprintf(w->error[i], sizeof w->error[i], "%s", err.message);
      bad++;
    }
  }
  /* The same cross-parameter check the server runs before anything is queued. */
  lab_error err;
  memset(&err, 0, sizeof err);
  if (bad == 0 && w->e->check && w->e->check(&p, &err) != 0) {
    ui_exp_set_error(w, &err);
    bad = 1;
  }
  if (bad == 0) *params = lab_params_to_json(&p);
  if (bad == 0 && checked) *checked = p;
  return bad;
}

void ui_exp_set_error(ui_exp_widget *w, const lab_error *err) {
  for (int i = 0; i < w->e->n_params && i < LAB_MAX_PARAMS; i++) {
    if (strcmp(w->e->params[i].name, err->param) == 0) {
      snprintf(w->error[i], sizeof w->error[i], "%s", err->message);
      return;
    }
  }
}

void ui_exp_id(char *buf, size_t n, const lab_experiment *e, const char *part) {
  snprintf(buf, n, "exp-%s-%s", e->name, part);
}

void ui_exp_field_id(char *buf, size_t n, const lab_experiment *e, const lab_param_spec *s) {
  snprintf(buf, n, "exp-%s-f-%s", e->name, s->name);
}

/* "max bytes" from "max_bytes": the label reads as words; the code name is shown beside it. */
static void words(ui_buf *b, const char *name) {
  char t[64];
  snprintf(t, sizeof t, "%s", name);
  for (char *c = t; *c; c++)
    if (*c == '_') *c = ' ';
  ui_buf_text(b, t);
}

static void control(ui_buf *b, const ui_exp_widget *w, int i) {
  const lab_param_spec *s = &w->e->params[i];
  char id[128], described[400];
  bool bad = w->error[i][0] != '\0';
  ui_exp_field_id(id, sizeof id, w->e, s);
  /* the help line always, the error too when there is one */
  if (bad) snprintf(described, sizeof described, "aria-describedby=\"%s-err %s-help\" aria-invalid=\"true\"", id, id);
  else snprintf(described, sizeof described, "aria-describedby=\"%s-help\"", id);
  ui_buf_rawf(b, "<div class=\"exp-field%s%s\">", s->type == LAB_P_BOOL ? " exp-field-check" : "", bad ? " exp-field-bad" : "");
  if (s->type == LAB_P_BOOL)
    ui_buf_rawf(b, "<input type=\"checkbox\" id=\"%s\" %s%s>", id, described,
                strcmp(w->text[i], "1") == 0 || strcmp(w->text[i], "true") == 0 ? " checked" : "");
  ui_buf_rawf(b, "<label for=\"%s\">", id);
  words(b, s->name);
  if (s->unit) {
    ui_buf_raw(b, " <span class=\"unit\">(");
    ui_buf_text(b, s->unit);
    ui_buf_raw(b, ")</span>");
  }
  ui_buf_raw(b, "</label>");
  if (s->type == LAB_P_INT || s->type == LAB_P_NUM) {
    ui_buf_rawf(b, "<input type=\"number\" id=\"%s\" min=\"%.15g\" max=\"%.15g\" step=\"%s\" inputmode=\"%s\" value=\"", id,
                s->min, s->max, s->type == LAB_P_INT ? "1" : "any", s->type == LAB_P_INT ? "numeric" : "decimal");
    ui_buf_text(b, w->text[i]);
    ui_buf_rawf(b, "\" %s>", described);
  } else if (s->type == LAB_P_ENUM) {
    ui_buf_rawf(b, "<select id=\"%s\" %s>", id, described);
    for (int c = 0; s->choices && s->choices[c]; c++) {
      ui_buf_raw(b, "<option value=\"");
      ui_buf_text(b, s->choices[c]);
      ui_buf_rawf(b, "\"%s>", strcmp(s->choices[c], w->text[i]) == 0 ? " selected" : "");
      ui_buf_text(b, s->choices[c]);
      ui_buf_raw(b, "</option>");
    }
    ui_buf_raw(b, "</select>");
  }
  ui_buf_rawf(b, "<p class=\"exp-help\" id=\"%s-help\"><code>", id);
  ui_buf_text(b, s->name);
  ui_buf_raw(b, "</code>");
  if (s->type == LAB_P_INT || s->type == LAB_P_NUM) ui_buf_textf(b, " · %.15g to %.15g", s->min, s->max);
  ui_buf_raw(b, " · ");
  ui_buf_text(b, s->help);
  ui_buf_raw(b, "</p>");
  if (bad) {
    ui_buf_rawf(b, "<p class=\"exp-error\" id=\"%s-err\" role=\"alert\">", id);
    ui_buf_text(b, w->error[i]);
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "</div>");
}

/* auto runs e on the server's GPU: one is usable and answers e (not
 * multi_gpu, which only the simulator answers). */
static bool auto_is_live(const lab_experiment *e, const ui_device_state *dev) {
  return ui_exp_gpu_usable(dev) && (!e || lab_experiment_has_kernel(e) || lab_experiment_is_device_check(e));
}

const char *ui_exp_auto_label(const lab_experiment *e, const ui_device_state *dev, char *buf, size_t n) {
  char shortname[64];
  /* Without a usable GPU, auto is the default profile: the server's and the browser's alike. */
  const lab_profile *def = lab_profile_default();
  if (auto_is_live(e, dev)) snprintf(buf, n, "auto: the server's GPU");
  else snprintf(buf, n, "auto: simulated (%s)", ui_profile_short_label(def->label, shortname, sizeof shortname));
  return buf;
}

const char *ui_exp_target_help(const lab_experiment *e, const ui_device_state *dev) {
  if (ui_exp_gpu_usable(dev) && !auto_is_live(e, dev))
    return "It needs several GPUs and the server has one, so auto runs a model of a GPU in your browser; pick a "
           "profile to model another one.";
  return ui_exp_gpu_usable(dev)
             ? "auto runs it for real on the server's GPU; a profile runs a model of that GPU in your browser."
             : "No usable GPU answered, so auto runs a model of a GPU in your browser; pick a profile to model "
               "another one.";
}

void ui_render_experiment_picker(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev) {
  char id[96], text[96];
  ui_exp_id(id, sizeof id, w->e, "target");
  ui_buf_rawf(b, "<label for=\"%s\">Run on</label><select id=\"%s\" aria-describedby=\"%s-help", id, id, id);
  if (w->recorded_label) ui_buf_rawf(b, " %s-recorded-help", id);
  ui_buf_rawf(b, "\"><option id=\"%s-auto\" value=\"auto\"%s>", id, strcmp(w->target, "auto") == 0 ? " selected" : "");
  ui_buf_text(b, ui_exp_auto_label(w->e, dev, text, sizeof text));
  ui_buf_raw(b, "</option>");
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    ui_buf_raw(b, "<option value=\"");
    ui_buf_text(b, p->name);
    ui_buf_rawf(b, "\"%s>simulate as ", strcmp(w->target, p->name) == 0 ? " selected" : "");
    ui_buf_text(b, ui_profile_short_label(p->label, text, sizeof text));
    if (!lab_experiment_applies(w->e, p)) ui_buf_raw(b, " (does not apply)"); /* picked, it says why */
    ui_buf_raw(b, "</option>");
  }
  if (w->recorded_label) {
    ui_buf_rawf(b, "<option id=\"%s-recorded\" value=\"recorded\"%s>", id,
                strcmp(w->target, "recorded") == 0 ? " selected" : "");
    ui_buf_text(b, w->recorded_label);
    ui_buf_raw(b, "</option>");
  }
  ui_buf_rawf(b, "</select><p class=\"exp-help\" id=\"%s-help\">", id);
  ui_buf_text(b, ui_exp_target_help(w->e, dev));
  ui_buf_raw(b, "</p>");
  /* A replay shows the run as it was recorded, parameters included. */
  if (w->recorded_label)
    ui_buf_rawf(b, "<p class=\"exp-help\" id=\"%s-recorded-help\">The recorded choice replays a run saved on a "
                   "real GPU, with the parameters it was recorded with: the controls above do not apply to it.</p>",
                id);
}

static void picker(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev) {
  char id[96];
  ui_exp_id(id, sizeof id, w->e, "picker");
  ui_buf_rawf(b, "<div class=\"exp-field exp-target\" id=\"%s\">", id);
  ui_render_experiment_picker(b, w, dev);
  ui_buf_raw(b, "</div>");
}

void ui_render_experiment_fields(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev) {
  for (int i = 0; i < w->e->n_params && i < LAB_MAX_PARAMS; i++) control(b, w, i);
  picker(b, w, dev);
}

/* The server's own device check, named as the server's: "your GPU" is the
 * learner's device, which no server can see. */
static void server_check(ui_buf *b, const ui_device_state *d) {
  const char *summary = ui_json_str(ui_json_obj(d->views, "verdict"), "summary");
  ui_buf_raw(b, "<p class=\"exp-server-check\"><strong>The gpulab server's own check:</strong> ");
  ui_buf_text(b, summary ? summary : "it gave no verdict");
  ui_buf_raw(b, ". <a href=\"#gpu\">See the server's driver view beside its runtime view</a></p>");
}

static void device_summary(ui_buf *b, const ui_device_state *d) {
  ui_buf_raw(b, "<div class=\"exp-result\">");
  if (d) ui_render_device_badge(b, d);
  if (!d || !d->views) ui_buf_raw(b, "<p>Checking this machine…</p>");
  else if (d->simulated) ui_buf_raw(b, "<p>No real GPU was asked: the panel shows an example of what a machine with this "
                                       "profile's GPU would report, and how to check your own.</p>");
  else if (!ui_exp_gpu_usable(d)) {
    const lab_profile *def = lab_profile_default();
    ui_buf_raw(b, "<p>Press <strong>Run</strong> for a labelled example: what the ");
    ui_buf_text(b, def->device_name);
    ui_buf_raw(b, " would report, simulated in your browser. To check your own GPU, run <code>nvidia-smi</code> and "
                  "<code>torch.cuda.is_available()</code> where your code runs.</p>");
  }
  ui_buf_raw(b, "</div>");
  if (d && d->views && !d->simulated) server_check(b, d);
}

void ui_render_experiment_output(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev) {
  if (w->failure && w->not_applicable) {
    ui_buf_raw(b, "<p class=\"exp-na\" role=\"status\"><strong>Does not apply to this GPU.</strong> ");
    ui_buf_text(b, w->failure);
    ui_buf_raw(b, "</p>");
  } else if (w->failure) {
    ui_buf_raw(b, "<p class=\"exp-failure\" role=\"alert\"><strong>The experiment did not run.</strong> ");
    ui_buf_text(b, w->failure);
    ui_buf_raw(b, "</p>");
  }
  if (w->result) ui_render_result(b, w->result, w->in_browser, w->note);
  /* a simulated example of the device check: the server's own check beside it */
  if (w->result && w->in_browser && lab_experiment_is_device_check(w->e) && dev && dev->views && !dev->simulated)
    server_check(b, dev);
  if (w->result && lab_trace_has_timeline(w->result)) /* built from this envelope on the click (docs/trace.md) */
    ui_buf_rawf(b,
                "<p class=\"exp-trace\"><button type=\"button\" class=\"button button-quiet\" data-action=\"exp-trace\" "
                "data-arg=\"%s\">Download trace</button> Open the file at ui.perfetto.dev (Open trace file) or in "
                "chrome://tracing; it says whether this run was measured, recorded or simulated.</p>",
                w->e->name);
  if (w->result) return;
  if (lab_experiment_is_device_check(w->e)) device_summary(b, dev);
  else if (!w->failure) ui_buf_raw(b, "<p class=\"exp-hint\">Choose the parameters, then press <strong>Run</strong>.</p>");
}

void ui_render_experiment_widget(ui_buf *b, const ui_exp_widget *w, const ui_device_state *dev) {
  char id[96];
  const char *n = w->e->name;
  /* Named "Experiment: TITLE": the lesson section around it often has the
   * same title, and two regions must not share a name. */
  ui_buf_rawf(b, "<section class=\"exp-card exp-widget\" id=\"exp-%s\" aria-labelledby=\"exp-%s-kicker exp-%s-title\">"
                 "<p class=\"kicker\" id=\"exp-%s-kicker\">Experiment:</p><h3 id=\"exp-%s-title\">", n, n, n, n, n);
  ui_buf_text(b, w->e->title);
  ui_buf_raw(b, "</h3><p class=\"exp-summary\">");
  ui_buf_text(b, w->e->summary);
  ui_buf_rawf(b, "</p><details class=\"exp-params\" id=\"exp-%s-params\" open><summary>Parameters</summary>"
                 "<div class=\"exp-fields\" id=\"exp-%s-fields\" role=\"group\" aria-label=\"Parameters of ",
              n, n);
  ui_buf_text(b, w->e->title);
  ui_buf_raw(b, "\">");
  ui_render_experiment_fields(b, w, dev);
  ui_exp_id(id, sizeof id, w->e, "run");
  ui_buf_rawf(b, "</div></details><div class=\"exp-actions\"><button type=\"button\" class=\"button exp-run\" id=\"%s\" "
                 "data-action=\"exp-run\" data-arg=\"%s\"%s>%s</button>",
              id, n, w->running ? " aria-disabled=\"true\"" : "", w->running ? "Running…" : "Run");
  ui_buf_rawf(b, "<span class=\"exp-status\" id=\"exp-%s-status\" role=\"status\" aria-live=\"polite\">%s</span>"
                 "<a class=\"exp-all\" href=\"#lab\">All experiments</a></div>",
              n, w->running ? "running…" : "");
  ui_buf_rawf(b, "<div class=\"exp-out\" id=\"exp-%s-out\" aria-live=\"polite\" aria-busy=\"%s\">", n,
              w->running ? "true" : "false");
  ui_render_experiment_output(b, w, dev);
  ui_buf_raw(b, "</div></section>");
}

void ui_render_experiment_unknown(ui_buf *b, const char *name) {
  ui_buf_raw(b, "<div class=\"exp-card\"><p class=\"kicker\">Experiment</p><p>This lesson refers to an experiment called <code>");
  ui_buf_text(b, name ? name : "");
  ui_buf_raw(b, "</code>, which this version of gpulab does not have. Update gpulab to run it.</p></div>");
}

void ui_render_experiment_card(ui_buf *b, const char *name, const ui_device_state *device) {
  const lab_experiment *e = name ? lab_experiment_find(name) : NULL;
  ui_exp_widget w;
  if (!e) {
    ui_render_experiment_unknown(b, name);
    return;
  }
  ui_exp_widget_init(&w, e);
  ui_render_experiment_widget(b, &w, device);
}

int ui_exp_workbench_href(const lab_experiment *ex, const cJSON *params, char *out, size_t n) {
  int at = snprintf(out, n, "#lab/%s", ex->name), any = 0;
  const cJSON *p;
  cJSON_ArrayForEach(p, params) {
    for (int k = 0; k < ex->n_params && at > 0 && (size_t)at < n; k++) {
      if (strcmp(ex->params[k].name, p->string) != 0) continue;
      const char *sep = any ? "&" : "?";
      if (cJSON_IsBool(p)) at += snprintf(out + at, n - (size_t)at, "%s%s=%d", sep, p->string, cJSON_IsTrue(p) ? 1 : 0);
      else if (cJSON_IsNumber(p)) at += snprintf(out + at, n - (size_t)at, "%s%s=%.15g", sep, p->string, p->valuedouble);
      else continue;
      any = 1;
    }
  }
  if (at > 0 && (size_t)at < n) return any;
  snprintf(out, n, "#lab/%s", ex->name); /* too many to carry: the experiment as it comes */
  return 0;
}
