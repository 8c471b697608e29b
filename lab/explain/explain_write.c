/* Writes one explained item as the answer carries it: kind, facts, the
 * diagnosis with its text's {fact} holes filled from the facts, the steps,
 * the lesson section (with the page's address) and the experiment with the
 * parameters read from the text (or the ones to ask for), and the OOM bar. */
#include <stdio.h>
#include <string.h>

#include "explain_diag.h"
#include "explain_item.h"
#include "explain_scan.h"
#include "lesson_titles.h"
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

/* A hole: "{key}", key of lower-case letters, '_' and '.' (anything else between braces is text). */
static size_t hole(const char *p, char *key, size_t cap) {
  size_t k = 1;
  while (p[k] && ((p[k] >= 'a' && p[k] <= 'z') || p[k] == '_' || p[k] == '.') && k < cap) k++;
  if (p[k] != '}' || k == 1) return 0;
  memcpy(key, p + 1, k - 1);
  key[k - 1] = '\0';
  return k + 1;
}

/* Whether a fact is there and not false ("[?from_numpy …]"). */
static int fact_true(const lab_ex_item *it, const char *key) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(it->facts, key);
  return f && !cJSON_IsFalse(f) && !cJSON_IsNull(f) && !(cJSON_IsString(f) && !f->valuestring[0]);
}

/* The template with each {key} replaced by its fact. Nothing is ever
 * printed in place of a fact the text did not give: "[…]" is a part
 * left out whole when a hole inside it is empty ("[?key …]": left out
 * unless the fact is true), and a sentence whose hole outside such a part
 * is empty is left out (tests/unit/check_explain.c fills every row with
 * no facts at all). */
static void fill(const lab_ex_item *it, const char *tmpl, char *out, size_t cap) {
  size_t o = 0, part = 0, sentence = 0; /* where the open part and the current sentence start in out */
  int in_part = 0, part_empty = 0, sentence_empty = 0;
  char key[40], val[256];
  for (const char *p = tmpl; *p && o + 1 < cap; p++) {
    size_t used = *p == '{' ? hole(p, key, sizeof key) : 0;
    if (used) {
      fact_text(it, key, val, sizeof val);
      if (!val[0]) *(in_part ? &part_empty : &sentence_empty) = 1;
      o += (size_t)snprintf(out + o, cap - o, "%s", val);
      if (o >= cap) o = cap - 1;
      p += used - 1;
    } else if (*p == '[' && !in_part) {
      in_part = 1, part_empty = 0, part = o;
      if (p[1] == '?') { /* "[?key …]": shown when the fact is true */
        size_t k = strcspn(p + 2, " ]");
        snprintf(key, sizeof key, "%.*s", (int)(k < sizeof key - 1 ? k : sizeof key - 1), p + 2);
        part_empty = !fact_true(it, key);
        p += 1 + k;
      }
    } else if (*p == ']' && in_part) {
      in_part = 0;
      if (part_empty) o = part;
    } else {
      out[o++] = *p;
      if (!in_part && (*p == '.' || *p == '!') && (p[1] == ' ' || !p[1])) { /* a sentence ends */
        if (sentence_empty) o = sentence; /* and its space: the next sentence starts where it did */
        else if (p[1]) out[o++] = ' ';
        if (p[1]) p++;
        sentence = o, sentence_empty = 0;
      }
    }
  }
  if (sentence_empty) o = sentence;
  while (o > 0 && out[o - 1] == ' ') o--;
  out[o] = '\0';
}

/* Whether a step is for this item: "@cuda@none Run nvidia-smi…" is for NVIDIA and for a paste that
 * shows no platform, "@kaggle …" for a paste that names Kaggle; a step without tags is for every one.
 * *text: the words after the tags. */
static int step_for(const lab_ex_item *it, const char *step, const char **text) {
  const cJSON *pf = cJSON_GetObjectItemCaseSensitive(it->facts, "platform");
  const cJSON *hf = cJSON_GetObjectItemCaseSensitive(it->facts, "host");
  const char *platform = cJSON_IsString(pf) ? pf->valuestring : "none", *host = cJSON_IsString(hf) ? hf->valuestring : "";
  const char *p = step;
  int tagged = 0, mine = 0;
  while (*p == '@') {
    size_t k = strcspn(p + 1, "@ ");
    if ((k == strlen(platform) && !strncmp(p + 1, platform, k)) || (k && k == strlen(host) && !strncmp(p + 1, host, k)))
      mine = 1;
    tagged = 1;
    p += 1 + k;
  }
  while (*p == ' ') p++;
  *text = p;
  return !tagged || mine;
}

static void add_lesson(cJSON *o, const lab_ex_diag *d) {
  char href[128];
  cJSON *l = cJSON_AddObjectToObject(o, "lesson");
  cJSON_AddStringToObject(l, "id", d->lesson);
  cJSON_AddStringToObject(l, "section", d->section);
  const char *title = lab_lesson_section_title(d->lesson, d->section);
  if (title) cJSON_AddStringToObject(l, "title", title);
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
    const char *words;
    if (!step_for(it, d->steps[i], &words)) continue;
    fill(it, words, text, TEXT_MAX);
    if (text[0]) cJSON_AddItemToArray(steps, cJSON_CreateString(text));
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

cJSON *lab_ex_unknown_json(int platform) {
  lab_ex_item it = {.kind = "unknown", .diag = "unknown", .facts = cJSON_CreateObject()};
  if (platform) cJSON_AddStringToObject(it.facts, "platform", lab_ex_platform_name(platform));
  cJSON *o = write(&it, lab_ex_diag_find("unknown"));
  cJSON_Delete(it.facts);
  static const char *const looked_for[] = {
      "CUDA out of memory (both wordings)", "HIP out of memory", "MPS backend out of memory",
      "Expected all tensors to be on the same device", "Input type (…) and weight type (…) should be the same",
      "can't convert … to numpy", "device-side assert triggered", "an illegal memory access was encountered",
      "Torch not compiled with CUDA enabled", "Found no NVIDIA driver", "driver … too old",
      "no kernel image is available", "sm_XX is not compatible", "Unsupported .version (PTX)",
      "Bfloat16 is only supported on GPUs with compute capability of at least 8.0", "NVIDIA-SMI has failed",
      "Cannot re-initialize CUDA in forked subprocess", "CUBLAS_STATUS_*",
      "MPS errors (placeholder storage, float64, BFloat16, an operator not implemented)",
      "HIP errors (invalid device function, no binary for the GPU, no HIP GPUs, rocBLAS, MIOpen, /dev/kfd)",
      "nvidia-smi's table", "collect_env output", "memory_summary() / memory_stats()"};
  cJSON *looked = cJSON_CreateStringArray(looked_for, (int)(sizeof looked_for / sizeof looked_for[0]));
  if (o) cJSON_AddItemToObject(o, "looked_for", looked);
  else cJSON_Delete(looked);
  return o;
}
