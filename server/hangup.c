/* This thread's request and how to tell its client has gone (hangup.h). */
#include "hangup.h"

#include <stddef.h>

static _Thread_local int (*watch_fn)(const void *ctx);
static _Thread_local const void *watch_ctx;

void srv_hangup_watch(int (*fn)(const void *ctx), const void *ctx) {
  watch_fn = fn;
  watch_ctx = ctx;
}

int srv_hung_up(void) { return watch_fn ? watch_fn(watch_ctx) : 0; }
