/* On-the-fly gzip of an answer body (zlib): the API's JSON answers are made
 * per request, so they cannot have precompressed twins like the web root's
 * files (precompressed.h). */
#ifndef SRV_GZIP_BODY_H
#define SRV_GZIP_BODY_H

#include <stddef.h>

/* Below this many bytes an answer goes as it is: gzip's 18-byte frame and
 * the Content-Encoding/Vary lines would eat most of what it saves. */
#define SRV_GZIP_MIN_BYTES 1024

/* Does the Accept-Encoding header list coding with a q above 0
 * ("gzip;q=0" refuses it)? NULL accepts nothing. */
int srv_accepts_coding(const char *accept_encoding, const char *coding);

/* gzip (deflate with the gzip wrapper, level 6) of len bytes of in: 0 with
 * *out (malloc'd, the caller frees it) and *out_len set, -1 when out of
 * memory or when the result would not be smaller than the input. */
int srv_gzip(const char *in, size_t len, char **out, size_t *out_len);

#endif
