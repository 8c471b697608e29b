/* Precompressed static files (FILE.br, FILE.gz built by tools/compress.sh):
 * which one to send for a request's Accept-Encoding. */
#ifndef SRV_PRECOMPRESSED_H
#define SRV_PRECOMPRESSED_H

#include <stddef.h>

/* For the file at path (already resolved under the web root) and the
 * request's Accept-Encoding (may be NULL): the encoding to send ("br" or
 * "gzip") with its file's path in out, or NULL to send path as it is. A
 * twin counts only when it is a regular file no older than path. */
const char *srv_precompressed(const char *path, const char *accept_encoding, char *out, size_t n);

/* true when path's type is worth compressing (answers then Vary on
 * Accept-Encoding whichever form is sent). */
int srv_compressible(const char *path);

#endif
