/* The page's CSP allows its inline scripts by hash (server/http/csp.c):
 * the hashes are those a browser computes (the script's text between the
 * tags, SHA-256, base64), scripts with a src are not hashed, and a page
 * with a script left open is refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csp.h"
#include "suites.h"

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
}
END_TEST

START_TEST(csp_refuses_a_page_it_cannot_read_whole) {
  char h[1][SRV_CSP_HASH_CHARS];
  ck_assert_int_eq(hash("<script>never closed", h, 1), -1);
  ck_assert_int_eq(hash("<script", h, 1), -1);
  ck_assert_int_eq(hash("<script>a</script><script>b</script>", h, 1), -1); /* more than max */
}
END_TEST

START_TEST(csp_header_names_the_hashes_of_the_page) {
  char dir[] = "/tmp/gpulab-csp-XXXXXX", path[64], why[200];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/index.html", dir);
  ck_assert_int_eq(srv_csp_init(path, why, sizeof why), -1); /* no page: the headers stay as they were */
  ck_assert_ptr_nonnull(strstr(why, path));
  ck_assert_ptr_null(strstr(srv_security_header_lines(), "'sha256-"));
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("<!doctype html><head><script>alert(1)</script></head>", f);
  fclose(f);
  ck_assert_int_eq(srv_csp_init(path, why, sizeof why), 0);
  ck_assert_int_eq(srv_csp_inline_count(), 1);
  const char *lines = srv_security_header_lines();
  ck_assert_ptr_nonnull(strstr(lines, "script-src 'self' 'wasm-unsafe-eval' "
                                      "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='; style-src 'self'"));
  ck_assert_ptr_nonnull(strstr(lines, "Cross-Origin-Embedder-Policy: require-corp\r\n"));
  ck_assert_ptr_nonnull(strstr(lines, "frame-ancestors 'none'\r\n"));
  unlink(path);
  rmdir(dir);
}
END_TEST

Suite *make_csp_suite(void) {
  Suite *s = suite_create("csp");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, csp_hashes_each_inline_script_as_a_browser_does);
  tcase_add_test(tc, csp_refuses_a_page_it_cannot_read_whole);
  tcase_add_test(tc, csp_header_names_the_hashes_of_the_page);
  suite_add_tcase(s, tc);
  return s;
}
