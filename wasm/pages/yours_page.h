/* The "Your own GPU" page (#yours): a picker and a drop zone for the file
 * the measurement kit wrote on the learner's own machine, read and
 * compared in the browser by the simulation module (the same lab/compare/
 * C as `gpulab compare`; nothing is uploaded), then drawn beside the
 * prediction (own_run.h). A device gpulab has no profile for gets one
 * fitted from the run, which every "simulate as" choice then offers (kept
 * in localStorage, so it stays after a reload), and the run's figures go
 * into the lab report. In class mode the learner can hand the run in. */
#ifndef UI_YOURS_PAGE_H
#define UI_YOURS_PAGE_H

#include <stdbool.h>

#include "gpu_panel.h"

/* The localStorage keys: the profile fitted from the learner's last run
 * (its JSON), and that run's comparison without its predictions (what the
 * lab report quotes: report.h's UI_STORE_OWN_RUN). */
#define UI_STORE_YOURS_PROFILE "gpulab.yours.profile"

/* Draws the page into the element "lesson". */
void ui_yours_show(const char *hash, const ui_device_state *dev, bool focus);
/* Handles "yours-handin"; false for other actions. */
bool ui_yours_action(const char *action, const char *arg);
/* At the app's start: the profile fitted from an earlier run joins the
 * profiles again. */
void ui_yours_start(void);
/* Frees what the page holds. */
void ui_yours_shutdown(void);

#endif
