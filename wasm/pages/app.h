/* The browser client's behaviour, above the bridge: what to ask the server,
 * what to render, and the offline fallback to the in-browser simulator. */
#ifndef UI_APP_H
#define UI_APP_H

/* Registers the listeners, renders the first state and sends the requests;
 * everything after happens in the bridge's callbacks. */
void ui_app_start(void);
/* Frees what the client holds (tests call it; the page never ends). */
void ui_app_shutdown(void);

#endif
