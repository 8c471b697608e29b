/* The client address behind a trusted proxy (see client_addr.h), whether
 * the browser's connection was HTTPS, and the one warning a server gives
 * when a proxy it does not trust forwards to it. */
#include "client_addr.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <strings.h>
#include <string.h>

static char trusted[SRV_TRUSTED_PROXIES_MAX][SRV_ADDR_MAX];
static int n_trusted;

/* Whether text is one IPv4 or IPv6 address. */
static int is_address(const char *text) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, text, buf) == 1 || inet_pton(AF_INET6, text, buf) == 1;
}

int srv_trusted_proxies_set(const char *list, char *msg, size_t n) {
  n_trusted = 0;
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    char one[SRV_ADDR_MAX];
    if (len == 0 || len >= sizeof one || n_trusted == SRV_TRUSTED_PROXIES_MAX) goto bad;
    memcpy(one, p, len);
    one[len] = 0;
    if (!is_address(one)) goto bad;
    snprintf(trusted[n_trusted++], SRV_ADDR_MAX, "%s", one);
    if (p[len] == ',' && !p[len + 1]) goto bad; /* a trailing comma */
    p += len + (p[len] == ',');
  }
  if (n_trusted > 0) return 0;
bad:
  n_trusted = 0;
  snprintf(msg, n, "--trusted-proxy must be 1 to %d IP addresses separated by commas, e.g. 127.0.0.1,10.0.0.5",
           SRV_TRUSTED_PROXIES_MAX);
  return -1;
}

static int trusted_peer(const char *peer) {
  for (int i = 0; i < n_trusted; i++)
    if (strcmp(trusted[i], peer) == 0) return 1;
  return 0;
}

/* Once per process: a proxy forwards to this server, but the server takes
 * every learner for the proxy (one address for the whole class, so the
 * per-address join limits refuse learners) until it is told to trust it. */
static void warn_untrusted(const char *peer) {
  static atomic_int warned;
  if (atomic_exchange(&warned, 1)) return;
  fprintf(stderr,
          "gpulab: warning: a request from %s carries X-Forwarded-For, but %s is not a trusted proxy: every client "
          "behind it counts as %s (one address for the per-address limits). Start the server with --trusted-proxy "
          "%s if that is your load balancer (this warning is given once)\n",
          peer, peer, peer, peer);
}

const char *srv_client_addr(const struct mg_connection *conn, char out[SRV_ADDR_MAX]) {
  const char *peer = mg_get_request_info(conn)->remote_addr;
  snprintf(out, SRV_ADDR_MAX, "%s", peer);
  const char *xff = mg_get_header((struct mg_connection *)conn, "X-Forwarded-For");
  if (!xff) return out;
  if (!trusted_peer(peer)) {
    warn_untrusted(peer);
    return out;
  }
  const char *last = strrchr(xff, ',');
  last = last ? last + 1 : xff;
  while (*last == ' ') last++;
  char one[SRV_ADDR_MAX];
  size_t len = strcspn(last, " ");
  if (len == 0 || len >= sizeof one) return out;
  memcpy(one, last, len);
  one[len] = 0;
  if (is_address(one)) snprintf(out, SRV_ADDR_MAX, "%s", one);
  return out;
}

int srv_request_https(const struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (!ri) return 0;
  if (ri->is_ssl) return 1;
  if (!trusted_peer(ri->remote_addr)) return 0;
  const char *proto = mg_get_header((struct mg_connection *)conn, "X-Forwarded-Proto");
  return proto && strcasecmp(proto, "https") == 0;
}
