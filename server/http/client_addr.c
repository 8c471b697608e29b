/* The client address behind a trusted proxy (see client_addr.h). */
#include "client_addr.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <stdio.h>
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

const char *srv_client_addr(const struct mg_connection *conn, char out[SRV_ADDR_MAX]) {
  const char *peer = mg_get_request_info(conn)->remote_addr;
  snprintf(out, SRV_ADDR_MAX, "%s", peer);
  int from_proxy = 0;
  for (int i = 0; i < n_trusted && !from_proxy; i++) from_proxy = strcmp(trusted[i], peer) == 0;
  const char *xff = from_proxy ? mg_get_header((struct mg_connection *)conn, "X-Forwarded-For") : NULL;
  if (!xff) return out;
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
