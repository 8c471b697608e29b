/* Typed, bounded experiment parameters: one spec table per experiment,
 * validated from JSON (API, worker) or from "--name=value" (CLI), and
 * normalised back to JSON so a result states the values actually used. */
#ifndef LAB_PARAMS_H
#define LAB_PARAMS_H

#include <stdbool.h>

#include "error.h"

#define LAB_MAX_PARAMS 16

typedef enum lab_ptype { LAB_P_INT, LAB_P_NUM, LAB_P_BOOL, LAB_P_ENUM } lab_ptype;

typedef struct lab_param_spec {
  const char *name;
  lab_ptype type;
  double min, max; /* inclusive bounds (INT, NUM) */
  double def;      /* default; ENUM: index into choices; BOOL: 0 or 1 */
  const char *unit; /* "elements", "bytes", "ms"…; NULL when unitless */
  const char *help; /* one sentence for the UI and `gpulab experiments` */
  const char *const *choices; /* ENUM only: NULL-terminated */
} lab_param_spec;

typedef struct lab_params {
  int n;
  const lab_param_spec *spec; /* n specs */
  double v[LAB_MAX_PARAMS];   /* INT/NUM: value; BOOL: 0/1; ENUM: index */
} lab_params;

void lab_params_init(lab_params *p, const lab_param_spec *spec, int n);
/* Validates a JSON object (NULL means all defaults). Unknown names, wrong
 * types and out-of-bound values fail with invalid_param naming the field. */
int lab_params_from_json(lab_params *p, const cJSON *obj, lab_error *err);
/* Sets one parameter from text, as the CLI gives it. */
int lab_params_set_text(lab_params *p, const char *name, const char *text, lab_error *err);
cJSON *lab_params_to_json(const lab_params *p); /* caller owns */
cJSON *lab_param_spec_json(const lab_param_spec *s);

/* Accessors by name; an unknown name is a programming error and yields the
 * spec-less default 0 (tests catch it). */
double lab_param(const lab_params *p, const char *name);
long lab_param_int(const lab_params *p, const char *name);
bool lab_param_bool(const lab_params *p, const char *name);
const char *lab_param_choice(const lab_params *p, const char *name);

#endif
