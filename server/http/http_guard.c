/* CivetWeb's errors as envelopes, and the framing checks (see
 * http_guard.h). CivetWeb reads the first Content-Length it finds; a
 * request with two is refused rather than guessed at (request smuggling
 * works by making two parsers disagree on where a body ends). */
#include "http_guard.h"

#include <civetweb.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "conn_socket.h"
#include "http.h"

static lab_err code_for(int status) {
  switch (status) {
  case 404: return LAB_E_NOT_FOUND;
  case 405: return LAB_E_METHOD_NOT_ALLOWED;
  case 408: return LAB_E_REQUEST_TIMEOUT;
  case 411: return LAB_E_LENGTH_REQUIRED;
  case 413: return LAB_E_HEADERS_TOO_LARGE; /* CivetWeb sends it when the headers overflow max_request_size */
  default: return status >= 500 && status != 505 ? LAB_E_INTERNAL : LAB_E_BAD_REQUEST;
  }
}

/* CivetWeb's own text is not passed on: some of it quotes the request
 * ("Bad HTTP version: [...]" holds whatever followed a raw space in the
 * path, cookies included). The status line is written here for the same
 * reason: CivetWeb's would repeat the "version" it parsed. */
int srv_http_error(struct mg_connection *conn, int status, const char *msg) {
  (void)msg;
  lab_err code = code_for(status);
  char text[300];
  /* CivetWeb answers 400 "Malformed message" both for bytes it cannot
   * parse and for headers that filled its whole buffer; the socket says
   * which: past SRV_MAX_HEADER_BYTES read, the headers were too large. */
  if (status == 400 && srv_conn_bytes_read(conn) >= SRV_MAX_HEADER_BYTES) code = LAB_E_HEADERS_TOO_LARGE;
  if (code == LAB_E_HEADERS_TOO_LARGE)
    snprintf(text, sizeof text, "the request line and headers are over %d KiB; send fewer or shorter headers "
             "(a cookie of another site on this host counts too)", SRV_MAX_HEADER_BYTES / 1024);
  else if (status == 505 || status == 400)
    snprintf(text, sizeof text,
             "the server could not read this request line; send METHOD /path HTTP/1.1, with the path "
             "percent-encoded (no raw spaces or control bytes)");
  else snprintf(text, sizeof text, "the server could not read this request (HTTP %d); %s", status, lab_err_advice(code));
  srv_send_raw_error(conn, code, text);
  return 0;
}

void srv_request_unanswered(const struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (srv_http_answered() || !ri || !ri->request_method || !ri->request_uri || ri->local_uri) return;
  /* CivetWeb leaves a target that names no path of this server (the
   * asterisk form, or an absolute URI for another host or port) without
   * any answer; gpulab is no proxy, and says so. */
  srv_send_raw_error((struct mg_connection *)conn, LAB_E_BAD_REQUEST,
                     strcmp(ri->request_uri, "*") == 0
                         ? "gpulab answers requests for a path, not for *; send e.g. OPTIONS /api/health HTTP/1.1"
                         : "gpulab serves paths on this server only; send the path alone (e.g. GET /api/health "
                           "HTTP/1.1) with a Host header");
}

/* Whether the Origin header ("https://host:port", "null") names the host
 * this request was sent to (its Host header). The scheme is not compared:
 * a proxy in front may end TLS. */
static int same_origin(const char *origin, const char *host) {
  const char *sep = strstr(origin, "://");
  if (!sep || !host) return 0;
  return strcasecmp(sep + 3, host) == 0;
}

/* CivetWeb drops the spaces between a header's name and its colon
 * ("Transfer-Encoding : chunked" reads as Transfer-Encoding), where HTTP
 * says a server must refuse the request (RFC 9112, section 5.1): a proxy
 * in front may read the line as another header or none, and the two
 * would disagree on where the body ends. CivetWeb parses in place, writing
 * a NUL over the byte after the name (the colon, or the first of those
 * spaces) and one over the colon, then skips the spaces after it: a second
 * NUL between the name and its value is there exactly when spaces came
 * before the colon (tests/api/http_framing.test.mjs holds this reading of
 * CivetWeb to it). */
static int space_before_colon(const char *name, const char *value) {
  size_t n = strlen(name);
  if (!value || value <= name + n || value - name > SRV_MAX_HEADER_BYTES) return 0;
  for (const char *p = name + n + 1; p < value; p++)
    if (*p == 0) return 1;
  return 0;
}

/* Digits only, with the spaces HTTP allows around a header's value. */
static int decimal(const char *v) {
  while (*v == ' ' || *v == '\t') v++;
  int digits = 0;
  while (*v >= '0' && *v <= '9') v++, digits++;
  while (*v == ' ' || *v == '\t') v++;
  return digits > 0 && digits <= 18 && *v == 0;
}

int srv_request_check(struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  int lengths = 0, chunked = 0, malformed = 0, spaced = 0;
  /* CivetWeb keeps MG_MAX_HEADERS headers and drops the rest unseen: a
   * Content-Length or Transfer-Encoding among them would be read by a
   * proxy in front and not here. */
  if (ri->num_headers >= MG_MAX_HEADERS)
    return srv_send_fail(conn, LAB_E_HEADERS_TOO_LARGE, NULL, "the request carries %d headers or more; send at most %d",
                         MG_MAX_HEADERS, MG_MAX_HEADERS - 1);
  for (int i = 0; i < ri->num_headers; i++) {
    spaced |= space_before_colon(ri->http_headers[i].name, ri->http_headers[i].value);
    if (strcasecmp(ri->http_headers[i].name, "Content-Length") == 0) {
      lengths++;
      malformed |= !decimal(ri->http_headers[i].value);
    }
    if (strcasecmp(ri->http_headers[i].name, "Transfer-Encoding") == 0) chunked++;
  }
  /* A browser names the page that sent a request in Origin; a page of
   * another site may not change anything here (its simple requests need
   * no preflight, and would carry the learner's cookies when same-site). */
  const char *origin = mg_get_header(conn, "Origin");
  int changes = strcmp(ri->request_method, "GET") != 0 && strcmp(ri->request_method, "HEAD") != 0 &&
                strcmp(ri->request_method, "OPTIONS") != 0;
  if (changes && origin && !same_origin(origin, mg_get_header(conn, "Host")))
    return srv_send_fail(conn, LAB_E_CROSS_ORIGIN, NULL,
                         "a page of %.80s may not send %.10s requests to gpulab; use gpulab from its own pages", origin,
                         ri->request_method);
  /* CivetWeb reads a POST or PUT with neither as an empty body, and the
   * handler would act on defaults the client never chose. */
  if (!lengths && !chunked && (strcmp(ri->request_method, "POST") == 0 || strcmp(ri->request_method, "PUT") == 0))
    return srv_send_fail(conn, LAB_E_LENGTH_REQUIRED, NULL,
                         "a %s needs a Content-Length header (Content-Length: 0 for no body)", ri->request_method);
  if (spaced)
    return srv_send_fail(conn, LAB_E_BAD_REQUEST, NULL,
                         "a header has spaces between its name and its colon; send Name: value");
  /* CivetWeb reads "12abc" or "0x10" as far as it is a number. */
  if (malformed)
    return srv_send_fail(conn, LAB_E_BAD_REQUEST, NULL, "Content-Length must be a decimal number of bytes");
  if (lengths > 1)
    return srv_send_fail(conn, LAB_E_BAD_REQUEST, NULL,
                         "the request carries %d Content-Length headers; send exactly one", lengths);
  if (lengths && chunked)
    return srv_send_fail(conn, LAB_E_BAD_REQUEST, NULL,
                         "a request may not carry both Transfer-Encoding and Content-Length; send one of them");
  return 0;
}
