/* The planner's page (plan_page.h): the form, the link's query read into
 * it, one plan at a time sent to the simulation module's worker, and the
 * latest answer drawn. */
#include "plan_page.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "json.h"
#include "plan_view.h"
#include "profiles.h"

#define FIELDS 10
#define VALUE_MAX 48

typedef struct field {
  const char *key, *label;
  const char *const *choices; /* NULL: a number */
  const char *initial;
} field;

static const char *const precisions[] = {"fp32", "amp-fp16", "amp-bf16", "bf16", NULL};
static const char *const optimizers[] = {"adamw", "sgd", "adafactor", "adam8bit", NULL};
static const char *const ckpts[] = {"none", "selective", "full", NULL};
static const char *const attentions[] = {"eager", "sdpa", NULL};
static const char *const preset_choice[] = {"", NULL}; /* filled from the first answer */
static const char *const profile_choice[] = {"", NULL}; /* filled from lab_profile_at */

static const field fields[FIELDS] = {
    {"preset", "Model", preset_choice, "gpt2-124m"},
    {"seq", "Tokens per sequence", NULL, "1024"},
    {"batch", "Micro-batch (sequences)", NULL, "8"},
    {"accum", "Gradient accumulation steps", NULL, "1"},
    {"precision", "Precision", precisions, "fp32"},
    {"optimizer", "Optimizer", optimizers, "adamw"},
    {"checkpointing", "Activation checkpointing", ckpts, "none"},
    {"attention", "Attention", attentions, "eager"},
    {"lora_rank", "LoRA rank (0: full fine-tuning; Llama models)", NULL, "0"},
    {"profile", "GPU", profile_choice, ""},
};

static struct {
  uintptr_t asked;                /* plans sent: only the latest one's answer is drawn */
  char value[FIELDS][VALUE_MAX];  /* the form's values as the link gave them */
  ui_plan_oom oom;
  bool presets_filled;
} st;

const char *ui_plan_profile_near(double total) {
  const char *best = NULL;
  double gap = INFINITY;
  for (int i = 0; total > 0 && i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    double d = fabs((double)p->memory_bytes - total);
    if (p->platform == LAB_PLATFORM_CUDA && d < gap) gap = d, best = p->name;
  }
  return best;
}

static int field_of(const char *key) {
  for (int i = 0; i < FIELDS; i++)
    if (!strcmp(fields[i].key, key)) return i;
  return -1;
}

/* "k=v&…": a field's value (device names the profile), or what an error said. */
static void read_query(const char *q) {
  char key[32], val[VALUE_MAX];
  for (int i = 0; i < FIELDS; i++) snprintf(st.value[i], VALUE_MAX, "%s", fields[i].initial);
  snprintf(st.value[field_of("profile")], VALUE_MAX, "%s", lab_profile_default()->name);
  memset(&st.oom, 0, sizeof st.oom);
  for (; q && *q;) {
    const char *amp = strchr(q, '&'), *end = amp ? amp : q + strlen(q), *eq = memchr(q, '=', (size_t)(end - q));
    if (eq && eq - q < (long)sizeof key && end - eq - 1 < (long)sizeof val) {
      snprintf(key, sizeof key, "%.*s", (int)(eq - q), q);
      snprintf(val, sizeof val, "%.*s", (int)(end - eq - 1), eq + 1);
      double v = strtod(val, NULL);
      int f = field_of(!strcmp(key, "device") ? "profile" : key);
      if (f >= 0) snprintf(st.value[f], VALUE_MAX, "%s", val);
      else if (!strcmp(key, "tried")) st.oom.tried = v;
      else if (!strcmp(key, "total")) st.oom.total = v;
      else if (!strcmp(key, "allocated")) st.oom.allocated = v;
      else if (!strcmp(key, "reserved")) st.oom.reserved = v;
    }
    q = amp ? amp + 1 : NULL;
  }
}

static void option(ui_buf *b, const char *value, const char *label, const char *chosen) {
  ui_buf_raw(b, "<option value=\"");
  ui_buf_text(b, value);
  ui_buf_raw(b, strcmp(value, chosen) ? "\">" : "\" selected>");
  ui_buf_text(b, label);
  ui_buf_raw(b, "</option>");
}

static void form(ui_buf *b) {
  ui_buf_raw(b, "<form class=\"plan-form\" id=\"plan-form\">");
  for (int i = 0; i < FIELDS; i++) {
    const field *f = &fields[i];
    ui_buf_rawf(b, "<div class=\"plan-field\"><label for=\"plan-%s\">", f->key);
    ui_buf_text(b, f->label);
    ui_buf_raw(b, "</label>");
    if (!f->choices) {
      ui_buf_rawf(b, "<input id=\"plan-%s\" type=\"number\" min=\"0\" step=\"1\" value=\"", f->key);
      ui_buf_text(b, st.value[i]);
      ui_buf_raw(b, "\"></div>");
      continue;
    }
    ui_buf_rawf(b, "<select id=\"plan-%s\">", f->key);
    if (f->choices == profile_choice)
      for (int k = 0; k < lab_profile_count(); k++) {
        const lab_profile *p = lab_profile_at(k);
        if (p->platform == LAB_PLATFORM_CUDA) option(b, p->name, p->device_name, st.value[i]);
      }
    else if (f->choices == preset_choice)
      option(b, st.value[i], st.value[i], st.value[i]);
    else
      for (int k = 0; f->choices[k]; k++) option(b, f->choices[k], f->choices[k], st.value[i]);
    ui_buf_raw(b, "</select></div>");
  }
  ui_buf_raw(b, "<button type=\"button\" class=\"button\" data-action=\"plan-run\">Plan</button></form>");
}

static void on_answer(int status, const char *text, size_t len, void *ctx) {
  if ((uintptr_t)ctx != st.asked) return;
  cJSON *a = status ? lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  ui_buf b;
  ui_buf_init(&b);
  if (a) ui_render_plan(&b, a, &st.oom);
  else
    ui_buf_raw(&b, "<p class=\"exp-failure\" role=\"alert\">The planner did not start in this browser (offline before "
                   "its first visit, or no Web Worker): reload the page online once, or run <code>gpulab plan</code>."
                   "</p>");
  ui_dom_set_attr("plan-out", "aria-busy", "false");
  ui_dom_set_html("plan-out", b.failed ? "<p>Out of memory while drawing the plan.</p>" : ui_buf_str(&b));
  if (a && status == 200 && !st.presets_filled) {
    ui_buf p;
    ui_buf_init(&p);
    ui_render_plan_presets(&p, a, st.value[0]);
    if (!p.failed && p.len > 0) ui_dom_set_html("plan-preset", ui_buf_str(&p)), st.presets_filled = true;
    ui_buf_free(&p);
  }
  ui_buf_free(&b);
  cJSON_Delete(a);
}

/* The form's values as the planner's settings (numbers as numbers). */
static void plan(bool from_form) {
  cJSON *s = cJSON_CreateObject();
  char id[32], val[VALUE_MAX];
  for (int i = 0; s && i < FIELDS; i++) {
    snprintf(id, sizeof id, "plan-%s", fields[i].key);
    if (from_form && ui_dom_value(id, val, sizeof val) >= 0) snprintf(st.value[i], VALUE_MAX, "%s", val);
    if (!st.value[i][0]) continue;
    char *stop;
    double v = strtod(st.value[i], &stop);
    if (!fields[i].choices && !*stop && isfinite(v)) cJSON_AddNumberToObject(s, fields[i].key, v);
    else cJSON_AddStringToObject(s, fields[i].key, st.value[i]);
  }
  char *text = s ? cJSON_PrintUnformatted(s) : NULL;
  cJSON_Delete(s);
  st.asked++;
  ui_dom_set_attr("plan-out", "aria-busy", "true");
  ui_dom_set_html("plan-out", "<p class=\"muted\" id=\"plan-wait\">Planning…</p>");
  if (text) ui_simulate("plan", text, "", on_answer, (void *)st.asked);
  else on_answer(0, "", 0, (void *)st.asked);
  free(text);
}

void ui_plan_show(const char *hash, const ui_device_state *dev, bool focus) {
  (void)dev; /* the planner plans a profile's GPU, not the device the server has */
  const char *q = hash ? strchr(hash, '?') : NULL;
  read_query(q ? q + 1 : NULL);
  st.presets_filled = false;
  ui_buf b;
  ui_buf_init(&b);
  ui_buf_raw(&b, "<header class=\"lesson-head\"><p class=\"kicker\">Before you train</p><h1 id=\"lesson-title\" "
                 "tabindex=\"-1\">Will it fit?</h1><p class=\"lesson-summary\">Plan one training step: what each "
                 "memory counter would read, whether it fits on the GPU, how long a step takes and what each lever "
                 "would change. Planned in your browser; nothing is sent.</p></header>");
  form(&b);
  ui_buf_raw(&b, "<section id=\"plan-out\" aria-live=\"polite\"></section>");
  ui_dom_set_html("lesson", b.failed ? "<p>Out of memory while drawing this page. Reload the page.</p>" : ui_buf_str(&b));
  ui_buf_free(&b);
  ui_dom_set_title("Will it fit? The training planner — gpulab");
  plan(false);
  if (focus) ui_dom_focus("lesson-title");
}

bool ui_plan_action(const char *action, const char *arg) {
  (void)arg;
  if (strcmp(action, "plan-run") != 0) return false;
  plan(true);
  return true;
}

void ui_plan_shutdown(void) { st.asked++; /* an answer on its way is dropped */ }
