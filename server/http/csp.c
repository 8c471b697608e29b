/* The security headers every answer carries, and the Content-Security-
 * Policy of a page. Scripts come from the server's own files; the page's
 * inline scripts (index.html carries the client's program and its boot
 * script inline, so they run while the head is parsed: docs/
 * architecture.md, "Static files") are allowed by the SHA-256 of their
 * text, computed from the page as it is served, so a page rebuilt while
 * the server runs is allowed as it is now. Data blocks (a script element
 * whose type is not JavaScript) do not run and are not hashed. */
#include "csp.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sha256.h"

#define CSP_HEAD "Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"
#define CSP_TAIL                                                                                                    \
  "; style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; "          \
  "base-uri 'none'; frame-ancestors 'none'\r\n"
#define OTHER_LINES                                                                                                 \
  "Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n"                      \
  "Cross-Origin-Resource-Policy: same-origin\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"

static const char base_lines[] = OTHER_LINES CSP_HEAD CSP_TAIL;

const char *srv_security_header_lines(void) { return base_lines; }

const char *srv_security_lines_but_csp(void) { return OTHER_LINES; }

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

static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether the attribute `name` starts at q (after white space, and
 * followed by '=', white space or the tag's end). */
static bool attr_at(const char *q, const char *end, const char *name) {
  size_t n = strlen(name);
  return space(q[-1]) && (size_t)(end - q) >= n && strncasecmp(q, name, n) == 0 &&
         (q + n == end || q[n] == '=' || q[n] == '>' || space(q[n]));
}

/* The end of the start tag that begins at p ("<script"), or NULL; whether
 * the script runs inline: no src, and no type or a JavaScript one (a data
 * block, type="application/json", does not run). */
static const char *tag_end(const char *p, const char *end, bool *runs_inline) {
  bool src = false, data = false;
  const char *q = p + 7;
  for (; q < end && *q != '>'; q++) {
    if (attr_at(q, end, "src")) src = true;
    if (attr_at(q, end, "type")) {
      const char *v = q + 4;
      while (v < end && (*v == '=' || *v == '"' || *v == '\'' || space(*v))) v++;
      data = !((size_t)(end - v) >= 15 && strncasecmp(v, "text/javascript", 15) == 0) &&
             !((size_t)(end - v) >= 6 && strncasecmp(v, "module", 6) == 0);
    }
  }
  *runs_inline = !src && !data;
  return q < end ? q + 1 : NULL;
}

int srv_csp_hash_inline(const char *html, size_t len, char hashes[][SRV_CSP_HASH_CHARS], int max) {
  const char *p = html, *end = html + len;
  int n = 0;
  while (p < end) {
    const char *open = NULL;
    for (const char *q = p; end - q >= 7; q++)
      if (q[0] == '<' && strncasecmp(q, "<script", 7) == 0 && (end - q == 7 || q[7] == '>' || space(q[7]))) {
        open = q;
        break;
      }
    if (!open) break;
    bool runs;
    const char *body = tag_end(open, end, &runs);
    if (!body) return -1; /* a tag left open: the page is broken */
    const char *close = NULL;
    for (const char *q = body; end - q >= 8; q++)
      if (strncasecmp(q, "</script", 8) == 0) {
        close = q;
        break;
      }
    if (!close) return -1;
    if (runs) {
      if (n == max) return -1;
      uint8_t digest[LAB_SHA256_BYTES];
      lab_sha256_once(body, (size_t)(close - body), digest);
      base64(digest, sizeof digest, hashes[n++]);
    }
    p = close + 8;
  }
  return n;
}

int srv_csp_page_line(const char *html, size_t len, char *out, size_t n) {
  char hashes[SRV_CSP_MAX_INLINE][SRV_CSP_HASH_CHARS];
  int count = srv_csp_hash_inline(html, len, hashes, SRV_CSP_MAX_INLINE);
  if (count < 0 || n < sizeof CSP_HEAD + sizeof CSP_TAIL + (size_t)count * SRV_CSP_SOURCE_CHARS) {
    snprintf(out, n, "%s", n >= sizeof CSP_HEAD + sizeof CSP_TAIL ? CSP_HEAD CSP_TAIL : "");
    return -1;
  }
  size_t o = (size_t)snprintf(out, n, "%s", CSP_HEAD);
  for (int i = 0; i < count; i++) o += (size_t)snprintf(out + o, n - o, " 'sha256-%s'", hashes[i]);
  snprintf(out + o, n - o, "%s", CSP_TAIL);
  return count;
}
