/* A class's runs handed in, side by side (compare.h, lab_compare_class):
 * the devices, and the spread of each headline figure over the newest run
 * of each learner. A figure flagged as physically impossible is listed
 * with its learner and reason and kept out of the spread: it is a claim
 * the run could not have measured, not a point of the class's range. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

static const char *text(const cJSON *o, const char *key) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
  return v ? v : "";
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The figure's row (made on first sight, in the order figures appear). */
static cJSON *row_of(cJSON *figures, const char *exp, const cJSON *f, const char *on) {
  cJSON *r;
  cJSON_ArrayForEach(r, figures) {
    if (!strcmp(text(r, "experiment"), exp) && !strcmp(text(r, "metric"), text(f, "metric")) &&
        !strcmp(text(r, "ran_on"), on))
      return r;
  }
  r = cJSON_CreateObject();
  if (!r || !cJSON_AddItemToArray(figures, r)) {
    cJSON_Delete(r);
    return NULL;
  }
  cJSON_AddStringToObject(r, "experiment", exp);
  cJSON_AddStringToObject(r, "metric", text(f, "metric"));
  cJSON_AddStringToObject(r, "unit", text(f, "unit"));
  cJSON_AddStringToObject(r, "ran_on", on);
  cJSON_AddArrayToObject(r, "values");
  cJSON_AddArrayToObject(r, "value_devices");
  cJSON_AddArrayToObject(r, "implausible");
  return r;
}

static void add_device(cJSON *devices, const char *name, const char *kind) {
  cJSON *d;
  cJSON_ArrayForEach(d, devices) {
    if (!strcmp(text(d, "device"), name) && !strcmp(text(d, "kind"), kind)) {
      cJSON *n = cJSON_GetObjectItemCaseSensitive(d, "learners");
      cJSON_SetNumberValue(n, n->valuedouble + 1);
      return;
    }
  }
  d = cJSON_CreateObject();
  if (!d || !cJSON_AddItemToArray(devices, d)) {
    cJSON_Delete(d);
    return;
  }
  cJSON_AddStringToObject(d, "device", name);
  cJSON_AddStringToObject(d, "kind", kind);
  cJSON_AddNumberToObject(d, "learners", 1);
}

static void add_figure(cJSON *row, const cJSON *h, const cJSON *f, const char *device) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(f, "measured");
  if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble)) return;
  if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(f, "plausible"))) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(row, "implausible"), o)) {
      cJSON_Delete(o);
      return;
    }
    cJSON_AddNumberToObject(o, "learner_id", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h, "learner_id")));
    cJSON_AddStringToObject(o, "name", text(h, "name"));
    cJSON_AddStringToObject(o, "device", device);
    cJSON_AddNumberToObject(o, "measured", m->valuedouble);
    cJSON_AddStringToObject(o, "reason", text(f, "reason"));
    return;
  }
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(row, "values"), cJSON_CreateNumber(m->valuedouble));
  cJSON *devs = cJSON_GetObjectItemCaseSensitive(row, "value_devices"), *d;
  cJSON_ArrayForEach(d, devs) if (!strcmp(d->valuestring, device)) return;
  cJSON_AddItemToArray(devs, cJSON_CreateString(device));
}

/* The values turned into n, min, median and max; the lists of work dropped. */
static void finish(cJSON *row) {
  cJSON *values = cJSON_DetachItemFromObjectCaseSensitive(row, "values"), *v;
  cJSON *devs = cJSON_DetachItemFromObjectCaseSensitive(row, "value_devices");
  int n = cJSON_GetArraySize(values), i = 0;
  double *x = n ? malloc((size_t)n * sizeof *x) : NULL;
  cJSON_AddNumberToObject(row, "n", x ? n : 0);
  cJSON_AddNumberToObject(row, "devices", cJSON_GetArraySize(devs));
  if (x) {
    cJSON_ArrayForEach(v, values) x[i++] = v->valuedouble;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    cJSON_AddNumberToObject(row, "min", x[0]);
    cJSON_AddNumberToObject(row, "median", n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2);
    cJSON_AddNumberToObject(row, "max", x[n - 1]);
  } else {
    cJSON_AddNullToObject(row, "min");
    cJSON_AddNullToObject(row, "median");
    cJSON_AddNullToObject(row, "max");
  }
  free(x);
  cJSON_Delete(values);
  cJSON_Delete(devs);
}

cJSON *lab_compare_class(const cJSON *handins) {
  cJSON *out = cJSON_CreateObject(), *seen = cJSON_CreateArray(), *devices, *figures, *row;
  const cJSON *h, *e, *f;
  int learners = 0;
  if (!out || !seen || !(devices = cJSON_AddArrayToObject(out, "devices")) ||
      !(figures = cJSON_AddArrayToObject(out, "figures"))) {
    cJSON_Delete(out);
    cJSON_Delete(seen);
    return NULL;
  }
  cJSON_ArrayForEach(h, handins) { /* newest first: a learner's first row is their newest run */
    double id = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h, "learner_id"));
    const cJSON *s, *run = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "summary"), "run");
    int dup = 0;
    cJSON_ArrayForEach(s, seen) dup |= s->valuedouble == id;
    if (dup || !run) continue;
    cJSON_AddItemToArray(seen, cJSON_CreateNumber(id));
    learners++;
    const char *device = text(run, "device"), *kind = text(run, "kind");
    add_device(devices, device, kind);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "summary"), "experiments")) {
      cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(e, "figures")) {
        row = row_of(figures, text(e, "experiment"), f, strcmp(kind, "cpu") ? "gpu" : "cpu");
        if (row) add_figure(row, h, f, device);
      }
    }
  }
  cJSON_ArrayForEach(row, figures) finish(row);
  cJSON_AddNumberToObject(out, "learners", learners);
  cJSON_Delete(seen);
  return out;
}
