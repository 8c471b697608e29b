/* The per-address count (see conn_limit.h). CivetWeb closes its sockets
 * without telling anyone who is not serving the request, so an entry is
 * checked instead: its fd must still be a socket connected to the same
 * peer address and port (a reused fd belongs to another connection, with
 * another port). Only the newcomer's address is checked, and the whole
 * table only when it is full (or the threads are nearly all held), so
 * admitting usually costs at most a share's worth of getpeername calls.
 * An answered connection is released at once (srv_conn_limit_release):
 * it is closing, and its client may already be opening the next one. */
#include "conn_limit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef struct tracked {
  int fd, port; /* fd < 0: a free slot */
  char addr[SRV_ADDR_MAX];
} tracked;

struct srv_conn_limit {
  pthread_mutex_t lock;
  int per_address, capacity;
  int held;          /* entries in use (some may have closed unseen) */
  int busy, each;    /* past `busy` held in all, an address may hold `each` */
  tracked *t;
};

int srv_socket_endpoint(int fd, int peer, char addr[SRV_ADDR_MAX], int *port) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int rc = peer ? getpeername(fd, (struct sockaddr *)&ss, &len) : getsockname(fd, (struct sockaddr *)&ss, &len);
  if (rc != 0) return -1;
  if (ss.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
    *port = ntohs(a->sin_port);
    return inet_ntop(AF_INET, &a->sin_addr, addr, SRV_ADDR_MAX) ? 0 : -1;
  }
  if (ss.ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
    *port = ntohs(a->sin6_port);
    return inet_ntop(AF_INET6, &a->sin6_addr, addr, SRV_ADDR_MAX) ? 0 : -1;
  }
  return -1;
}

srv_conn_limit *srv_conn_limit_new(int per_address, int capacity) {
  if (per_address < 1 || capacity < 1) return NULL;
  srv_conn_limit *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->t = calloc((size_t)capacity, sizeof *l->t);
  if (!l->t) {
    free(l);
    return NULL;
  }
  for (int i = 0; i < capacity; i++) l->t[i].fd = -1;
  l->per_address = per_address;
  l->capacity = capacity;
  pthread_mutex_init(&l->lock, NULL);
  return l;
}

void srv_conn_limit_free(srv_conn_limit *l) {
  if (!l) return;
  pthread_mutex_destroy(&l->lock);
  free(l->t);
  free(l);
}

/* 1 while the entry's socket is still open to the same peer. */
static int still_open(const tracked *e) {
  char addr[SRV_ADDR_MAX];
  int port = 0;
  return srv_socket_endpoint(e->fd, 1, addr, &port) == 0 && port == e->port && strcmp(addr, e->addr) == 0;
}

/* Drops closed entries (of addr only, or all when addr is NULL); returns
 * how many of addr's are open and the first free slot in *free_slot. */
static int sweep(srv_conn_limit *l, const char *addr, tracked **free_slot) {
  int open = 0;
  *free_slot = NULL;
  for (int i = 0; i < l->capacity; i++) {
    tracked *e = &l->t[i];
    int mine = e->fd >= 0 && addr && strcmp(e->addr, addr) == 0;
    if (e->fd >= 0 && (mine || !addr) && !still_open(e)) {
      e->fd = -1;
      l->held--;
    }
    if (e->fd >= 0 && mine) open++;
    if (e->fd < 0 && !*free_slot) *free_slot = e;
  }
  return open;
}

int srv_conn_limit_admit(srv_conn_limit *l, int fd, const char *addr, int port) {
  pthread_mutex_lock(&l->lock);
  tracked *slot;
  int open = sweep(l, addr, &slot);
  if (!slot) {
    tracked *ignored;
    sweep(l, NULL, &ignored);
    open = sweep(l, addr, &slot);
  }
  int ok = slot && open < l->per_address;
  /* Near the end of the threads, what is left goes a few to each address:
   * two busy addresses together may not take the last ones either. */
  if (ok && l->each > 0 && open >= l->each && l->held >= l->busy) {
    tracked *ignored;
    sweep(l, NULL, &ignored); /* held may count sockets closed unseen */
    ok = l->held < l->busy;
  }
  if (ok) {
    l->held++;
    slot->fd = fd;
    slot->port = port;
    snprintf(slot->addr, sizeof slot->addr, "%s", addr);
  }
  pthread_mutex_unlock(&l->lock);
  return ok;
}

void srv_conn_limit_set_threads(srv_conn_limit *l, int threads) {
  int reserve = threads / 8;
  pthread_mutex_lock(&l->lock);
  /* a share set above that mark moves it: the operator chose it */
  l->busy = threads - reserve > l->per_address ? threads - reserve : l->per_address;
  l->each = reserve > 0 ? (reserve / 4 > 1 ? reserve / 4 : 1) : 0;
  pthread_mutex_unlock(&l->lock);
}

void srv_conn_limit_release(srv_conn_limit *l, const char *addr, int port) {
  pthread_mutex_lock(&l->lock);
  for (int i = 0; i < l->capacity; i++) {
    tracked *e = &l->t[i];
    if (e->fd >= 0 && e->port == port && strcmp(e->addr, addr) == 0) {
      e->fd = -1;
      l->held--;
      break;
    }
  }
  pthread_mutex_unlock(&l->lock);
}

int srv_conn_limit_fd(srv_conn_limit *l, const char *addr, int port) {
  int fd = -1;
  pthread_mutex_lock(&l->lock);
  for (int i = 0; i < l->capacity && fd < 0; i++)
    if (l->t[i].fd >= 0 && l->t[i].port == port && strcmp(l->t[i].addr, addr) == 0) fd = l->t[i].fd;
  pthread_mutex_unlock(&l->lock);
  return fd;
}

int srv_conn_limit_open(srv_conn_limit *l, const char *addr) {
  pthread_mutex_lock(&l->lock);
  tracked *ignored;
  int open = sweep(l, addr, &ignored);
  pthread_mutex_unlock(&l->lock);
  return open;
}

int srv_conn_limit_default_share(int threads) {
  int keep = threads / 8 > 4 ? threads / 8 : 4;
  return threads - keep >= 1 ? threads - keep : 1;
}
