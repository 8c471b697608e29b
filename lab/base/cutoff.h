/* Long work in lab/ (a simulation's measured loops, a reader's passes over
 * a paste) asks between its steps whether it should go on: the server sets,
 * on the thread serving one request, a check that says stop once the
 * client has hung up, the request's deadline has passed or its CPU budget
 * is spent. The CLI, the browser and the tests set none, and work always
 * runs to its end. One check per thread (a thread serves one request at a
 * time), so nothing is shared between threads. */
#ifndef LAB_CUTOFF_H
#define LAB_CUTOFF_H

#include "error.h"

/* Returns 0 to go on, or -1 with err set to why the work stops (the
 * server's own code: client_gone, deadline_exceeded, over_cpu_budget). */
typedef int (*lab_cutoff_fn)(void *ctx, lab_error *err);

/* Sets this thread's check (fn NULL: none) and returns the one it
 * replaces in *old_fn, *old_ctx (may be NULL), so a caller can put it back. */
void lab_cutoff_set(lab_cutoff_fn fn, void *ctx, lab_cutoff_fn *old_fn, void **old_ctx);

/* 0 to go on; -1 with err set when this thread's check says stop. Cheap
 * when none is set; the check itself decides how often it looks. */
int lab_cutoff(lab_error *err);

#endif
