/* The result envelope every experiment returns (docs/architecture.md,
 * "The result envelope"), whoever produced it: the GPU, a recording or the simulator.
 * Builders attach children at once, so one cJSON_Delete frees everything. */
#ifndef LAB_ENVELOPE_H
#define LAB_ENVELOPE_H

#include "error.h"

#define LAB_SCHEMA_VERSION 1

/* backend: "cuda" | "simulated" | "recorded" | "pytorch" (a learner's own run,
 * measured with PyTorch by the measurement kit, kit/measure.py; it says how
 * in "measured_with"). device_name may be NULL
 * (no device), profile NULL when not simulated. Takes ownership of params.
 * Returns NULL only when out of memory. */
cJSON *lab_envelope_new(const char *experiment, const char *backend, const char *device_name,
                        const char *profile, cJSON *params);

void lab_env_metric(cJSON *env, const char *key, double value);
/* Adds a series and returns its "points" array (owned by env). */
cJSON *lab_env_series(cJSON *env, const char *id, const char *label, const char *x_unit, const char *y_unit);
void lab_series_point(cJSON *points, double x, double y);
/* Where series `id`'s numbers come from when not from the envelope's
 * backend: "measured" (timed for real on this machine's CPU in this run,
 * so it varies run to run) or "computed" (worked out for real on this CPU:
 * a real loss, real rounding errors; the same every run). A series without
 * a source is the backend's (the GPU's, a recording's, or the model's). */
void lab_env_series_source(cJSON *env, const char *id, const char *source);
void lab_env_event(cJSON *env, const char *lane, const char *label, double start_us, double end_us);
void lab_env_finding(cJSON *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* method: one sentence on how the figures were taken. */
void lab_env_stats(cJSON *env, int samples, int warmup, const char *median_of, double iqr_pct, const char *method);
/* Records that a GPU result was checked against the CPU reference. */
void lab_env_validation(cJSON *env, int validated, double max_abs_err);
/* An experiment-specific object ("details"), created on first use. */
cJSON *lab_env_details(cJSON *env);

/* Checks an envelope's shape (keys and their types); used by tests, by the
 * server on what a worker returns, and by the client on what it receives. */
int lab_envelope_check(const cJSON *env, lab_error *err);

#endif
