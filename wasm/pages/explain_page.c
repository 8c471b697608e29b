/* The "Paste your error" page: the form, the explained items (memory bar as
 * SVG, diagnosis, steps, lesson link, experiment link) and the actions.
 * The explainer runs in the browser, in the reader module's Web Worker
 * (bridge.h, ui_explain_text): nothing is sent anywhere, and its 13 KB of
 * brotli stay off the first screen's module. */
#include "explain_page.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "experiment.h"
#include "explain.h" /* LAB_EXPLAIN_MAX_BYTES only: lab/explain/ is the reader module's */
#include "json.h"
#include "json_get.h"
#include "lesson_html.h"
#include "plan_page.h"
#include "registry.h"
#include "units.h"

static struct {
  uintptr_t asked; /* pastes sent so far: the latest one's answer is drawn */
} st;

/* Bar parts' colours: the page's palette by part (CSS classes in style.css). */
void ui_render_explain_bar(ui_buf *b, const cJSON *bar, int i) {
  const cJSON *parts = cJSON_GetObjectItemCaseSensitive(bar, "parts"), *p;
  const cJSON *total = cJSON_GetObjectItemCaseSensitive(bar, "total_bytes");
  if (!cJSON_IsNumber(total) || total->valuedouble <= 0) return;
  double T = total->valuedouble, x = 0;
  char tot[32];
  ui_buf_rawf(b, "<figure class=\"explain-bar\"><svg viewBox=\"0 0 1000 60\" preserveAspectRatio=\"none\" role=\"img\" "
                 "aria-labelledby=\"explain-bar-cap-%d\" class=\"explain-bar-svg\">", i);
  cJSON_ArrayForEach(p, parts) {
    double v = cJSON_GetObjectItemCaseSensitive(p, "bytes")->valuedouble, w = v / T * 1000;
    if (w <= 0) continue;
    ui_buf_rawf(b, "<rect class=\"bar-%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"60\"><title>", ui_json_text(p, "id"), x,
                w < 1 ? 1 : w);
    ui_buf_text(b, ui_json_text(p, "label"));
    ui_buf_raw(b, ": ");
    ui_buf_text(b, ui_json_text(p, "printed"));
    ui_buf_raw(b, "</title></rect>");
    x += w;
  }
  /* the bar's own name when the answer gives one (an MPS OOM's bar is the allocator's limit, not the GPU's memory) */
  ui_buf_rawf(b, "</svg><figcaption id=\"explain-bar-cap-%d\">", i);
  ui_buf_text(b, ui_json_text(bar, "of")[0] ? ui_json_text(bar, "of") : "The GPU's memory");
  ui_buf_raw(b, ", ");
  ui_buf_text(b, ui_json_text(bar, "total_printed")[0] ? ui_json_text(bar, "total_printed") : ui_fmt_bytes(T, tot));
  ui_buf_raw(b, " in all:</figcaption><ul class=\"explain-legend\">");
  cJSON_ArrayForEach(p, parts) {
    ui_buf_rawf(b, "<li><span class=\"swatch bar-%s\" aria-hidden=\"true\"></span><strong>", ui_json_text(p, "id"));
    ui_buf_text(b, ui_json_text(p, "printed"));
    ui_buf_raw(b, "</strong> ");
    ui_buf_text(b, ui_json_text(p, "label"));
    ui_buf_raw(b, "</li>");
  }
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(bar, "request")) {
    ui_buf_raw(b, "<li class=\"explain-request\"><span class=\"swatch bar-request\" aria-hidden=\"true\"></span><strong>");
    ui_buf_text(b, ui_json_text(p, "printed"));
    ui_buf_raw(b, "</strong> ");
    ui_buf_text(b, ui_json_text(p, "label"));
    ui_buf_raw(b, " (did not fit)</li>");
  }
  ui_buf_raw(b, "</ul></figure>");
}

static void fact_value(ui_buf *b, const cJSON *f) {
  if (cJSON_IsString(f)) ui_buf_text(b, f->valuestring);
  else if (cJSON_IsBool(f)) ui_buf_raw(b, cJSON_IsTrue(f) ? "yes" : "no");
  else if (cJSON_IsNumber(f)) ui_buf_text(b, LAB_PLAIN(f->valuedouble)); /* never "7.7e+02" */
  else if (cJSON_IsObject(f) && cJSON_GetObjectItemCaseSensitive(f, "printed")) ui_buf_text(b, ui_json_text(f, "printed"));
  else if (cJSON_IsArray(f)) {
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, f) {
      if (i++) ui_buf_raw(b, ", ");
      if (cJSON_IsString(e)) ui_buf_text(b, e->valuestring);
      else if (cJSON_IsObject(e)) {
        ui_buf_text(b, ui_json_text(e, "name"));
        ui_buf_raw(b, " (");
        ui_buf_text(b, ui_json_text(e, "used"));
        ui_buf_raw(b, " of ");
        ui_buf_text(b, ui_json_text(e, "total"));
        ui_buf_raw(b, ", ");
        ui_buf_text(b, ui_json_text(e, "util"));
        ui_buf_raw(b, ")");
      }
    }
  }
}

/* "Open the planner with these numbers": an out-of-memory message's sizes
 * (bytes) carried to #plan, with the profile nearest its total capacity. */
static void plan_link(ui_buf *b, const cJSON *facts) {
  static const char *const keys[] = {"tried", "total", "allocated", "reserved"};
  char href[256];
  size_t n = (size_t)snprintf(href, sizeof href, "#plan?");
  int said = 0;
  for (int k = 0; k < 4; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, keys[k]), "bytes");
    if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || n >= sizeof href) continue;
    n += (size_t)snprintf(href + n, sizeof href - n, "%s%s=%.0f", said++ ? "&" : "", keys[k], v->valuedouble);
  }
  const cJSON *total = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "total"), "bytes");
  const char *device = cJSON_IsNumber(total) ? ui_plan_profile_near(total->valuedouble) : NULL;
  if (device && n < sizeof href) n += (size_t)snprintf(href + n, sizeof href - n, "&device=%s", device);
  if (!said || n >= sizeof href) return;
  ui_buf_raw(b, "<a class=\"button explain-plan\" href=\"");
  ui_buf_text(b, href);
  ui_buf_raw(b, "\">Open the planner with these numbers</a> ");
}

static void one_item(ui_buf *b, const cJSON *it, int i) {
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "diagnosis"), *x;
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(it, "lesson"), *e = cJSON_GetObjectItemCaseSensitive(it, "experiment");
  ui_buf_rawf(b, "<article class=\"explain-item\" id=\"explain-item-%d\" data-kind=\"", i);
  ui_buf_text(b, ui_json_text(it, "kind"));
  ui_buf_raw(b, "\"><h2>");
  ui_buf_text(b, ui_json_text(d, "title"));
  ui_buf_raw(b, "</h2><p>");
  ui_buf_text(b, ui_json_text(d, "text"));
  ui_buf_raw(b, "</p>");
  if (cJSON_GetObjectItemCaseSensitive(it, "bar")) ui_render_explain_bar(b, cJSON_GetObjectItemCaseSensitive(it, "bar"), i);
  const cJSON *layers = cJSON_GetObjectItemCaseSensitive(it, "layers");
  if (layers) { /* the device check's picture: where the failure sits */
    ui_buf_raw(b, "<table class=\"explain-layers\"><caption>The layers CUDA work passes through</caption><thead><tr>"
                  "<th scope=\"col\">layer</th><th scope=\"col\">your value</th><th scope=\"col\">state</th></tr></thead><tbody>");
    cJSON_ArrayForEach(x, layers) {
      ui_buf_rawf(b, "<tr class=\"layer-%s\"><th scope=\"row\">", !strcmp(ui_json_text(x, "state"), "failed") ? "failed" : "other");
      ui_buf_text(b, ui_json_text(x, "layer"));
      ui_buf_raw(b, "</th><td>");
      ui_buf_text(b, ui_json_text(x, "value")[0] ? ui_json_text(x, "value") : "—");
      ui_buf_raw(b, "</td><td>");
      ui_buf_text(b, ui_json_text(x, "state"));
      ui_buf_raw(b, "</td></tr>");
    }
    ui_buf_raw(b, "</tbody></table>");
  }
  const cJSON *facts = cJSON_GetObjectItemCaseSensitive(it, "facts");
  if (facts && facts->child) {
    ui_buf_raw(b, "<details class=\"explain-facts\"><summary>What the text says</summary><dl>");
    cJSON_ArrayForEach(x, facts) {
      ui_buf_raw(b, "<dt>");
      ui_buf_text(b, x->string);
      ui_buf_raw(b, "</dt><dd>");
      fact_value(b, x);
      ui_buf_raw(b, "</dd>");
    }
    ui_buf_raw(b, "</dl></details>");
  }
  ui_buf_raw(b, "<h3>First things to try</h3><ol class=\"explain-steps\">");
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(it, "steps")) {
    ui_buf_raw(b, "<li>");
    ui_buf_text(b, cJSON_IsString(x) ? x->valuestring : "");
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ol><p class=\"explain-links\">");
  ui_render_lesson_link(b, l);
  if (!strcmp(ui_json_text(it, "kind"), "oom")) plan_link(b, facts);
  const lab_experiment *ex = lab_experiment_find(ui_json_text(e, "name"));
  if (ex) {
    char href[512];
    int prefilled = ui_exp_workbench_href(ex, cJSON_GetObjectItemCaseSensitive(e, "params"), href, sizeof href);
    ui_buf_raw(b, "<a class=\"button explain-open\" href=\"");
    ui_buf_text(b, href);
    ui_buf_raw(b, "\">Open the experiment: ");
    ui_buf_text(b, ex->title);
    if (prefilled) ui_buf_raw(b, " (pre-filled from your text)");
    ui_buf_raw(b, "</a>");
  }
  ui_buf_raw(b, "</p>");
  if (cJSON_GetObjectItemCaseSensitive(e, "ask"))
    ui_buf_raw(b, "<p class=\"muted\">Your model's size is not in the text: fill in its parameters (millions), hidden "
                  "size and layers in the experiment.</p>");
  const cJSON *looked = cJSON_GetObjectItemCaseSensitive(it, "looked_for");
  if (looked) {
    ui_buf_raw(b, "<details><summary>What I looked for</summary><ul>");
    cJSON_ArrayForEach(x, looked) {
      ui_buf_raw(b, "<li>");
      ui_buf_text(b, cJSON_IsString(x) ? x->valuestring : "");
      ui_buf_raw(b, "</li>");
    }
    ui_buf_raw(b, "</ul></details>");
  }
  ui_buf_raw(b, "</article>");
}

void ui_render_explain_items(ui_buf *b, const cJSON *env) {
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(env, "error");
  if (err) {
    ui_buf_raw(b, "<p class=\"exp-failure\" role=\"alert\">");
    ui_buf_text(b, ui_json_text(err, "message"));
    ui_buf_raw(b, "</p>");
    return;
  }
  const cJSON *it;
  int i = 0;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(env, "items")) one_item(b, it, i++);
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(env, "more")))
    ui_buf_raw(b, "<p class=\"muted\">More messages follow; paste them separately.</p>");
}

static void run(void);

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The text an address carries ("#explain?text=…", percent-encoded: a
 * message the page links here, such as one the learner's kit run caught)
 * into out; 0 when it carries none. */
static size_t carried_text(const char *hash, char *out, size_t cap) {
  const char *q = hash ? strstr(hash, "?text=") : NULL;
  size_t n = 0;
  for (q = q ? q + 6 : ""; *q && *q != '&' && n + 1 < cap; q++) {
    int hi, lo;
    if (*q == '%' && (hi = hex_digit(q[1])) >= 0 && (lo = hex_digit(q[2])) >= 0) {
      out[n++] = (char)(hi << 4 | lo);
      q += 2;
    } else {
      out[n++] = *q == '+' ? ' ' : *q;
    }
  }
  out[n] = '\0';
  return n;
}

void ui_explain_show(const char *hash, const ui_device_state *dev, bool focus) {
  static char carried[LAB_EXPLAIN_MAX_BYTES + 1];
  size_t carries = carried_text(hash, carried, sizeof carried);
  ui_buf b;
  (void)dev; /* an answer's experiment opens on the workbench (#lab/NAME), which has the device */
  ui_buf_init(&b);
  ui_buf_raw(&b, "<header class=\"lesson-head\"><p class=\"kicker\">First-line debugging</p>"
                 "<h1 id=\"lesson-title\" tabindex=\"-1\">Paste your error</h1><p class=\"lesson-summary\">An "
                 "out-of-memory message, a device mismatch, a device-side assert, nvidia-smi's table, collect_env "
                 "output… It is read here, in your browser: nothing is uploaded.</p></header>"
                 "<form class=\"explain-form\"><label for=\"explain-text\">Your error "
                 "message or tool output</label><textarea id=\"explain-text\" rows=\"10\" spellcheck=\"false\" "
                 "autocomplete=\"off\" placeholder=\"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                 "…\">");
  ui_buf_text(&b, carried);
  ui_buf_raw(&b, "</textarea><button type=\"button\" class=\"button\" data-action=\"explain-run\">Explain"
                 "</button></form><section id=\"explain-out\" aria-live=\"polite\"></section>");
  ui_dom_set_html("lesson", b.failed ? "<p>Out of memory while drawing this page. Reload the page.</p>" : ui_buf_str(&b));
  ui_buf_free(&b);
  ui_dom_set_title("Paste your error — gpulab");
  st.asked++; /* an answer to the page drawn before is not shown on this one */
  ui_explain_warm();
  if (focus) ui_dom_focus("lesson-title");
  if (carries) run(); /* a message linked here is explained at once */
}

/* The answer as the reader's worker gave it (bridge.h, ui_explain_text):
 * parsed here and drawn, or why there is none. */
void ui_render_explain_answer(ui_buf *b, int status, const char *text, size_t len) {
  cJSON *j = status ? lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  if (j && (status == 200 || cJSON_GetObjectItemCaseSensitive(j, "error"))) ui_render_explain_items(b, j);
  else
    ui_buf_raw(b, "<p class=\"exp-failure\" role=\"alert\">The explainer did not start in this browser (offline "
                  "before its first visit to this page, or no Web Worker): reload the page online once, or run "
                  "<code>gpulab explain</code>.</p>");
  cJSON_Delete(j);
}

static void draw(int status, const char *text, size_t len) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_explain_answer(&b, status, text, len);
  ui_dom_set_attr("explain-out", "aria-busy", "false");
  ui_dom_set_html("explain-out", b.failed ? "<p>Out of memory while drawing the answer.</p>" : ui_buf_str(&b));
  ui_buf_free(&b);
}

/* ctx: the paste's number; an answer to an older paste, or one asked
 * before the page was drawn again, is not shown. */
static void on_answer(int status, const char *body, size_t len, void *ctx) {
  if ((uintptr_t)ctx != st.asked) return;
  draw(status, body, len);
}

static void run(void) {
  static char text[LAB_EXPLAIN_MAX_BYTES + 1];
  int n = ui_dom_value("explain-text", text, sizeof text);
  st.asked++;
  if (n < 0) { /* over the cap: said here, the text is never posted */
    lab_error err = {0};
    lab_fail(&err, LAB_E_EXPLAIN_TOO_LARGE, NULL, NULL);
    cJSON *e = lab_error_json(&err);
    char *t = e ? cJSON_PrintUnformatted(e) : NULL;
    draw(lab_err_http_status(err.code), t ? t : "", t ? strlen(t) : 0);
    free(t);
    cJSON_Delete(e);
    return;
  }
  ui_dom_set_attr("explain-out", "aria-busy", "true");
  ui_dom_set_html("explain-out", "<p class=\"muted explain-wait\" id=\"explain-wait\">Explaining…</p>");
  ui_explain_text(text, (size_t)n, on_answer, (void *)st.asked);
}

bool ui_explain_action(const char *action, const char *arg) {
  (void)arg; /* its one action takes none */
  if (!strcmp(action, "explain-run")) run();
  else return false;
  return true;
}

void ui_explain_shutdown(void) { st.asked++; /* an answer still on its way is dropped */ }
