/* A learner's measurement kit file in, its comparison out: what the
 * simulation module runs when the page (#yours) is given a file, and what
 * the unit tests' fake bridge runs natively in its place. The file is read
 * by lab/compare/ (kit_file.h) as untrusted input, then compared with the
 * simulator (compare.h), each prediction kept for the page to draw. */
#ifndef UI_KIT_RUN_H
#define UI_KIT_RUN_H

#include <stddef.h>

/* text[0..len): the file's bytes (text NULL: the file was not read, as it
 * is larger than the kit ever writes; len is its size, and it is refused
 * with kit_too_large). claims: the page's claims (/lessons/claims.json)
 * as JSON text, or NULL/"" when they could not be had. Returns 200 with
 * *out {"kit": the file as read, "compare": lab_compare's report with each
 * experiment's "prediction"}, or the error's HTTP status (413, 400) with
 * *out {"error":…}; *out is the caller's to free (NULL when out of memory). */
int ui_kit_run(const char *text, size_t len, const char *claims, char **out);

#endif
