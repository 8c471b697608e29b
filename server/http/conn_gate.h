/* Refusing connections before they take a thread. CivetWeb 1.15 has no
 * hook that runs at accept time and knows the client's address (in its
 * init_connection callback the request info is not yet available), so the
 * accept() it calls is wrapped (conn_gate.c): a connection past its
 * address's share (conn_limit.h) is answered 429 too_many_connections and
 * closed there, and CivetWeb never sees it. */
#ifndef SRV_CONN_GATE_H
#define SRV_CONN_GATE_H

#include "conn_limit.h"

/* Starts gating every accept() in this process with l (not owned); tls:
 * the listener speaks TLS, so a refusal is a plain close (no HTTP text).
 * NULL stops gating. One server per process, as for the metrics. */
void srv_conn_gate_set(srv_conn_limit *l, int tls);

/* The connection from addr:port (its peer) is being answered and will
 * close: it stops counting against its address (conn_limit.h). */
void srv_conn_gate_closing(const char *addr, int port);

/* The socket of the connection from addr:port while its request is
 * served and not yet answered, or -1 (no gate set, or not tracked). */
int srv_conn_gate_fd(const char *addr, int port);

/* Connections refused so far (for /metrics). */
unsigned long srv_conn_gate_refused(void);

#endif
