/* Session tokens, hashes, cookies and join codes: tokens are random hex,
 * the SHA-256 is the standard one, cookies are found only under their exact
 * name and shape, and the Set-Cookie line carries HttpOnly and SameSite. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "session.h"
#include "suites.h"

START_TEST(session_tokens_are_64_hex_and_differ) {
  char a[SRV_TOKEN_HEX + 1], b[SRV_TOKEN_HEX + 1];
  lab_error err = {0};
  ck_assert_int_eq(srv_token_new(a, &err), 0);
  ck_assert_int_eq(srv_token_new(b, &err), 0);
  ck_assert_int_eq(strlen(a), 64);
  ck_assert(srv_token_valid(a));
  ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(session_sha256_matches_the_standard_vector) {
  unsigned char h[SRV_HASH_BYTES];
  srv_sha256("abc", 3, h);
  static const unsigned char want[] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                                       0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                                       0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  ck_assert_mem_eq(h, want, 32);
  ck_assert(srv_equal_ct(h, want, 32));
  unsigned char other[32];
  memcpy(other, want, 32);
  other[31] ^= 1;
  ck_assert(!srv_equal_ct(h, other, 32));
}
END_TEST

START_TEST(session_token_valid_rejects_wrong_shapes) {
  ck_assert(!srv_token_valid(""));
  ck_assert(!srv_token_valid("abc"));
  char t[80];
  memset(t, 'a', 64);
  t[64] = 0;
  ck_assert(srv_token_valid(t));
  t[10] = 'A'; /* upper case is not what the server issues */
  ck_assert(!srv_token_valid(t));
  t[10] = 'a';
  t[64] = 'a';
  t[65] = 0;
  ck_assert(!srv_token_valid(t));
}
END_TEST

START_TEST(session_cookie_is_found_by_exact_name) {
  char tok[SRV_TOKEN_HEX + 1], out[SRV_TOKEN_HEX + 1], header[300];
  memset(tok, 'b', 64);
  tok[64] = 0;
  snprintf(header, sizeof header, "theme=dark; gpulab_session=%s; x=1", tok);
  ck_assert_int_eq(srv_cookie_token(header, out), 0);
  ck_assert_str_eq(out, tok);
  snprintf(header, sizeof header, "gpulab_session=%s", tok);
  ck_assert_int_eq(srv_cookie_token(header, out), 0);
  snprintf(header, sizeof header, "xgpulab_session=%s", tok);
  ck_assert_int_eq(srv_cookie_token(header, out), -1);
  snprintf(header, sizeof header, "gpulab_session=%sff", tok);
  ck_assert_int_eq(srv_cookie_token(header, out), -1);
  ck_assert_int_eq(srv_cookie_token("gpulab_session=", out), -1);
  ck_assert_int_eq(srv_cookie_token("", out), -1);
  /* A malformed first copy does not hide a good second one. */
  snprintf(header, sizeof header, "gpulab_session=zz; gpulab_session=%s", tok);
  ck_assert_int_eq(srv_cookie_token(header, out), 0);
}
END_TEST

START_TEST(session_set_cookie_is_httponly_samesite_strict) {
  char line[200];
  srv_cookie_set_line(line, sizeof line, "0123", 0);
  ck_assert_str_eq(line, "Set-Cookie: gpulab_session=0123; HttpOnly; SameSite=Strict; Path=/\r\n");
  srv_cookie_set_line(line, sizeof line, "0123", 1);
  ck_assert_ptr_nonnull(strstr(line, "; Secure\r\n"));
  srv_cookie_clear_line(line, sizeof line, 0);
  ck_assert_ptr_nonnull(strstr(line, "gpulab_session=;"));
  ck_assert_ptr_nonnull(strstr(line, "Max-Age=0"));
}
END_TEST

START_TEST(session_join_codes_use_the_unambiguous_alphabet) {
  lab_error err = {0};
  for (int i = 0; i < 200; i++) {
    char code[SRV_JOIN_CODE_LEN + 1], back[SRV_JOIN_CODE_LEN + 1];
    ck_assert_int_eq(srv_join_code_new(code, &err), 0);
    ck_assert_int_eq(strlen(code), 8);
    ck_assert_ptr_null(strpbrk(code, "01OI"));
    ck_assert_int_eq(srv_join_code_normalise(code, back), 0);
    ck_assert_str_eq(back, code);
  }
}
END_TEST

START_TEST(session_join_code_normalise_accepts_what_people_type) {
  char out[SRV_JOIN_CODE_LEN + 1];
  ck_assert_int_eq(srv_join_code_normalise("abcd-efgh", out), 0);
  ck_assert_str_eq(out, "ABCDEFGH");
  ck_assert_int_eq(srv_join_code_normalise("ABCD EFGH", out), 0);
  ck_assert_int_eq(srv_join_code_normalise("ABCDEFGH", out), 0);
  ck_assert_int_eq(srv_join_code_normalise("ABCD-EFG", out), -1);
  ck_assert_int_eq(srv_join_code_normalise("ABCD-EFGHJ", out), -1);
  ck_assert_int_eq(srv_join_code_normalise("ABCO-EFGH", out), -1);
  ck_assert_int_eq(srv_join_code_normalise("AB-CDEFGH", out), -1);
  ck_assert_int_eq(srv_join_code_normalise("", out), -1);
}
END_TEST

Suite *make_session_suite(void) {
  Suite *s = suite_create("session");
  TCase *t = tcase_create("tokens");
  tcase_add_test(t, session_tokens_are_64_hex_and_differ);
  tcase_add_test(t, session_sha256_matches_the_standard_vector);
  tcase_add_test(t, session_token_valid_rejects_wrong_shapes);
  tcase_add_test(t, session_cookie_is_found_by_exact_name);
  tcase_add_test(t, session_set_cookie_is_httponly_samesite_strict);
  tcase_add_test(t, session_join_codes_use_the_unambiguous_alphabet);
  tcase_add_test(t, session_join_code_normalise_accepts_what_people_type);
  suite_add_tcase(s, t);
  return s;
}
