/* The client's only door to the browser: DOM updates, fetch, events and
 * localStorage. bridge.c implements it with Emscripten; unit tests give a
 * fake one, so everything above this line is plain, testable C. */
#ifndef UI_BRIDGE_H
#define UI_BRIDGE_H

#include <stddef.h>

/* status: the HTTP status, 0 when the request failed (network error, no
 * server), or UI_FETCH_TIMED_OUT when nothing came back within timeout_ms
 * (the request is then aborted): a hung server reads differently from a
 * missing one, so the page can say which. body is NUL-terminated and lives
 * only for the call. */
#define UI_FETCH_TIMED_OUT (-1)
typedef void (*ui_fetch_cb)(int status, const char *body, size_t len, void *ctx);
/* GET url (same origin); cb runs later, exactly once. Gives up after timeout_ms. */
void ui_fetch(const char *url, int timeout_ms, ui_fetch_cb cb, void *ctx);
/* Only inside a fetch callback: the answer's Retry-After header in whole
 * seconds (the delta form the server sends), or -1 when it has none. */
int ui_fetch_retry_after_s(void);

/* POST json_body (Content-Type: application/json) to url (same origin);
 * cb as for ui_fetch: exactly once, status 0 when the request failed. */
void ui_fetch_post(const char *url, const char *json_body, int timeout_ms, ui_fetch_cb cb, void *ctx);

/* A simulation, run by the simulation module (wasm/sim/, a Web Worker that
 * starts on the first one): experiment, its params as JSON text ("" for the
 * defaults) and a profile name ("" for the default) in; cb gets, exactly once
 * and later, 200 and the envelope, 400 and {"error":…}, or 0 when the module
 * could not run. */
void ui_simulate(const char *experiment, const char *params_json, const char *profile, ui_fetch_cb cb, void *ctx);
/* A calibrated profile the simulation module uses for runs on it: name
 * ("calibrated", a server's from GET /api/profiles; "yours", fitted from
 * the learner's own kit run) and its JSON (NULL: none any more). */
void ui_simulate_profile(const char *name, const char *profile_json);

/* DELETE url (same origin; cancels a queued run on a class server); cb as
 * for ui_fetch. */
void ui_fetch_delete(const char *url, int timeout_ms, ui_fetch_cb cb, void *ctx);

/* Element by id; a missing element is ignored. html is inserted as markup. */
void ui_dom_set_html(const char *id, const char *html);
/* Adds markup at the end of the element's content, keeping what is there. */
void ui_dom_append_html(const char *id, const char *html);
void ui_dom_set_text(const char *id, const char *text);
/* Sets (value != NULL) or removes an attribute. */
void ui_dom_set_attr(const char *id, const char *name, const char *value);
/* Sets the markup of every element matching a CSS selector. */
void ui_dom_fill(const char *selector, const char *html);
/* Moves keyboard focus to the element and scrolls it into view. */
void ui_dom_focus(const char *id);
void ui_dom_set_title(const char *title);

/* The current location.hash ("#lesson/x" or ""), into buf. */
void ui_location_hash(char *buf, size_t n);
/* Called with location.hash after every hash change. */
typedef void (*ui_hash_cb)(const char *hash, void *ctx);
void ui_on_hash_change(ui_hash_cb cb, void *ctx);
/* Called when a button with data-action="NAME" (and optional data-arg) is
 * pressed, and with ("section-seen", element id) once a learner has scrolled
 * to the end of a <section class="lesson-section" id=…>. */
typedef void (*ui_action_cb)(const char *action, const char *arg, void *ctx);
void ui_on_action(ui_action_cb cb, void *ctx);

/* The checked checkboxes and radio buttons of the form with this id, as a
 * JSON object {"NAME":["VALUE",…]} into buf ("{}" when none or no form).
 * Returns the JSON's length, or -1 when it does not fit in n bytes. */
int ui_form_checked(const char *form_id, char *buf, size_t n);
/* Offers text to the learner as a file download (a Blob and an object URL). */
void ui_download(const char *filename, const char *mime, const char *text);

/* The current value of the form control with this id into buf: its text,
 * or "1"/"0" for a checkbox. Returns the value's length, or -1 when there
 * is no such element or the value does not fit in n bytes. */
int ui_dom_value(const char *id, char *buf, size_t n);
/* Runs cb(ctx) once, delay_ms after the browser has painted the page as it
 * is now: long work starts after "running…" shows. */
typedef void (*ui_later_cb)(void *ctx);
void ui_later(int delay_ms, ui_later_cb cb, void *ctx);

/* The page's trace reader (#doctor): once the page has an
 * <input type=file id="doctor-file"> and a drop zone id="doctor-drop", a
 * file chosen or dropped there is read by the doctor module in a Web Worker
 * (web/reader_worker.js; the file never leaves the browser) and cb hears of
 * it: UI_DOCTOR_START (a = 0, b = the file's size in bytes, text = its
 * name), UI_DOCTOR_PROGRESS (a bytes read of b), then once UI_DOCTOR_DONE
 * (a = 200 and the answer's JSON, 400/413/500 and {"error":…}, or 0 when the
 * reader could not run; text lives only for the call). */
enum { UI_DOCTOR_START, UI_DOCTOR_PROGRESS, UI_DOCTOR_DONE };
typedef void (*ui_doctor_cb)(int event, double a, double b, const char *text, size_t len, void *ctx);
void ui_on_doctor(ui_doctor_cb cb, void *ctx);
/* Stops the read under way (the worker ends); cb hears nothing more of it. */
void ui_doctor_cancel(void);

/* The page's import of a measurement kit file (#yours): once the page has
 * an <input type=file id="yours-file"> and a drop zone id="yours-drop", a
 * file chosen or dropped there is read and compared by the simulation
 * module in its Web Worker (web/sim_worker.js, wasm/sim/kit_run.h: the
 * file never leaves the browser, and one larger than the kit writes is
 * not read) and cb hears of it: UI_KIT_START (b = the file's size in
 * bytes, text = its name), then once UI_KIT_DONE (a = 200 and the
 * comparison's JSON, 400/413 and {"error":…}, or 0 when the module could
 * not run; text lives only for the call). */
enum { UI_KIT_START, UI_KIT_DONE };
typedef void (*ui_kit_cb)(int event, double a, double b, const char *text, size_t len, void *ctx);
void ui_on_kit_file(ui_kit_cb cb, void *ctx);

/* "Paste your error" (#explain): text[0..n) is explained by the reader
 * module (gpulab_reader.wasm, where lab/explain/ lives: the UI module
 * leaves it out) in a Web Worker (web/reader_worker.js) started on first
 * use and kept. cb hears once, later: 200 and lab_explain's JSON, 400/413
 * and its {"error":…} JSON, or 0 when the module could not run (offline
 * before the service worker kept it, or no Web Worker). Answers come in
 * the order asked. */
void ui_explain_text(const char *text, size_t n, ui_fetch_cb cb, void *ctx);
/* Starts that worker and loads its module now, so the first answer is quick. */
void ui_explain_warm(void);

/* localStorage; get returns the value's length, or -1 when absent or unavailable. */
int ui_storage_get(const char *key, char *buf, size_t n);
void ui_storage_set(const char *key, const char *value);

#endif
