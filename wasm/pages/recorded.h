/* Runs recorded on a real GPU (web/recorded/, made by `make record`): which
 * experiments have one (/recorded/index.json, asked once the first screen
 * is drawn; absent means none), the label each gets in a widget's picker,
 * and a replay of one from /recorded/NAME.json, checked like any result
 * (the service worker keeps them for offline use). */
#ifndef UI_RECORDED_H
#define UI_RECORDED_H

#include "cjson_compat.h"
#include "error.h"

/* name has a recorded run; label: "recorded on DEVICE, DATE". */
typedef void (*ui_recorded_label_fn)(const char *name, const char *label);
/* Asks, once, which experiments have a recorded run: on_label for each,
 * its label from the index's sources (an older index without them: from
 * each file, offered only when it holds a recorded run of its experiment;
 * a replay checks the file whichever way it was offered). */
void ui_recorded_offer(ui_recorded_label_fn on_label);

/* A replay ended: env (the callee owns it) with note, the parameters it was
 * recorded with in a sentence; or env NULL and err why. */
typedef void (*ui_recorded_done_fn)(cJSON *env, const char *note, const lab_error *err, void *ctx);
/* Reads name's recorded run and calls done with it. */
void ui_recorded_replay(const char *name, ui_recorded_done_fn done, void *ctx);

/* Answers still in flight are dropped; the next offer asks again. */
void ui_recorded_shutdown(void);

#endif
