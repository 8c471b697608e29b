/* A value the page keeps in localStorage, read whole whatever its length
 * (the learner's last envelopes, quiz progress, their own kit run). */
#ifndef UI_STORED_H
#define UI_STORED_H

#include <stddef.h>

/* The value (caller frees), or NULL when absent, unavailable, or max bytes
 * or more. */
char *ui_stored_read(const char *key, size_t max);

#endif
