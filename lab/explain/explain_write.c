/* Writes one explained item as the answer carries it: kind, facts, the
 * diagnosis with its text's {fact} holes filled from the facts, the steps,
 * the lesson section (with the page's address) and the experiment with the
 * parameters read from the text (or the ones to ask for), and the OOM bar. */
#include <stdio.h>
#include <string.h>

#include "explain_diag.h"
#include "explain_item.h"
#include "explain_scan.h"
#include "units.h"

#define TEXT_MAX 2048

/* The printed value of one fact, or of a bar part ("bar.cache"). */
static void fact_text(const lab_ex_item *it, const char *key, char *out, size_t cap) {
  out[0] = '\0';
  if (!strncmp(key, "bar.", 4)) {
    const char *want = key + 4;
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(it->bar, "parts"), *p;
    for (int pass = 0; pass < 2 && !out[0]; pass++) {
      if (!strcmp(key + 4, "outside_or_others")) want = pass ? "outside" : "others";
      cJSON_ArrayForEach(p, parts) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
        if (cJSON_IsString(id) && !strcmp(id->valuestring, want))
          snprintf(out, cap, "%s", cJSON_GetObjectItemCaseSensitive(p, "printed")->valuestring);
      }
    }
    return;
  }
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(it->facts, key);
  if (cJSON_IsString(f)) snprintf(out, cap, "%s", f->valuestring);
  else if (cJSON_IsObject(f) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "printed")))
    snprintf(out, cap, "%s", cJSON_GetObjectItemCaseSensitive(f, "printed")->valuestring);
  else if (cJSON_IsNumber(f)) lab_fmt_plain(f->valuedouble, out, cap); /* never "7.7e+02" */
  else if (cJSON_IsArray(f)) {
    const cJSON *e;
    size_t used = 0;
    cJSON_ArrayForEach(e, f) if (cJSON_IsString(e) && used < cap) used += (size_t)snprintf(
        out + used, cap - used, "%s%s", used ? " and " : "", e->valuestring);
  }
}

/* The template with each {key} replaced by its fact ("?" when absent). */
static void fill(const lab_ex_item *it, const char *tmpl, char *out, size_t cap) {
  size_t o = 0;
  for (const char *p = tmpl; *p && o + 1 < cap; p++) {
    const char *close = *p == '{' ? strchr(p, '}') : NULL;
    if (close && close - p < 40) {
      char key[40], val[256];
      memcpy(key, p + 1, (size_t)(close - p - 1));
      key[close - p - 1] = '\0';
      fact_text(it, key, val, sizeof val);
      o += (size_t)snprintf(out + o, cap - o, "%s", val[0] ? val : "?");
      if (o >= cap) o = cap - 1;
      p = close;
    } else {
      out[o++] = *p;
    }
  }
  out[o] = '\0';
}

static void add_lesson(cJSON *o, const lab_ex_diag *d) {
  char href[128];
  cJSON *l = cJSON_AddObjectToObject(o, "lesson");
  cJSON_AddStringToObject(l, "id", d->lesson);
  cJSON_AddStringToObject(l, "section", d->section);
  snprintf(href, sizeof href, "#lesson/%s/%s", d->lesson, d->section);
  cJSON_AddStringToObject(l, "href", href);
}

static cJSON *write(const lab_ex_item *it, const lab_ex_diag *d) {
  char *text = cJSON_malloc(TEXT_MAX);
  cJSON *o = cJSON_CreateObject();
  if (!text || !o) {
    cJSON_free(text);
    cJSON_Delete(o);
    return NULL;
  }
  cJSON_AddStringToObject(o, "kind", it->kind);
  cJSON_AddItemToObject(o, "facts", it->facts ? cJSON_Duplicate(it->facts, 1) : cJSON_CreateObject());
  cJSON *dj = cJSON_AddObjectToObject(o, "diagnosis");
  cJSON_AddStringToObject(dj, "id", d->id);
  fill(it, d->title, text, TEXT_MAX);
  cJSON_AddStringToObject(dj, "title", text);
  fill(it, d->text, text, TEXT_MAX);
  cJSON_AddStringToObject(dj, "text", text);
  cJSON *steps = cJSON_AddArrayToObject(o, "steps");
  for (int i = 0; i < LAB_EX_MAX_STEPS && d->steps[i]; i++) {
    fill(it, d->steps[i], text, TEXT_MAX);
    cJSON_AddItemToArray(steps, cJSON_CreateString(text));
  }
  add_lesson(o, d);
  cJSON *e = cJSON_AddObjectToObject(o, "experiment");
  cJSON_AddStringToObject(e, "name", d->experiment);
  /* a recogniser reads parameters only for its own experiment (OOM: memory, mismatch: placement) */
  cJSON_AddItemToObject(e, "params", it->params ? cJSON_Duplicate(it->params, 1) : cJSON_CreateObject());
  if (it->ask && !strcmp(d->experiment, "memory")) cJSON_AddItemToObject(e, "ask", cJSON_Duplicate(it->ask, 1));
  snprintf(text, TEXT_MAX, "#lab/%s", d->experiment);
  cJSON_AddStringToObject(e, "href", text);
  if (it->bar) cJSON_AddItemToObject(o, "bar", cJSON_Duplicate(it->bar, 1));
  cJSON *layers = lab_ex_layers_json(it);
  if (layers) cJSON_AddItemToObject(o, "layers", layers);
  cJSON_free(text);
  return o;
}

cJSON *lab_ex_item_json(const lab_ex_item *it) { return write(it, lab_ex_diag_find(it->diag)); }

cJSON *lab_ex_unknown_json(void) {
  lab_ex_item it = {.kind = "unknown", .diag = "unknown"};
  cJSON *o = write(&it, lab_ex_diag_find("unknown"));
  cJSON *looked = cJSON_CreateStringArray(
      (const char *const[]){"CUDA out of memory (both wordings)", "Expected all tensors to be on the same device",
                            "Input type (…) and weight type (…) should be the same", "can't convert … to numpy",
                            "device-side assert triggered", "an illegal memory access was encountered",
                            "Torch not compiled with CUDA enabled", "Found no NVIDIA driver", "driver … too old",
                            "no kernel image is available", "sm_XX is not compatible",
                            "NVIDIA-SMI has failed", "Cannot re-initialize CUDA in forked subprocess",
                            "CUBLAS_STATUS_*", "nvidia-smi's table", "collect_env output",
                            "memory_summary() / memory_stats()"},
      17);
  if (o) cJSON_AddItemToObject(o, "looked_for", looked);
  else cJSON_Delete(looked);
  return o;
}
