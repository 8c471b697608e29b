/* Parameter validation: every value has a type and a bound, and every
 * failure names the parameter and says what range would be accepted. */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"

static const char *type_name(lab_ptype t) {
  switch (t) {
    case LAB_P_INT: return "integer";
    case LAB_P_NUM: return "number";
    case LAB_P_BOOL: return "boolean";
    case LAB_P_ENUM: return "string";
  }
  return "?";
}

void lab_params_init(lab_params *p, const lab_param_spec *spec, int n) {
  memset(p, 0, sizeof *p);
  p->spec = spec;
  p->n = n > LAB_MAX_PARAMS ? LAB_MAX_PARAMS : n;
  for (int i = 0; i < p->n; i++) p->v[i] = spec[i].def;
}

static int find(const lab_params *p, const char *name) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->spec[i].name, name) == 0) return i;
  return -1;
}

static void choices_text(const lab_param_spec *s, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; s->choices && s->choices[i] && used + 1 < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", s->choices[i]);
}

static int unknown(const lab_params *p, const char *name, lab_error *err) {
  char known[256] = "";
  size_t used = 0;
  for (int i = 0; i < p->n && used + 1 < sizeof known; i++)
    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", p->spec[i].name);
  return lab_fail(err, LAB_E_INVALID_PARAM, name, "unknown parameter '%.40s'; this experiment takes: %s",
                  name, p->n ? known : "no parameters");
}

static int check_number(const lab_param_spec *s, double x, lab_error *err) {
  if (!isfinite(x))
    return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be a finite number", s->name);
  if (s->type == LAB_P_INT && x != floor(x))
    return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be a whole number (got %g)", s->name, x);
  if (x < s->min || x > s->max)
    return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be between %.15g and %.15g%s%s (got %g)",
                    s->name, s->min, s->max, s->unit ? " " : "", s->unit ? s->unit : "", x);
  return 0;
}

static int set_choice(lab_params *p, int i, const char *text, lab_error *err) {
  const lab_param_spec *s = &p->spec[i];
  for (int c = 0; s->choices && s->choices[c]; c++)
    if (strcmp(s->choices[c], text) == 0) {
      p->v[i] = c;
      return 0;
    }
  char list[200];
  choices_text(s, list, sizeof list);
  return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be one of: %s", s->name, list);
}

int lab_params_from_json(lab_params *p, const cJSON *obj, lab_error *err) {
  if (!obj || cJSON_IsNull(obj)) return 0;
  if (!cJSON_IsObject(obj))
    return lab_fail(err, LAB_E_INVALID_PARAM, "params", "params must be a JSON object of name: value");
  for (const cJSON *it = obj->child; it; it = it->next) {
    int i = it->string ? find(p, it->string) : -1;
    if (i < 0) return unknown(p, it->string ? it->string : "", err);
    const lab_param_spec *s = &p->spec[i];
    switch (s->type) {
      case LAB_P_INT:
      case LAB_P_NUM:
        if (!cJSON_IsNumber(it))
          return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be %s between %.15g and %.15g", s->name,
                          s->type == LAB_P_INT ? "an integer" : "a number", s->min, s->max);
        if (check_number(s, it->valuedouble, err)) return -1;
        p->v[i] = it->valuedouble;
        break;
      case LAB_P_BOOL:
        if (!cJSON_IsBool(it))
          return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be true or false", s->name);
        p->v[i] = cJSON_IsTrue(it) ? 1 : 0;
        break;
      case LAB_P_ENUM:
        if (!cJSON_IsString(it)) {
          char list[200];
          choices_text(s, list, sizeof list);
          return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be a string, one of: %s", s->name, list);
        }
        if (set_choice(p, i, it->valuestring, err)) return -1;
        break;
    }
  }
  return 0;
}

int lab_params_set_text(lab_params *p, const char *name, const char *text, lab_error *err) {
  int i = find(p, name);
  if (i < 0) return unknown(p, name, err);
  const lab_param_spec *s = &p->spec[i];
  if (!text) text = "";
  switch (s->type) {
    case LAB_P_INT:
    case LAB_P_NUM: {
      char *end = NULL;
      errno = 0;
      double x = strtod(text, &end);
      if (!text[0] || errno || !end || *end)
        return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be %s between %.15g and %.15g (got '%.40s')",
                        s->name, s->type == LAB_P_INT ? "an integer" : "a number", s->min, s->max, text);
      if (check_number(s, x, err)) return -1;
      p->v[i] = x;
      return 0;
    }
    case LAB_P_BOOL:
      if (!strcmp(text, "true") || !strcmp(text, "1") || !strcmp(text, "yes")) p->v[i] = 1;
      else if (!strcmp(text, "false") || !strcmp(text, "0") || !strcmp(text, "no")) p->v[i] = 0;
      else return lab_fail(err, LAB_E_INVALID_PARAM, s->name, "%s must be true or false", s->name);
      return 0;
    case LAB_P_ENUM:
      return set_choice(p, i, text, err);
  }
  return lab_fail(err, LAB_E_INTERNAL, s->name, NULL);
}

cJSON *lab_params_to_json(const lab_params *p) {
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < p->n; i++) {
    const lab_param_spec *s = &p->spec[i];
    cJSON *v = NULL;
    switch (s->type) {
      case LAB_P_INT:
      case LAB_P_NUM: v = cJSON_CreateNumber(p->v[i]); break;
      case LAB_P_BOOL: v = cJSON_CreateBool(p->v[i] != 0); break;
      case LAB_P_ENUM: v = cJSON_CreateString(s->choices[(int)p->v[i]]); break;
    }
    if (!v || !cJSON_AddItemToObject(o, s->name, v)) {
      cJSON_Delete(v);
      cJSON_Delete(o);
      return NULL;
    }
  }
  return o;
}

cJSON *lab_param_spec_json(const lab_param_spec *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", s->name);
  cJSON_AddStringToObject(o, "type", s->type == LAB_P_ENUM ? "enum" : type_name(s->type));
  if (s->type == LAB_P_INT || s->type == LAB_P_NUM) {
    cJSON_AddNumberToObject(o, "min", s->min);
    cJSON_AddNumberToObject(o, "max", s->max);
    cJSON_AddNumberToObject(o, "default", s->def);
  } else if (s->type == LAB_P_BOOL) {
    cJSON_AddBoolToObject(o, "default", s->def != 0);
  } else {
    cJSON *arr = cJSON_AddArrayToObject(o, "choices");
    for (int c = 0; s->choices && s->choices[c]; c++) cJSON_AddItemToArray(arr, cJSON_CreateString(s->choices[c]));
    cJSON_AddStringToObject(o, "default", s->choices[(int)s->def]);
  }
  if (s->unit) cJSON_AddStringToObject(o, "unit", s->unit);
  else cJSON_AddNullToObject(o, "unit");
  cJSON_AddStringToObject(o, "help", s->help ? s->help : "");
  return o;
}

int lab_param_index(const lab_params *p, const char *name) { return find(p, name); }

void lab_param_value_text(char *buf, size_t n, const lab_param_spec *s, double value) {
  if (s->type == LAB_P_INT) snprintf(buf, n, "%.0f", value);
  else if (s->type == LAB_P_BOOL) snprintf(buf, n, "%s", value != 0 ? "true" : "false");
  else if (s->type == LAB_P_ENUM && value >= 0 && s->choices) snprintf(buf, n, "%s", s->choices[(int)value]);
  else snprintf(buf, n, "%.15g", value);
}

int lab_advise_param(char *buf, size_t n, const lab_params *p, const char *name, double value, const char *advice,
                     const char *otherwise) {
  int i = find(p, name);
  const lab_param_spec *s = i >= 0 ? &p->spec[i] : NULL;
  const char *hole = strstr(advice, "%s");
  if (!s || !hole || !isfinite(value) || value < s->min || value > s->max ||
      (s->type != LAB_P_INT && s->type != LAB_P_NUM)) {
    snprintf(buf, n, "%s", otherwise);
    return 0;
  }
  char v[48];
  lab_param_value_text(v, sizeof v, s, value);
  snprintf(buf, n, "%.*s%s to %s%s", (int)(hole - advice), advice, name, v, hole + 2);
  return 1;
}
