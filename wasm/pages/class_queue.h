/* Runs queued on a class server's GPU: experiment_run.c hands over a 202
 * answer, this module polls GET /api/runs/ID (1 s at first, backing off),
 * shows the position, estimate and Cancel in the widget, and hands the
 * envelope back when the run is done. Reaches the page through bridge.h. */
#ifndef UI_CLASS_QUEUE_H
#define UI_CLASS_QUEUE_H

#include <stdbool.h>

#include "cjson_compat.h"
#include "error.h"

/* How a queued run ended: env (the caller owns it) when done, else err. */
typedef void (*ui_class_done_cb)(cJSON *env, const lab_error *err, void *ctx);

/* experiment_run.c calls this with every answer to POST /api/experiments/NAME
 * before its own handling. Returns 0: not a class answer, handle it as
 * before; 1: the run is queued, done(ctx) runs once when it ends (not at all
 * after ui_class_queue_shutdown); -1: the class server refused it (limit,
 * no session, full queue): err says why and when to retry. */
int ui_class_queue_answer(int status, const cJSON *answer, const char *experiment, ui_class_done_cb done, void *ctx,
                          lab_error *err);
/* "class-cancel" (arg: the experiment): DELETE /api/runs/ID. */
bool ui_class_queue_action(const char *action, const char *arg);
/* Forgets every run followed; answers still in flight are dropped. */
void ui_class_queue_shutdown(void);

#endif
