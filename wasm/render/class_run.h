/* A run on a class server's GPU as the learner sees it: its queue status
 * ("Queued — position 3, about 20 s", Cancel), "Running…", how it ended,
 * and the class limits' refusals in words. Pure functions of the server's
 * JSON, so class_queue.c only moves answers around. */
#ifndef UI_CLASS_RUN_H
#define UI_CLASS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "cjson_compat.h"
#include "error.h"
#include "html.h"

/* Polling GET /api/runs/ID: every second at first, slower the longer it
 * waits (up to 5 s), slower still after failed polls (up to 10 s). */
#define UI_CLASS_POLL_MS 1000
/* The client stops waiting after this long and says where the run is kept. */
#define UI_CLASS_WAIT_MAX_MS (15 * 60 * 1000)
/* Consecutive failed polls before it stops and says the server is gone. */
#define UI_CLASS_POLL_FAILURES_MAX 8

/* The run's id from {"run":{"id":…}} or a run object itself, as it goes in
 * a URL (digits, letters, '-' and '_' only). Returns false when missing. */
bool ui_class_run_id(const cJSON *run, char *buf, size_t n);
/* The run object of a 202 answer ({"run":{…}}), or the answer itself. */
const cJSON *ui_class_run_obj(const cJSON *answer);

/* One line for the widget's status: "Queued — position 3, about 20 s",
 * "Running on the class GPU…", "Done". */
const char *ui_class_run_line(const cJSON *run, char *buf, size_t n);
/* The widget's output area while the run waits or runs: the line, a
 * progress bar when the server reports progress, and Cancel while queued
 * (data-action="class-cancel", data-arg=experiment). note: an extra
 * sentence (e.g. why Cancel did not work), or NULL. */
void ui_render_class_run(ui_buf *b, const cJSON *run, const char *experiment, const char *note);

/* How a polled run ended: 0 still queued or running; 1 done, *env is a copy
 * of its result envelope (caller owns); -1 failed or cancelled, err says
 * why in words. A "done" run without a valid envelope counts as failed. */
int ui_class_run_end(const cJSON *run, cJSON **env, lab_error *err);

/* A refusal by the class server of POST /api/experiments/NAME (no session,
 * rate limit, GPU-time quota, full queue, ...). Returns true and fills err
 * with the server's message plus, when it says when, "Try again in about
 * 40 seconds." (from the error's retry_after_s); false for any other answer. */
bool ui_class_refusal(int status, const cJSON *answer, lab_error *err);

/* The delay before poll number `polls` (0-based) after `failures`
 * consecutive failed polls. */
int ui_class_poll_delay_ms(int polls, int failures);

#endif
