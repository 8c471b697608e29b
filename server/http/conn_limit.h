/* Connections open per client address. Every civetweb connection holds a
 * worker thread while its request arrives, so one address that opens many
 * slow or idle connections could hold them all; past its share it is
 * refused at once and the other threads stay free for everyone else.
 * A classroom behind one NAT shares an address, so the share is large. */
#ifndef SRV_CONN_LIMIT_H
#define SRV_CONN_LIMIT_H

#define SRV_ADDR_MAX 48 /* an IPv6 address as text, with room to spare */
#define SRV_CONN_RETRY_S 5 /* what a refused client is told to wait (Retry-After) */

typedef struct srv_conn_limit srv_conn_limit;

/* per_address: sockets one address may hold open at once (≥ 1);
 * capacity: sockets tracked at once (beyond it newcomers are refused).
 * NULL when out of memory or a bound is not positive. */
srv_conn_limit *srv_conn_limit_new(int per_address, int capacity);
void srv_conn_limit_free(srv_conn_limit *l);

/* Counts the accepted socket fd from addr:port. Returns 1 when it is
 * within the address's share (it is tracked until it closes), 0 when over
 * (not tracked: the caller closes it). Sockets are never released
 * explicitly: a tracked one whose fd no longer names a socket connected
 * to that peer has closed, and is dropped when next looked at. */
int srv_conn_limit_admit(srv_conn_limit *l, int fd, const char *addr, int port);
/* Past the share, one more bound for a server with `threads` worker
 * threads: once all but an eighth of them are held (all addresses
 * together), an address that already holds a quarter of that eighth (at
 * least 1) is refused too, so the last threads go a few to each address
 * and not all to a second busy one (64 threads: past 56 held, 2 each).
 * A per-address share above that mark moves the mark up to it. Fewer
 * than 8 threads: no such bound. */
void srv_conn_limit_set_threads(srv_conn_limit *l, int threads);
/* The socket from addr:port no longer counts: its answer is going out and
 * it is closing (the client may be opening its next one already). */
void srv_conn_limit_release(srv_conn_limit *l, const char *addr, int port);
/* The fd of the tracked socket from addr:port, or -1 when none is (it was
 * answered, or never tracked). Valid while its request is being served:
 * CivetWeb closes it only after. */
int srv_conn_limit_fd(srv_conn_limit *l, const char *addr, int port);
/* Sockets from addr still open now (tests, metrics). */
int srv_conn_limit_open(srv_conn_limit *l, const char *addr);

/* The share for a server with `threads` worker threads: an eighth of them,
 * and at least four, stay for other addresses (64 threads: 56 each). */
int srv_conn_limit_default_share(int threads);

/* The peer (peer=1) or local end of a TCP socket as CivetWeb writes it
 * ("127.0.0.1", "::1") and its port; 0, or -1 when fd is not one. */
int srv_socket_endpoint(int fd, int peer, char addr[SRV_ADDR_MAX], int *port);

#endif
