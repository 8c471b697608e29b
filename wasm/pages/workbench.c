/* The workbench: the "#lab" page, every experiment's widget on one page,
 * and "#lab/NAME", one of them, its fields filled from the link's query
 * when an explained error or a read trace sent the learner there (see
 * workbench.h). The widgets themselves are experiment_run.c's. */
#include "workbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "experiment.h"
#include "experiment_run.h"
#include "html.h"
#include "registry.h"

static void show_html(ui_buf *b) {
  ui_dom_set_html("lesson", b->failed ? "<p>Out of memory while drawing this part of the page. Reload the page.</p>"
                                      : ui_buf_str(b));
  ui_buf_free(b);
}

/* The experiment a "#lab/NAME" hash names, "" for "#lab", NULL otherwise. */
static const char *workbench_name(const char *hash) {
  if (!hash) return NULL;
  if (hash[0] == '#') hash++;
  if (strcmp(hash, "lab") == 0 || strcmp(hash, "lab/") == 0) return "";
  if (strncmp(hash, "lab/", 4) != 0) return NULL;
  return hash + 4;
}

static void render(const char *name, const ui_device_state *dev, bool focus) {
  ui_buf b;
  const lab_experiment *one = name && name[0] ? lab_experiment_find(name) : NULL;
  ui_buf_init(&b);
  ui_buf_raw(&b, "<header class=\"lesson-head\"><p class=\"kicker\">Lab</p><h1 id=\"lesson-title\" tabindex=\"-1\">");
  if (one) {
    ui_buf_text(&b, one->title);
    ui_buf_raw(&b, "</h1><p class=\"lesson-summary\"><a href=\"#lab\">All experiments</a></p></header>"
                   "<h2 class=\"lab-list-h\">Run it</h2>");
  } else {
    ui_buf_raw(&b, "All experiments</h1><p class=\"lesson-summary\">Every experiment of gpulab on one page. Each runs on "
                   "the server's GPU when it has a usable one, otherwise as a simulation in your browser; every result "
                   "says which.</p>");
    if (name && name[0]) {
      ui_buf_raw(&b, "<p class=\"exp-failure\" role=\"alert\">There is no experiment called <code>");
      ui_buf_text(&b, name);
      ui_buf_raw(&b, "</code>; here are all of them.</p>");
    }
    ui_buf_raw(&b, "<nav aria-label=\"Experiments\"><ul class=\"lab-index\">");
    for (int i = 0; i < lab_experiment_count(); i++) {
      const lab_experiment *e = lab_experiment_at(i);
      ui_buf_rawf(&b, "<li><a href=\"#lab/%s\">", e->name);
      ui_buf_text(&b, e->title);
      ui_buf_raw(&b, "</a></li>");
    }
    ui_buf_raw(&b, "</ul></nav></header><h2 class=\"lab-list-h\">Run them</h2>");
  }
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    if (one && one != e) continue;
    ui_buf_rawf(&b, "<div class=\"experiment\" data-experiment=\"%s\"></div>", e->name);
  }
  show_html(&b);
  ui_dom_set_attr("lesson", "aria-busy", "false");
  ui_dom_set_title(one ? "Lab — gpulab" : "All experiments — gpulab");
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    if (!one || one == e) ui_exp_fill(e->name, dev);
  }
  if (focus) ui_dom_focus("lesson-title");
}

/* Sets e's fields from a "#lab/NAME?k=v&…" link's query (experiment.h,
 * ui_exp_workbench_href: an explained error's or a trace's experiment):
 * numbers as given, booleans 1 or 0; a name e does not take, a choice or a
 * value that is not a number is left as it was. */
static void prefill(const lab_experiment *e, const char *query) {
  char id[128], key[48], text[40], val[40];
  for (const char *q = query; q && *q;) {
    const char *amp = strchr(q, '&'), *end = amp ? amp : q + strlen(q), *eq = memchr(q, '=', (size_t)(end - q));
    if (eq && eq - q < (long)sizeof key && end - eq - 1 < (long)sizeof text) {
      snprintf(key, sizeof key, "%.*s", (int)(eq - q), q);
      snprintf(text, sizeof text, "%.*s", (int)(end - eq - 1), eq + 1);
      char *stop;
      double v = strtod(text, &stop);
      for (int k = 0; k < e->n_params && text[0] && !*stop && isfinite(v); k++) {
        const lab_param_spec *s = &e->params[k];
        if (strcmp(s->name, key) != 0 || s->type == LAB_P_ENUM) continue;
        ui_exp_field_id(id, sizeof id, e, s);
        if (s->type == LAB_P_BOOL) ui_dom_set_attr(id, "checked", v != 0 ? "" : NULL);
        else snprintf(val, sizeof val, "%.15g", v), ui_dom_set_attr(id, "value", val);
      }
    }
    q = amp ? amp + 1 : NULL;
  }
}

static struct {
  char hash[256]; /* "#lab/NAME", its query cut off into query */
  const char *query;
  bool shown;
} wb = {.query = ""};

void ui_workbench_show(const char *hash, const ui_device_state *dev, bool focus) {
  snprintf(wb.hash, sizeof wb.hash, "%s", hash ? hash : "#lab");
  char *q = strchr(wb.hash, '?');
  wb.query = q ? q + 1 : "";
  if (q) *q = '\0';
  wb.shown = true;
  const char *name = workbench_name(wb.hash);
  render(name, dev, focus);
  const lab_experiment *one = name && name[0] ? lab_experiment_find(name) : NULL;
  if (one && wb.query[0]) prefill(one, wb.query);
}

void ui_workbench_refresh(const ui_device_state *dev) {
  if (!wb.shown) return;
  const char *name = workbench_name(wb.hash);
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    if (!name || !name[0] || !lab_experiment_find(name) || strcmp(name, e->name) == 0) ui_exp_fill(e->name, dev);
  }
}

void ui_workbench_leave(void) { wb.shown = false; }

void ui_workbench_shutdown(void) {
  memset(&wb, 0, sizeof wb);
  wb.query = "";
}
