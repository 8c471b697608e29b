/* The plan run's table (own_plan.h): one row per counter, the learner's
 * figure, the plan's, their ratio and the band verdict lab_compare
 * recomputed; a counter the kit did not score (a CPU's step time, a Mac's
 * lower bound) says so instead of a ratio. Rows are named in words; the
 * kit's counter ids and how each was read sit in a folded list below. */
#include "own_plan.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "own_parts.h"

static const char *amount(const cJSON *c, const char *key, char *out, size_t n) {
  double v;
  char t[32];
  if (!ui_json_num(c, key, &v)) snprintf(out, n, "—");
  else if (!strcmp(ui_json_text(c, "id"), "step_ms")) snprintf(out, n, "%.3g ms", v);
  else snprintf(out, n, "%s", ui_fmt_bytes(v, t));
  return out;
}

/* The counter in words (the kit's ids are lab/compare/kit_plan.c's); an
 * id this page does not know is shown as it came. */
static const char *counter_name(const char *id) {
  static const char *const names[][2] = {
      {"weights", "weights"},
      {"gradients", "gradients"},
      {"optimizer_state", "optimizer state"},
      {"activations", "activations saved for backward"},
      {"allocated", "peak allocated"},
      {"reserved", "peak reserved"},
      {"device", "used on the device"},
      {"step_ms", "one training step"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(id, names[i][0])) return names[i][1];
  return id;
}

static void counter_row(ui_buf *b, const cJSON *c) {
  char m[48], p[48];
  double r;
  int in = ui_json_bool(c, "in_band");
  ui_buf_rawf(b, "<tr role=\"row\" class=\"%s\"><th scope=\"row\" role=\"rowheader\">",
              in == 0 ? "own-flagged" : "own-ok");
  ui_buf_text(b, counter_name(ui_json_text(c, "id")));
  ui_buf_raw(b, "</th><td role=\"cell\" data-label=\"your run\">");
  ui_buf_text(b, amount(c, "measured", m, sizeof m));
  ui_buf_raw(b, "</td><td role=\"cell\" data-label=\"the plan\">");
  ui_buf_text(b, amount(c, "predicted", p, sizeof p));
  ui_buf_raw(b, "</td><td role=\"cell\" data-label=\"ratio\">");
  if (ui_json_num(c, "ratio", &r)) ui_buf_rawf(b, "%.2f×", r);
  else ui_buf_raw(b, "—");
  ui_buf_raw(b, "</td><td role=\"cell\" data-label=\"in the plan's band?\">");
  ui_buf_raw(b, in == 1 ? "yes" : in == 0 ? "<strong class=\"own-flag-word\">no</strong>"
                                          : "<span class=\"muted\">not scored: not the plan's counter</span>");
  ui_buf_raw(b, "</td></tr>");
}

void ui_render_own_plan(ui_buf *b, const cJSON *plan) {
  const cJSON *c, *oom = ui_json_obj(plan, "oom");
  ui_buf_raw(b, "<section class=\"own-plan\" aria-labelledby=\"yours-plan\"><h3 id=\"yours-plan\">The plan, run on "
                "your device</h3><p>");
  ui_buf_text(b, ui_json_str(plan, "model") ? ui_json_text(plan, "model") : ui_json_text(plan, "arch"));
  ui_buf_raw(b, ", planned on <strong>");
  ui_buf_text(b, ui_json_text(plan, "profile"));
  ui_buf_raw(b, "</strong> (<a href=\"#plan\">Will it fit?</a>), trained on your ");
  ui_buf_text(b, ui_json_text(plan, "device"));
  ui_buf_raw(b, ": ");
  ui_buf_text(b, ui_json_text(plan, "verdict"));
  ui_buf_raw(b, "</p>");
  if (oom) {
    ui_buf_raw(b, "<p class=\"own-flag\"><code>");
    ui_buf_text(b, ui_json_text(oom, "message"));
    ui_buf_raw(b, "</code> <a class=\"own-explain\" href=\"");
    ui_own_explain_href(b, ui_json_text(oom, "message"), 4096);
    ui_buf_raw(b, "\">Explain this message</a></p>");
  }
  if (cJSON_GetArraySize(ui_json_arr(plan, "counters"))) {
    ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"own-figures own-plan-counters\" role=\"table\"><caption>"
                  "Each counter beside the plan's prediction of the same counter</caption><thead role=\"rowgroup\">"
                  "<tr role=\"row\"><th scope=\"col\" role=\"columnheader\">counter</th><th scope=\"col\" "
                  "role=\"columnheader\">your run</th><th scope=\"col\" role=\"columnheader\">the plan</th><th "
                  "scope=\"col\" role=\"columnheader\">ratio</th><th scope=\"col\" role=\"columnheader\">in the plan's "
                  "band?</th></tr></thead><tbody role=\"rowgroup\">");
    cJSON_ArrayForEach(c, ui_json_arr(plan, "counters")) counter_row(b, c);
    ui_buf_raw(b, "</tbody></table></div><details class=\"own-method\"><summary>How each counter was read</summary><dl>");
    cJSON_ArrayForEach(c, ui_json_arr(plan, "counters")) {
      ui_buf_raw(b, "<dt>");
      ui_buf_text(b, counter_name(ui_json_text(c, "id")));
      ui_buf_raw(b, " <code>");
      ui_buf_text(b, ui_json_text(c, "id"));
      ui_buf_raw(b, "</code></dt><dd>");
      ui_buf_text(b, ui_json_text(c, "what"));
      ui_buf_raw(b, "</dd>");
    }
    ui_buf_raw(b, "</dl></details>");
  }
  if (cJSON_GetArraySize(ui_json_arr(plan, "unavailable"))) {
    ui_buf_raw(b, "<p>Not measured on this device:</p>");
    ui_own_reasons(b, ui_json_arr(plan, "unavailable"), "id", counter_name);
  }
  cJSON_ArrayForEach(c, ui_json_arr(plan, "notes")) if (cJSON_IsString(c)) {
      ui_buf_raw(b, "<p class=\"muted\">");
      ui_buf_text(b, c->valuestring);
      ui_buf_raw(b, "</p>");
    }
  ui_buf_raw(b, "</section>");
}
