/* Drives the experiment widgets wherever a page has them (a lesson, the
 * workbench, an explained error, a read trace): fills each placeholder,
 * runs an experiment when Run is pressed (on the server's GPU when it has
 * a usable one, else the simulator of lab/ in the browser, deferred so
 * "running…" shows first). Reaches the page only through bridge.h. */
#ifndef UI_EXPERIMENT_RUN_H
#define UI_EXPERIMENT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu_panel.h"

/* Fills every .experiment[data-experiment="NAME"] with its widget, keeping
 * the values typed and the last result. dev must outlive the widgets. */
void ui_exp_fill(const char *name, const ui_device_state *dev);
/* The device check the widgets run against (every run asks it where to
 * go); dev must outlive the widgets. */
void ui_exp_set_device(const ui_device_state *dev);
/* Asks, once, which experiments have a recorded run (/recorded/index.json):
 * when the learner reaches into a widget, as /api/profiles, never on the
 * first visit's bytes. Each widget's picker gains its recording in place. */
void ui_exp_offer_recorded(void);
/* Handles "exp-run" (arg: the experiment); false for other actions. */
bool ui_exp_action(const char *action, const char *arg);

/* Frees the results held; the next fill starts from the defaults. */
void ui_exp_shutdown(void);

#endif
