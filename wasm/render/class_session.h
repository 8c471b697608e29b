/* The class-session renderers: the join form a learner fills in when the server
 * runs a class, and the session bar once joined ("Signed in as NAME",
 * GPU time used of the limit, Leave). Plain C drawing HTML into a ui_buf;
 * class_app.c decides when to show which. */
#ifndef UI_CLASS_SESSION_H
#define UI_CLASS_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "cjson_compat.h"
#include "html.h"

/* Display names the server accepts: 1 to 40 printable characters. */
#define UI_CLASS_NAME_MAX 40
/* Join codes are 8 characters (XXXX-XXXX); the field takes a little slack
 * for spaces and dashes the learner may type. */
#define UI_CLASS_CODE_MAX 24

/* What the join form shows: the values typed (kept across re-draws), an
 * error beside each field ("" for none), and a message for the whole form. */
typedef struct ui_class_join {
  const char *class_name; /* from /api/health, or NULL */
  char code[UI_CLASS_CODE_MAX + 1], name[4 * UI_CLASS_NAME_MAX + 1];
  char code_error[320], name_error[320], form_error[400];
  const char *note; /* a plain sentence (e.g. "You left the class."), or NULL */
  bool busy;        /* the join request is under way */
} ui_class_join;

/* The join form (ids class-code, class-name, class-join). */
void ui_render_class_join(ui_buf *b, const ui_class_join *j);
/* The session bar from a GET /api/session answer; class_name may be NULL. */
void ui_render_class_bar(ui_buf *b, const cJSON *session, const char *class_name);

/* Checks a display name as the server will (1 to 40 characters, no control
 * characters, not only spaces; UTF-8 counts one character per code point).
 * Returns true, or false with a sentence for the learner in msg. */
bool ui_class_name_ok(const char *name, char *msg, size_t n);
/* Upper-cases a typed join code and drops spaces; eight letters and digits
 * typed without the dash get it back ("abcd efgh" → "ABCD-EFGH"). Returns
 * false (msg set) when nothing is left or it has characters no code has. */
bool ui_class_code_normalise(const char *typed, char *out, size_t n, char *msg, size_t msg_n);

/* A join answered 429 (the class is letting others in) is sent again by
 * itself: at most UI_CLASS_JOIN_RETRIES times and UI_CLASS_JOIN_WAIT_MAX_S
 * of waiting in all, so a learner is never left on "Joining…". */
#define UI_CLASS_JOIN_RETRIES 6
#define UI_CLASS_JOIN_WAIT_MAX_S 90
/* Seconds to wait before try number tries+1, having waited waited_s so far:
 * the server's Retry-After (retry_after_s; -1 when it sent none: 2 s) kept
 * within 1 to 30 s; -1 when the bounds say to stop and ask the learner. */
int ui_class_join_retry_s(int tries, int waited_s, int retry_after_s);
/* The sentence the join form shows while it waits to try again. */
void ui_class_join_wait_note(char *buf, size_t n, int delay_s);

/* "a few seconds", "about 40 seconds", "about 2 minutes", "about 1 hour":
 * a wait in words, as the queue and Retry-After are shown. */
const char *ui_class_wait_words(double seconds, char *buf, size_t n);

#endif
