/* What every request meets before a handler: CivetWeb's own error answers
 * (a request it could not parse) in our JSON envelope, and the checks
 * that cannot wait for a handler to read the body. */
#ifndef SRV_HTTP_GUARD_H
#define SRV_HTTP_GUARD_H

struct mg_connection;

/* mg_callbacks.http_error: answers CivetWeb's 400, 408, 411, 413 (headers
 * too large: 431 here), 505 … as {"error":{…}}. Returns 0 (handled). */
int srv_http_error(struct mg_connection *conn, int status, const char *msg);

/* mg_callbacks.connection_close: a request CivetWeb parsed but handed to
 * no handler (the target "*", or an absolute URI it does not map to a
 * path here) and left without an answer gets 400 bad_request. */
void srv_request_unanswered(const struct mg_connection *conn);

/* From begin_request: refuses (and answers) a request that changes
 * something (not GET, HEAD or OPTIONS) sent by a page of another origin
 * (403 cross_origin), a POST or PUT with neither Content-Length nor
 * chunked encoding (411 length_required), and one framed ambiguously — two Content-Length
 * headers, one that is not a plain number, or a length beside chunked
 * encoding, which a proxy in front could read differently than we do.
 * Returns 0 to go on, or the HTTP status it answered with. */
int srv_request_check(struct mg_connection *conn);

#endif
