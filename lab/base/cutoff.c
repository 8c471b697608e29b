/* This thread's cutoff check (see cutoff.h). Thread-local, so two requests
 * served at once never see each other's check; without threads (the wasm
 * build) it is one plain variable that nothing sets. */
#include "cutoff.h"

#include <stddef.h>

static _Thread_local lab_cutoff_fn check;
static _Thread_local void *check_ctx;

void lab_cutoff_set(lab_cutoff_fn fn, void *ctx, lab_cutoff_fn *old_fn, void **old_ctx) {
  if (old_fn) *old_fn = check;
  if (old_ctx) *old_ctx = check_ctx;
  check = fn;
  check_ctx = ctx;
}

int lab_cutoff(lab_error *err) { return check ? check(check_ctx, err) : 0; }
