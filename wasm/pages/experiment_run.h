/* Drives the experiment widgets: fills each placeholder, runs an experiment
 * when Run is pressed (on the server's GPU when it has a usable one, else
 * the lab simulator in the browser, deferred so "running…" shows first),
 * and the "All experiments" page at #lab (every widget) or #lab/NAME (one).
 * Reaches the page only through bridge.h. */
#ifndef UI_EXPERIMENT_RUN_H
#define UI_EXPERIMENT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu_panel.h"

/* Fills every .experiment[data-experiment="NAME"] with its widget, keeping
 * the values typed and the last result. dev must outlive the widgets. */
void ui_exp_fill(const char *name, const ui_device_state *dev);
/* Handles "exp-run" (arg: the experiment); false for other actions. */
bool ui_exp_action(const char *action, const char *arg);

struct cJSON;
struct lab_experiment;

/* Writes ex's lab page link, "#lab/NAME?k=v&…", carrying the numbers and
 * yes/no values of params that ex takes (the page fills its fields from
 * them). Returns 1 when it carries any, 0 for the bare "#lab/NAME". */
int ui_lab_href(const struct lab_experiment *ex, const struct cJSON *params, char *out, size_t n);

/* true for "#lab" and "#lab/NAME". */
bool ui_lab_route(const char *hash);
/* Draws the lab page for that hash into the element "lesson". */
void ui_lab_show(const char *hash, const ui_device_state *dev, bool focus);
/* Re-draws the lab page's widgets if it is shown (after a device check). */
void ui_lab_refresh(const ui_device_state *dev);
/* Forgets the lab page (another page replaced it). */
void ui_lab_leave(void);
/* Frees the results held; the next fill starts from the defaults. */
void ui_exp_shutdown(void);

#endif
