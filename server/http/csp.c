/* The Content-Security-Policy every answer carries. Scripts come from the
 * server's own files; the one exception is an inline script of the page
 * (index.html starts its first requests with it, before any file could
 * arrive), allowed by its SHA-256 hash, read from the served file when the
 * server starts. A script that is changed afterwards without a restart is
 * refused by the browser and the page asks from web/app.js instead. */
#include "csp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "files.h"
#include "sha256.h"

#define CSP_HEAD "Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"
#define CSP_TAIL                                                                                                    \
  "; style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; "          \
  "base-uri 'none'; frame-ancestors 'none'\r\n"
#define OTHER_LINES                                                                                                 \
  "Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n"                      \
  "Cross-Origin-Resource-Policy: same-origin\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
#define PAGE_MAX_BYTES (1024 * 1024)
/* " 'sha256-" + 44 base64 characters + "'" */
#define HASH_SOURCE_CHARS 55

/* Written once by srv_csp_init, before the server starts its threads;
 * only read afterwards. */
static char lines[sizeof OTHER_LINES + sizeof CSP_HEAD + SRV_CSP_MAX_INLINE * HASH_SOURCE_CHARS + sizeof CSP_TAIL] =
    OTHER_LINES CSP_HEAD CSP_TAIL;
static int inline_count;

const char *srv_security_header_lines(void) { return lines; }

int srv_csp_inline_count(void) { return inline_count; }

static void base64(const uint8_t *in, size_t n, char *out) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
    out[o++] = digits[v >> 18 & 63];
    out[o++] = digits[v >> 12 & 63];
    out[o++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? digits[v & 63] : '=';
  }
  out[o] = '\0';
}

/* The end of a start tag that begins at p ("<script"), or NULL. Whether it
 * names a src: an attribute "src" after white space. */
static const char *tag_end(const char *p, const char *end, int *has_src) {
  const char *q = p + 7;
  *has_src = 0;
  for (; q < end && *q != '>'; q++) {
    if ((q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n') && end - q >= 3 && strncasecmp(q, "src", 3) == 0 &&
        (q + 3 == end || q[3] == '=' || q[3] == ' ' || q[3] == '>'))
      *has_src = 1;
  }
  return q < end ? q + 1 : NULL;
}

int srv_csp_hash_inline(const char *html, size_t len, char hashes[][SRV_CSP_HASH_CHARS], int max) {
  const char *p = html, *end = html + len;
  int n = 0;
  while (p < end) {
    const char *open = NULL;
    for (const char *q = p; end - q >= 7; q++)
      if (q[0] == '<' && strncasecmp(q, "<script", 7) == 0 &&
          (end - q == 7 || q[7] == '>' || q[7] == ' ' || q[7] == '\t' || q[7] == '\n')) {
        open = q;
        break;
      }
    if (!open) break;
    int has_src;
    const char *body = tag_end(open, end, &has_src);
    if (!body) return -1; /* a tag left open: the page is broken */
    const char *close = NULL;
    for (const char *q = body; end - q >= 9; q++)
      if (strncasecmp(q, "</script", 8) == 0) {
        close = q;
        break;
      }
    if (!close) return -1;
    if (!has_src) {
      if (n == max) return -1;
      uint8_t digest[LAB_SHA256_BYTES];
      lab_sha256_once(body, (size_t)(close - body), digest);
      base64(digest, sizeof digest, hashes[n++]);
    }
    p = close + 8;
  }
  return n;
}

int srv_csp_init(const char *page_path, char *why, size_t why_n) {
  char *html = NULL;
  size_t len = 0;
  char hashes[SRV_CSP_MAX_INLINE][SRV_CSP_HASH_CHARS];
  if (srv_read_file(page_path, PAGE_MAX_BYTES, &html, &len) != 0) {
    snprintf(why, why_n, "cannot read %s (or it is over %d bytes)", page_path, PAGE_MAX_BYTES);
    return -1;
  }
  int n = srv_csp_hash_inline(html, len, hashes, SRV_CSP_MAX_INLINE);
  free(html);
  if (n < 0) {
    snprintf(why, why_n, "%s has an unclosed <script> or more than %d inline scripts", page_path, SRV_CSP_MAX_INLINE);
    return -1;
  }
  size_t o = (size_t)snprintf(lines, sizeof lines, "%s%s", OTHER_LINES, CSP_HEAD);
  for (int i = 0; i < n; i++) o += (size_t)snprintf(lines + o, sizeof lines - o, " 'sha256-%s'", hashes[i]);
  snprintf(lines + o, sizeof lines - o, "%s", CSP_TAIL);
  inline_count = n;
  return 0;
}
