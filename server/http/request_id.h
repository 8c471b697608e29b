/* The request id: one per HTTP request, named in its log line, echoed as
 * the answer's X-Request-Id and stored with a GPU run it queues, so the
 * worker's log line for that run carries it too. A sane incoming
 * X-Request-Id (a proxy's or a client's) is kept; otherwise one is made. */
#ifndef SRV_REQUEST_ID_H
#define SRV_REQUEST_ID_H

#include <stddef.h>

struct mg_connection;

/* Longest id kept (a longer incoming one is replaced by a fresh one). */
#define SRV_REQUEST_ID_MAX 64

/* Starts this thread's request: takes X-Request-Id when it is 1-64 of
 * [A-Za-z0-9._:-], else makes 16 random hex digits. */
void srv_request_id_begin(const struct mg_connection *conn);
/* Forgets the id (a new connection, before its request is read). */
void srv_request_id_reset(void);
/* This thread's request id; "" outside a request (a worker thread). */
const char *srv_request_id(void);
/* Whether s is an id we keep as it is (the rule above). */
int srv_request_id_sane(const char *s);
/* "X-Request-Id: ID\r\n" into buf (n ≥ 86), or "" outside a request. */
void srv_request_id_header(char *buf, size_t n);

#endif
