/* The security headers every answer carries, with the Content-Security-
 * Policy that allows the page's own inline scripts by their hashes. */
#ifndef SRV_CSP_H
#define SRV_CSP_H

#include <stddef.h>

#define SRV_CSP_MAX_INLINE 4
#define SRV_CSP_HASH_CHARS 45 /* base64 of 32 bytes, and its NUL */

/* The header lines ("Name: value\r\n"…): cross-origin isolation, nosniff,
 * referrer policy and the CSP. Before srv_csp_init, a CSP with no inline
 * script allowed. */
const char *srv_security_header_lines(void);

/* Reads the page at page_path (index.html) and allows each of its inline
 * scripts by the SHA-256 of its text. Call once, before the server starts
 * its threads. 0, or -1 with why filled (the headers are left as they
 * were). */
int srv_csp_init(const char *page_path, char *why, size_t why_n);

/* How many inline scripts the CSP allows (0 before srv_csp_init). */
int srv_csp_inline_count(void);

/* The base64 SHA-256 of each inline <script> (one without src) in html,
 * in order, into hashes: their count, or -1 for a script left open or more
 * than max of them. */
int srv_csp_hash_inline(const char *html, size_t len, char hashes[][SRV_CSP_HASH_CHARS], int max);

#endif
