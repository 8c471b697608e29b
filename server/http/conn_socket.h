/* What the socket under a CivetWeb connection tells that CivetWeb's API
 * does not: whether the client has hung up, how many bytes are waiting to
 * be read, how many the server has read. CivetWeb 1.15 shows no socket, so
 * it is found by the client's address and port among the ones the accept
 * gate tracks (conn_gate.h); without the gate each answers "unknown". */
#ifndef SRV_CONN_SOCKET_H
#define SRV_CONN_SOCKET_H

struct mg_connection;

/* 1 when the client has closed its end or the connection was reset (a
 * fetch aborted, a browser tab closed), 0 when not or unknown. A client
 * that only shuts down its sending side counts as gone: HTTP clients do
 * not, and one that did could not be told from one that left. */
int srv_conn_hung_up(const struct mg_connection *conn);

/* Bytes the kernel holds for the connection, not yet read (so a read of
 * that many returns at once); 0 when none or unknown, and over TLS (the
 * kernel's bytes are records: fewer of them come out). */
long srv_conn_waiting_bytes(const struct mg_connection *conn);

/* Writes text to the socket itself, around CivetWeb (which counts a
 * handler's first write as the start of its answer): for an interim
 * answer, "HTTP/1.1 100 Continue". Plain TCP only: over TLS (or with no
 * socket known) it writes nothing and returns -1; else 0. */
int srv_conn_send_interim(const struct mg_connection *conn, const char *text);

/* The lingering close of an answer sent before the request's body was
 * read (a cut upload): half-closes the write side (the client reads the
 * answer, then the end) and reads and drops what the client still sends,
 * until it closes its end, max_bytes were dropped, max_s passed, or no
 * byte came for idle_s; closing with unread bytes would reset the
 * connection, and a client still sending reads "connection reset" instead
 * of the answer. Over TLS the write side stays open (CivetWeb still says
 * goodbye in TLS): the bytes are only dropped. fd is srv_conn_socket's,
 * taken before the answer. The bytes dropped, or -1 when no socket is
 * known (then nothing is read). */
/* How a lingering close ended: the client closed its end (or reset), the
 * server's bounds (idle_s without a byte, max_s in all, max_bytes
 * dropped), or no socket to read. A client that is still sending when a
 * bound ends it may read a reset instead of the answer. */
typedef enum { SRV_LINGER_CLIENT, SRV_LINGER_IDLE, SRV_LINGER_TIME, SRV_LINGER_BYTES, SRV_LINGER_ENDS } srv_linger_end;
long long srv_conn_linger(const struct mg_connection *conn, int fd, long long max_bytes, double max_s, double idle_s,
                          srv_linger_end *end);

/* The socket under conn, or -1 unknown: taken before the answer is sent
 * (an answered connection is no longer tracked by the accept gate, which
 * lets its client open the next one), for srv_conn_linger after it. */
int srv_conn_socket(const struct mg_connection *conn);

/* Bytes of the request read from the socket so far (received less still
 * waiting; over TLS, encrypted bytes with the handshake), or -1 unknown. */
long long srv_conn_bytes_read(const struct mg_connection *conn);

#endif
