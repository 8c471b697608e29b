/* Parses the hash routes of the page, and writes the workbench's. */
#include "route.h"

#include <stdio.h>
#include <string.h>

#include "registry.h"

bool ui_id_valid(const char *id) {
  size_t n = id ? strlen(id) : 0;
  if (n == 0 || n >= UI_ID_MAX) return false;
  for (size_t i = 0; i < n; i++) {
    char c = id[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

/* Copies the part of s up to '/' or the end into out; false when it is not an id. */
static bool take_id(const char **s, char out[UI_ID_MAX]) {
  const char *end = strchr(*s, '/');
  size_t n = end ? (size_t)(end - *s) : strlen(*s);
  if (n == 0 || n >= UI_ID_MAX) return false;
  memcpy(out, *s, n);
  out[n] = '\0';
  *s += n;
  return ui_id_valid(out);
}

int ui_route_parse(const char *hash, ui_route *r) {
  memset(r, 0, sizeof *r);
  if (!hash) return 0;
  if (hash[0] == '#') hash++;
  if (hash[0] == '\0') return 0;
  if (strncmp(hash, "lesson/", 7) != 0) return -1;
  const char *s = hash + 7;
  if (!take_id(&s, r->lesson)) goto bad;
  if (*s == '\0' || strcmp(s, "/") == 0) return 0;
  s++;
  if (!take_id(&s, r->section) || *s != '\0') goto bad;
  return 0;
bad:
  memset(r, 0, sizeof *r);
  return -1;
}

int ui_route_workbench_href(const lab_experiment *ex, const cJSON *params, char *out, size_t n) {
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
