/* Class settings shared while servers run: with a shared store (PostgreSQL)
 * every server reads the class's stored settings every
 * SRV_SETTINGS_REFRESH_S, so a limit another server changed (started with
 * --update-class) is enforced here within a few seconds, and each change
 * is logged where it is taken up. */
#ifndef SRV_SETTINGS_WATCH_H
#define SRV_SETTINGS_WATCH_H

#include "class.h"

#define SRV_SETTINGS_REFRESH_S 1.0

typedef struct srv_settings_watch srv_settings_watch;

/* Starts the thread for cls (its store shared, cls->runs set or NULL); NULL
 * when it cannot (out of memory: the server runs on with what it has). */
srv_settings_watch *srv_settings_watch_start(srv_class *cls);
/* Stops and frees it (within a refresh step). NULL is allowed. */
void srv_settings_watch_stop(srv_settings_watch *w);

#endif
