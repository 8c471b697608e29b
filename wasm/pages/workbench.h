/* The workbench, the page at "#lab" (every experiment's widget) and
 * "#lab/NAME" (one of them, its fields filled from "?k=v&…": experiment.h,
 * ui_exp_workbench_href). "lab" is the page's public address; inside,
 * lab/ is the portable core, so the page is called the workbench. */
#ifndef UI_WORKBENCH_H
#define UI_WORKBENCH_H

#include <stdbool.h>

#include "gpu_panel.h"

/* Draws the page for that hash into the element "lesson"; dev must outlive it. */
void ui_workbench_show(const char *hash, const ui_device_state *dev, bool focus);
/* Re-draws the page's widgets if it is shown (after a device check). */
void ui_workbench_refresh(const ui_device_state *dev);
/* Forgets the page (another page replaced it). */
void ui_workbench_leave(void);
/* Forgets everything (the app shuts down). */
void ui_workbench_shutdown(void);

#endif
