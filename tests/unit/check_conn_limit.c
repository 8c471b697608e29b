/* Connections per client address (server/http/conn_limit.c): real loopback
 * sockets, counted while open and forgotten once closed, one address held
 * to its share while another is not. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn_limit.h"
#include "suites.h"

/* A listener on 127.0.0.1 and an accepted connection to it from `from`. */
static int listener(int *port) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(l, 64), 0);
  socklen_t len = sizeof a;
  getsockname(l, (struct sockaddr *)&a, &len);
  *port = ntohs(a.sin_port);
  return l;
}

static int connect_from(int port, const char *from, int *client) {
  int c = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, from, &src.sin_addr);
  dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(bind(c, (struct sockaddr *)&src, sizeof src), 0);
  ck_assert_int_eq(connect(c, (struct sockaddr *)&dst, sizeof dst), 0);
  *client = c;
  return c;
}

static int admit(srv_conn_limit *l, int lst, int *accepted) {
  int s = accept(lst, NULL, NULL);
  ck_assert_int_ge(s, 0);
  char addr[SRV_ADDR_MAX];
  int port = 0;
  ck_assert_int_eq(srv_socket_endpoint(s, 1, addr, &port), 0);
  *accepted = s;
  return srv_conn_limit_admit(l, s, addr, port);
}

START_TEST(conn_limit_holds_one_address_to_its_share) {
  int port, lst = listener(&port);
  srv_conn_limit *l = srv_conn_limit_new(3, 16);
  int client[5], server[5];
  for (int i = 0; i < 3; i++) {
    connect_from(port, "127.0.0.1", &client[i]);
    ck_assert_int_eq(admit(l, lst, &server[i]), 1);
  }
  connect_from(port, "127.0.0.1", &client[3]);
  ck_assert_int_eq(admit(l, lst, &server[3]), 0); /* the fourth: over */
  close(server[3]);
  connect_from(port, "127.0.0.2", &client[4]);
  ck_assert_int_eq(admit(l, lst, &server[4]), 1); /* another address is not held back */
  ck_assert_int_eq(srv_conn_limit_open(l, "127.0.0.1"), 3);
  close(server[0]); /* one closes: its place is free again */
  ck_assert_int_eq(srv_conn_limit_open(l, "127.0.0.1"), 2);
  int again, s;
  connect_from(port, "127.0.0.1", &again);
  ck_assert_int_eq(admit(l, lst, &s), 1);
  close(s);
  close(again);
  for (int i = 1; i < 3; i++) close(server[i]);
  close(server[4]);
  for (int i = 0; i < 5; i++) close(client[i]);
  srv_conn_limit_free(l);
  close(lst);
}
END_TEST

START_TEST(conn_limit_released_socket_no_longer_counts) {
  int port, lst = listener(&port);
  srv_conn_limit *l = srv_conn_limit_new(2, 16);
  int client[3], server[3];
  char addr[SRV_ADDR_MAX];
  int peer_port = 0;
  for (int i = 0; i < 2; i++) {
    connect_from(port, "127.0.0.1", &client[i]);
    ck_assert_int_eq(admit(l, lst, &server[i]), 1);
  }
  /* Still open, but answered and closing: its place is free. */
  ck_assert_int_eq(srv_socket_endpoint(server[0], 1, addr, &peer_port), 0);
  srv_conn_limit_release(l, addr, peer_port);
  ck_assert_int_eq(srv_conn_limit_open(l, "127.0.0.1"), 1);
  connect_from(port, "127.0.0.1", &client[2]);
  ck_assert_int_eq(admit(l, lst, &server[2]), 1);
  srv_conn_limit_release(l, addr, peer_port); /* twice: nothing else is released */
  ck_assert_int_eq(srv_conn_limit_open(l, "127.0.0.1"), 2);
  for (int i = 0; i < 3; i++) close(server[i]), close(client[i]);
  srv_conn_limit_free(l);
  close(lst);
}
END_TEST

/* 16 threads: past 14 held in all, an address holding one already is
 * refused, a newcomer is not. */
START_TEST(conn_limit_last_threads_go_a_few_to_each_address) {
  int port, lst = listener(&port);
  srv_conn_limit *l = srv_conn_limit_new(14, 64);
  srv_conn_limit_set_threads(l, 16);
  int client[18], server[18], n = 0;
  for (; n < 14; n++) {
    connect_from(port, "127.0.0.1", &client[n]);
    ck_assert_int_eq(admit(l, lst, &server[n]), 1);
  }
  connect_from(port, "127.0.0.2", &client[n]);
  ck_assert_int_eq(admit(l, lst, &server[n]), 1); /* a second address: its first */
  n++;
  connect_from(port, "127.0.0.2", &client[n]);
  ck_assert_int_eq(admit(l, lst, &server[n]), 0); /* but not a second one now */
  close(server[n]);
  server[n] = -1;
  n++;
  connect_from(port, "127.0.0.3", &client[n]);
  ck_assert_int_eq(admit(l, lst, &server[n]), 1); /* a third address still gets in */
  n++;
  close(server[0]); /* one fewer held, but 15 are still past 14 */
  server[0] = -1;
  connect_from(port, "127.0.0.2", &client[n]);
  ck_assert_int_eq(admit(l, lst, &server[n]), 0);
  close(server[n]);
  server[n] = -1;
  n++;
  for (int i = 0; i < n; i++) {
    if (server[i] >= 0) close(server[i]);
    close(client[i]);
  }
  srv_conn_limit_free(l);
  close(lst);
}
END_TEST

/* A share set above all but an eighth (15 of 16 threads) is kept: the
 * fifteenth from one address is not refused at 14 held. */
START_TEST(conn_limit_a_larger_share_set_is_kept) {
  int port, lst = listener(&port);
  srv_conn_limit *l = srv_conn_limit_new(15, 64);
  srv_conn_limit_set_threads(l, 16);
  int client[16], server[16];
  for (int i = 0; i < 15; i++) {
    connect_from(port, "127.0.0.1", &client[i]);
    ck_assert_int_eq(admit(l, lst, &server[i]), 1);
  }
  connect_from(port, "127.0.0.2", &client[15]);
  ck_assert_int_eq(admit(l, lst, &server[15]), 1); /* another address: its first */
  for (int i = 0; i < 16; i++) close(server[i]), close(client[i]);
  srv_conn_limit_free(l);
  close(lst);
}
END_TEST

START_TEST(conn_limit_default_share_keeps_an_eighth_for_others) {
  ck_assert_int_eq(srv_conn_limit_default_share(64), 56);
  ck_assert_int_eq(srv_conn_limit_default_share(1000), 875);
  ck_assert_int_eq(srv_conn_limit_default_share(8), 4);
  ck_assert_int_eq(srv_conn_limit_default_share(2), 1);
  ck_assert_ptr_null(srv_conn_limit_new(0, 10));
}
END_TEST

Suite *make_conn_limit_suite(void) {
  Suite *s = suite_create("conn_limit");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, conn_limit_holds_one_address_to_its_share);
  tcase_add_test(tc, conn_limit_released_socket_no_longer_counts);
  tcase_add_test(tc, conn_limit_last_threads_go_a_few_to_each_address);
  tcase_add_test(tc, conn_limit_a_larger_share_set_is_kept);
  tcase_add_test(tc, conn_limit_default_share_keeps_an_eighth_for_others);
  suite_add_tcase(s, tc);
  return s;
}
