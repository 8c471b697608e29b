/* The learner's class session in the page: whether the server runs a class
 * (GET /api/health's "class", or a run answered no_session), the join form,
 * the session bar, Leave. It draws into the element "class"
 * and reaches the page through bridge.h; app.c calls it at three points. */
#ifndef UI_CLASS_APP_H
#define UI_CLASS_APP_H

#include <stdbool.h>

#include "cjson_compat.h"

/* The answer to GET /api/health (NULL when it failed): starts the check. */
void ui_class_app_health(const cJSON *health);
/* "class-join", "class-leave"; false for other actions. class_queue.c
 * (which calls this module, never the other way) has "class-cancel". */
bool ui_class_app_action(const char *action, const char *arg);
/* Asks GET /api/session again (GPU time used changes after each run). */
void ui_class_app_refresh(void);
/* A request answered no_session: the session ended; show the join form
 * and move focus to it. */
void ui_class_app_need_session(void);
/* true once the server said it runs a class. */
bool ui_class_app_active(void);
/* A run this browser simulated (no GPU answered it): while joined, POST
 * /api/class/simulated tells the class server, which counts it for the
 * instructor's view (never stored as a GPU run, never charged). Nothing
 * outside a class; the answer is not waited for. */
void ui_class_app_report_simulated(const char *experiment);
void ui_class_app_shutdown(void);

#endif
