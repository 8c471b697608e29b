/* The socket's own view of a connection (see conn_socket.h): poll(2) for
 * the peer's close, FIONREAD for the bytes waiting, TCP_INFO for the bytes
 * received. All three are answered by the kernel at once, without reading
 * anything that CivetWeb would then miss. The lingering close reads the
 * socket itself, once the answer is sent and nothing more is wanted. */
#include "conn_socket.h"

#include <civetweb.h>
#include <errno.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "clock.h"
#include "conn_gate.h"

static int socket_of(const struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  return ri ? srv_conn_gate_fd(ri->remote_addr, ri->remote_port) : -1;
}

int srv_conn_hung_up(const struct mg_connection *conn) {
  int fd = socket_of(conn);
  if (fd < 0) return 0;
  struct pollfd p = {.fd = fd, .events = POLLRDHUP};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

long srv_conn_waiting_bytes(const struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  int fd = ri && !ri->is_ssl ? socket_of(conn) : -1, n = 0;
  return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? n : 0;
}

int srv_conn_send_interim(const struct mg_connection *conn, const char *text) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  int fd = ri && !ri->is_ssl ? socket_of(conn) : -1;
  size_t n = strlen(text);
  return fd >= 0 && send(fd, text, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

long long srv_conn_bytes_read(const struct mg_connection *conn) {
  int fd = socket_of(conn), waiting = 0;
  struct tcp_info ti;
  socklen_t len = sizeof ti;
  memset(&ti, 0, sizeof ti);
  if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
      len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received ||
      ioctl(fd, FIONREAD, &waiting) != 0)
    return -1;
  return (long long)ti.tcpi_bytes_received - waiting;
}

int srv_conn_socket(const struct mg_connection *conn) { return socket_of(conn); }

long long srv_conn_linger(const struct mg_connection *conn, int fd, long long max_bytes, double max_s, double idle_s,
                          srv_linger_end *end) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  *end = SRV_LINGER_CLIENT;
  if (fd < 0 || !ri) return -1;
  if (!ri->is_ssl) shutdown(fd, SHUT_WR);
  char buf[8192];
  long long dropped = 0;
  double until = lab_clock_s() + max_s;
  for (;;) {
    if (dropped >= max_bytes) {
      *end = SRV_LINGER_BYTES;
      break;
    }
    double left = until - lab_clock_s();
    int idle = left > idle_s;
    if (idle) left = idle_s;
    if (left <= 0) {
      *end = SRV_LINGER_TIME;
      break;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) { /* silent for idle_s, or the whole time gone */
      *end = idle ? SRV_LINGER_IDLE : SRV_LINGER_TIME;
      break;
    }
    if (r < 0) break; /* the socket failed */
    long long room = max_bytes - dropped;
    ssize_t n = recv(fd, buf, room < (long long)sizeof buf ? (size_t)room : sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) break; /* the client closed its end (or reset) */
    dropped += n;
  }
  return dropped;
}
