/* The accept() wrapper (see conn_gate.h). This definition in the gpulab
 * binary is the one libcivetweb's call binds to (the dynamic linker looks
 * in the executable first); it calls the C library's accept through
 * dlsym(RTLD_NEXT) and then asks the per-address count. Without a gate
 * set it only passes the call on. */
#include "conn_gate.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "csp.h"
#include "error.h"

static _Atomic(srv_conn_limit *) gate;
static _Atomic int gate_tls;
static _Atomic unsigned long refused;

void srv_conn_gate_set(srv_conn_limit *l, int tls) {
  gate_tls = tls;
  gate = l;
}

unsigned long srv_conn_gate_refused(void) { return refused; }

void srv_conn_gate_closing(const char *addr, int port) {
  srv_conn_limit *l = gate;
  if (l && addr) srv_conn_limit_release(l, addr, port);
}

int srv_conn_gate_fd(const char *addr, int port) {
  srv_conn_limit *l = gate;
  return l && addr ? srv_conn_limit_fd(l, addr, port) : -1;
}

/* 429 with the error envelope, then close. Written at once, before the
 * client's request is read: nothing of it will be. */
static void refuse(int fd, const char *addr) {
  refused++;
  if (!gate_tls) {
    lab_error err;
    lab_fail(&err, LAB_E_TOO_MANY_CONNECTIONS, NULL,
             "too many connections are open from your address (%.46s); retry in %d s", addr, SRV_CONN_RETRY_S);
    cJSON *json = lab_error_json(&err);
    char *body = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    char head[1400];
    int n = body ? snprintf(head, sizeof head,
                            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: "
                            "%zu\r\nRetry-After: %d\r\nCache-Control: no-store\r\nConnection: close\r\n%s\r\n",
                            strlen(body), SRV_CONN_RETRY_S, srv_security_header_lines())
                 : -1;
    if (n > 0 && (size_t)n < sizeof head) {
      (void)send(fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
      (void)send(fd, body, strlen(body), MSG_NOSIGNAL | MSG_DONTWAIT);
      shutdown(fd, SHUT_WR);
    }
    cJSON_free(body);
  }
  close(fd);
}

typedef int (*accept_fn)(int, __SOCKADDR_ARG, socklen_t *__restrict);

/* The signature is glibc's: with _GNU_SOURCE the address is a transparent
 * union of the sockaddr pointer types. */
int accept(int fd, __SOCKADDR_ARG addr, socklen_t *__restrict len) {
  static _Atomic(accept_fn) real;
  if (!real) real = (accept_fn)(size_t)dlsym(RTLD_NEXT, "accept");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int s = real(fd, addr, len);
  srv_conn_limit *l = gate;
  if (s < 0 || !l) return s;
  char peer[SRV_ADDR_MAX];
  int port = 0;
  if (srv_socket_endpoint(s, 1, peer, &port) != 0 || srv_conn_limit_admit(l, s, peer, port)) return s;
  refuse(s, peer);
  /* CivetWeb treats a failed accept as "nothing came" and polls again. */
  errno = ECONNABORTED;
  return -1;
}
