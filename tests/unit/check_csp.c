/* A page's CSP allows its inline scripts by hash (server/http/csp.c): the
 * hashes are those a browser computes (the script's text between the tags,
 * SHA-256, base64); scripts with a src and data blocks are not hashed; a
 * page with a script left open gets the policy that allows none. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "csp.h"
#include "suites.h"
#include "ui_test.h"

static int hash(const char *html, char out[][SRV_CSP_HASH_CHARS], int max) {
  return srv_csp_hash_inline(html, strlen(html), out, max);
}

START_TEST(csp_hashes_each_inline_script_as_a_browser_does) {
  char h[4][SRV_CSP_HASH_CHARS];
  /* Reference values: base64(sha256(text)) from Python's hashlib. */
  const char *page = "<head><script src=\"a.js\" async></script><script>alert(1)</script>"
                     "<SCRIPT type=\"module\">\n  var a = 1;\n</SCRIPT></head>";
  ck_assert_int_eq(hash(page, h, 4), 2);
  ck_assert_str_eq(h[0], "bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI=");
  ck_assert_str_eq(h[1], "wYD6gJuOAPxlJHFvhr2Zk0r9F+gmt8nwaf1uW8o5LTY=");
  ck_assert_int_eq(hash("<p>no scripts</p>", h, 4), 0);
  ck_assert_int_eq(hash("<scripted>not a script tag</scripted>", h, 4), 0);
  ck_assert_int_eq(hash("<script type=\"application/json\">{}</script><script type=text/javascript>alert(1)</script>", h, 4), 1);
  ck_assert_str_eq(h[0], "bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI=");
}
END_TEST

START_TEST(csp_refuses_a_page_it_cannot_read_whole) {
  char h[1][SRV_CSP_HASH_CHARS];
  ck_assert_int_eq(hash("<script>never closed", h, 1), -1);
  ck_assert_int_eq(hash("<script", h, 1), -1);
  ck_assert_int_eq(hash("<script>a</script><script>b</script>", h, 1), -1); /* more than max */
}
END_TEST

START_TEST(csp_page_line_names_the_hashes_of_that_page) {
  char line[SRV_CSP_LINE_MAX];
  /* A data block (not JavaScript) does not run and is not hashed. */
  const char *page = "<!doctype html><head><script type=\"application/json\" id=\"d\">{\"a\":1}</script>"
                     "<script>alert(1)</script><script src=\"x.js\"></script></head>";
  ck_assert_int_eq(srv_csp_page_line(page, strlen(page), line, sizeof line), 1);
  ck_assert_ptr_nonnull(strstr(line, "Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval' "
                                     "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='; style-src 'self'"));
  ck_assert_ptr_nonnull(strstr(line, "frame-ancestors 'none'\r\n"));
  ck_assert_int_eq(test_ui_count(line, "'sha256-"), 1);
  /* Not one allowed where the page cannot be read whole, or the line would not fit. */
  const char *broken = "<script>never closed";
  ck_assert_int_eq(srv_csp_page_line(broken, strlen(broken), line, sizeof line), -1);
  ck_assert_ptr_null(strstr(line, "'sha256-"));
  ck_assert_ptr_nonnull(strstr(line, "script-src 'self' 'wasm-unsafe-eval'; style-src"));
  char small[200];
  ck_assert_int_eq(srv_csp_page_line(page, strlen(page), small, sizeof small), -1);
  ck_assert_ptr_null(strstr(small, "'sha256-"));
  /* The lines every other answer carries allow no inline script. */
  ck_assert_ptr_null(strstr(srv_security_header_lines(), "'sha256-"));
  ck_assert_ptr_nonnull(strstr(srv_security_header_lines(), "Cross-Origin-Embedder-Policy: require-corp\r\n"));
  ck_assert_ptr_null(strstr(srv_security_lines_but_csp(), "Content-Security-Policy"));
}
END_TEST

Suite *make_csp_suite(void) {
  Suite *s = suite_create("csp");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, csp_hashes_each_inline_script_as_a_browser_does);
  tcase_add_test(tc, csp_refuses_a_page_it_cannot_read_whole);
  tcase_add_test(tc, csp_page_line_names_the_hashes_of_that_page);
  suite_add_tcase(s, tc);
  return s;
}
