/* Reading files under a root safely: no "..", no escape through links. */
#ifndef SRV_FILES_H
#define SRV_FILES_H

#include <stddef.h>

/* Joins root and a URI path (which must start with '/') into out after
 * rejecting "..", backslashes and control characters; then checks that the
 * real path stays under the real root. Returns 0, or -1 (treat as 404). */
int srv_resolve_under(const char *root, const char *uri_path, char *out, size_t n);
/* Reads a whole regular file of at most max bytes (malloc'd, NUL-terminated). */
int srv_read_file(const char *path, size_t max, char **out, size_t *len);

#endif
