/* Precompressed static files (FILE.br, FILE.gz built by tools/compress.sh):
 * which one to send for a request's Accept-Encoding. */
#ifndef SRV_PRECOMPRESSED_H
#define SRV_PRECOMPRESSED_H

#include <stddef.h>

/* For the file at path (already resolved under the web root; cap bytes of
 * room) and the request's Accept-Encoding (may be NULL): the encoding to
 * send ("br" or "gzip"), with its twin's suffix appended to path in place
 * (no second path buffer: CivetWeb's thread stacks are small), or NULL
 * with path unchanged. A twin counts only when it is a regular file no
 * older than path. */
const char *srv_precompressed(char *path, size_t cap, const char *accept_encoding);

/* true when path's type is worth compressing (answers then Vary on
 * Accept-Encoding whichever form is sent). */
int srv_compressible(const char *path);

#endif
