/* The security headers every answer carries, and a page's Content-
 * Security-Policy, which allows the page's own inline scripts by their
 * hashes. */
#ifndef SRV_CSP_H
#define SRV_CSP_H

#include <stddef.h>

#define SRV_CSP_MAX_INLINE 4
#define SRV_CSP_HASH_CHARS 45   /* base64 of 32 bytes, and its NUL */
#define SRV_CSP_SOURCE_CHARS 55 /* " 'sha256-" + 44 + "'" */
/* Room for a page's CSP line with SRV_CSP_MAX_INLINE hashes. */
#define SRV_CSP_LINE_MAX 640

/* The header lines ("Name: value\r\n"…) of every answer: cross-origin
 * isolation, nosniff, referrer policy, and a CSP that allows no inline
 * script. */
const char *srv_security_header_lines(void);
/* The same without the CSP line, for a page that sends its own. */
const char *srv_security_lines_but_csp(void);

/* The CSP line ("Content-Security-Policy: …\r\n") for the page html: the
 * base policy plus the hash of each of its inline scripts. Returns how
 * many it allows, or -1 (a script left open, more than
 * SRV_CSP_MAX_INLINE, or n too small: then out holds the base policy,
 * which allows none). */
int srv_csp_page_line(const char *html, size_t len, char *out, size_t n);

/* The base64 SHA-256 of each inline script in html (a script element
 * without src whose type, if any, is JavaScript), in order, into hashes:
 * their count, or -1 for a script left open or more than max of them. */
int srv_csp_hash_inline(const char *html, size_t len, char hashes[][SRV_CSP_HASH_CHARS], int max);

#endif
