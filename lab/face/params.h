/* Typed, bounded experiment parameters: one spec table per experiment,
 * validated from JSON (API, worker) or from "--name=value" (CLI), and
 * normalised back to JSON so a result states the values actually used. */
#ifndef LAB_PARAMS_H
#define LAB_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Declaring an experiment's parameters. lab/STEM.h lists them once,
 *   #define LAB_PARAMS_STEM(X) X(name, KIND, min, max, default, unit, help, choices) ...
 * with KIND one of INT, NUM, BOOL, ENUM, and says LAB_PARAMS_STRUCT(STEM);
 * lab/STEM.c says LAB_PARAMS_DEFINE(STEM). From the one list come the spec
 * table lab_params_STEM_spec (what validation, the CLI, the UI and
 * `GET /api/experiments` read) and the typed struct lab_params_STEM, one
 * field per parameter in its C type, which simulators and kernels read: a
 * misspelt parameter is a compile error, not a silent 0. */
#define LAB_PCTYPE_INT int64_t
#define LAB_PCTYPE_NUM double
#define LAB_PCTYPE_BOOL bool
#define LAB_PCTYPE_ENUM int /* index into choices */

#define LAB_PARAM_FIELD_(n_, k_, ...) LAB_PCTYPE_##k_ n_;
#define LAB_PARAM_ONE_(...) +1
#define LAB_PARAM_SPEC_(n_, k_, lo_, hi_, def_, unit_, help_, ch_) \
  {.name = #n_, .type = LAB_P_##k_, .min = (lo_), .max = (hi_), .def = (def_), .unit = unit_, .help = help_, \
   .choices = ch_},
#define LAB_PARAM_GET_(n_, k_, ...) t.n_ = (LAB_PCTYPE_##k_)p->v[i++];

#define LAB_PARAMS_COUNT(stem) (0 LAB_PARAMS_##stem(LAB_PARAM_ONE_))

/* The typed struct and its reader: lab_params_STEM_of(p) reads checked
 * params p of that experiment (lab_experiment_params filled them; no text
 * is parsed again). */
#define LAB_PARAMS_STRUCT(stem)                                          \
  typedef struct lab_params_##stem {                                     \
    LAB_PARAMS_##stem(LAB_PARAM_FIELD_)                                  \
  } lab_params_##stem;                                                   \
  extern const lab_param_spec lab_params_##stem##_spec[];                \
  lab_params_##stem lab_params_##stem##_of(const lab_params *p);

/* p must hold this experiment's params (p->spec is its table): params of
 * another experiment are a programming error and read as the defaults. */
#define LAB_PARAMS_DEFINE(stem)                                                       \
  _Static_assert(LAB_PARAMS_COUNT(stem) <= LAB_MAX_PARAMS, #stem ": too many parameters"); \
  const lab_param_spec lab_params_##stem##_spec[] = {LAB_PARAMS_##stem(LAB_PARAM_SPEC_)}; \
  lab_params_##stem lab_params_##stem##_of(const lab_params *p) {                     \
    lab_params q;                                                                     \
    if (p->spec != lab_params_##stem##_spec) {                                        \
      lab_params_init(&q, lab_params_##stem##_spec, LAB_PARAMS_COUNT(stem));          \
      p = &q;                                                                         \
    }                                                                                 \
    lab_params_##stem t;                                                              \
    int i = 0;                                                                        \
    LAB_PARAMS_##stem(LAB_PARAM_GET_)                                                 \
    return t;                                                                         \
  }

/* Generic code (tests, tools) reads one value by name: its index, or -1 for
 * a name the experiment does not take. */
int lab_param_index(const lab_params *p, const char *name);

/* Advice a finding gives about a parameter goes through here, so a finding
 * never recommends a value the widget and the CLI refuse. `advice` is a
 * sentence with one "%s", which stands for "NAME to VALUE" (VALUE written
 * as the parameter's type reads it: whole for INT). When VALUE is outside
 * NAME's bounds (or p's experiment has no NAME), `otherwise` is written
 * instead: what else to change (a bigger GPU, a smaller model). Returns 1
 * when the parameter advice was written, 0 for the alternative. */
int lab_advise_param(char *buf, size_t n, const lab_params *p, const char *name, double value, const char *advice,
                     const char *otherwise);
/* VALUE written as parameter spec s reads it: "268435456", not "2.68435e+08". */
void lab_param_value_text(char *buf, size_t n, const lab_param_spec *s, double value);

#endif
