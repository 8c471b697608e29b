/* The client's address as the class's throttles and the log count it.
 * Behind a load balancer every connection comes from the balancer, so a
 * server started with --trusted-proxy ADDR[,ADDR…] takes, for connections
 * from those addresses only, the last address in X-Forwarded-For — the one
 * the proxy itself appended (HAProxy: option forwardfor), which a client
 * cannot forge. Set once at start; read by every request. A server that
 * gets X-Forwarded-For from an address it does not trust says so once in
 * its log, naming --trusted-proxy. */
#ifndef SRV_CLIENT_ADDR_H
#define SRV_CLIENT_ADDR_H

#include <stddef.h>

#include "conn_limit.h"

struct mg_connection;

#define SRV_TRUSTED_PROXIES_MAX 16

/* Parses "10.0.0.2,10.0.0.3" (IPv4 or IPv6 addresses, as the server sees
 * them); 0, or -1 with msg. */
int srv_trusted_proxies_set(const char *list, char *msg, size_t n);
/* The request's client address, in out (which it returns). */
const char *srv_client_addr(const struct mg_connection *conn, char out[SRV_ADDR_MAX]);
/* Whether the browser reached us over HTTPS: TLS here, or a trusted proxy
 * that terminated it and says so (X-Forwarded-Proto: https). Cookies are
 * then Secure and answers carry HSTS. */
int srv_request_https(const struct mg_connection *conn);

#endif
