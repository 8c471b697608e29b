/* Strict UTF-8 (lab/base/utf8.c): what a body, a key or a name may hold, and the
 * repair of messages that quote input cut at a byte count. */
#include <string.h>

#include "error.h"
#include "json.h"
#include "suites.h"
#include "utf8.h"

static int valid(const char *s) { return lab_utf8_valid(s, strlen(s), NULL); }

START_TEST(utf8_accepts_every_well_formed_length) {
  ck_assert(valid("plain ascii"));
  ck_assert(valid("caf\xc3\xa9"));                 /* U+00E9 */
  ck_assert(valid("\xe2\x82\xac"));                /* U+20AC */
  ck_assert(valid("\xf0\x9f\x98\x80"));            /* U+1F600 */
  ck_assert(valid("\xf4\x8f\xbf\xbf"));            /* U+10FFFF, the last */
  ck_assert(valid("\xed\x9f\xbf\xee\x80\x80"));    /* U+D7FF and U+E000 beside the surrogates */
  uint32_t cp = 0;
  ck_assert_uint_eq(lab_utf8_next("\xf0\x9f\x98\x80", 4, &cp), 4);
  ck_assert_uint_eq(cp, 0x1f600);
}
END_TEST

START_TEST(utf8_refuses_overlongs_surrogates_and_stray_bytes) {
  const char *bad[] = {
      "\xc0\xaf",         /* overlong '/' */
      "\xc1\xbf",         /* overlong */
      "\xe0\x80\xaf",     /* overlong 3-byte */
      "\xf0\x80\x80\xaf", /* overlong 4-byte */
      "\xed\xa0\x80",     /* U+D800, a surrogate */
      "\xed\xbf\xbf",     /* U+DFFF */
      "\xf4\x90\x80\x80", /* past U+10FFFF */
      "\xf5\x80\x80\x80", /* never a lead byte */
      "\x80",             /* a lone continuation byte */
      "\xc3",             /* cut short */
      "\xe2\x82",         /* cut short */
      "\xe2\x28\xa1",     /* a continuation missing */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) ck_assert_msg(!valid(bad[i]), "case %zu", i);
  size_t at = 99;
  ck_assert(!lab_utf8_valid("ok\xc0\xaf", 4, &at));
  ck_assert_uint_eq(at, 2);
}
END_TEST

START_TEST(utf8_bidi_controls_are_named) {
  ck_assert(lab_utf8_is_bidi_control(0x202e)); /* RIGHT-TO-LEFT OVERRIDE */
  ck_assert(lab_utf8_is_bidi_control(0x2066));
  ck_assert(lab_utf8_is_bidi_control(0x200f));
  ck_assert(lab_utf8_is_bidi_control(0x061c));
  ck_assert(!lab_utf8_is_bidi_control('a'));
  ck_assert(!lab_utf8_is_bidi_control(0x05d0)); /* Hebrew letters are fine: only the controls are refused */
}
END_TEST

START_TEST(utf8_repair_keeps_length_and_makes_text_valid) {
  char s[] = "ab\xe2\x82|\xc0\xaf\xf0\x9f\x98\x80";
  size_t n = strlen(s);
  lab_utf8_repair(s);
  ck_assert_uint_eq(strlen(s), n);
  ck_assert(valid(s));
  ck_assert_str_eq(s, "ab??|??\xf0\x9f\x98\x80");
}
END_TEST

START_TEST(utf8_error_messages_cut_mid_character_stay_valid) {
  /* 39 ASCII bytes and a 3-byte character: "%.40s" cuts it after one byte. */
  char quoted[64];
  memset(quoted, 'x', 39);
  memcpy(quoted + 39, "\xe2\x82\xac", 4);
  lab_error err;
  lab_fail(&err, LAB_E_INVALID_PARAM, quoted, "unknown parameter '%.40s'; see the list", quoted);
  ck_assert(valid(err.message));
  ck_assert(valid(err.param));
}
END_TEST

START_TEST(utf8_fit_never_cuts_a_character) {
  const char *s = "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"; /* a b é € 😀: 1,1,2,3,4 bytes */
  size_t n = strlen(s);
  const size_t want[] = {0, 1, 2, 2, 4, 4, 4, 7, 7, 7, 7, 11, 11};
  for (size_t cap = 0; cap <= n + 1; cap++) ck_assert_uint_eq(lab_utf8_fit(s, n, cap), want[cap]);
  /* stray continuation bytes: cut where asked (lab_utf8_repair marks them) */
  ck_assert_uint_eq(lab_utf8_fit("a\x80\x80\x80\x80\x80", 6, 4), 4);
}
END_TEST

START_TEST(utf8_json_parse_refuses_invalid_bytes_and_says_where) {
  size_t where = 0;
  ck_assert_ptr_null(lab_json_parse("{\"k\xc0\xaf\":1}", 9, LAB_JSON_MAX_DEPTH, &where));
  ck_assert_uint_eq(where, 3);
  const char *ok = "{\"caf\xc3\xa9\":\"\xf0\x9f\x98\x80\"}";
  cJSON *j = lab_json_parse(ok, strlen(ok), LAB_JSON_MAX_DEPTH, NULL);
  ck_assert_ptr_nonnull(j);
  cJSON_Delete(j);
}
END_TEST

Suite *make_utf8_suite(void) {
  Suite *s = suite_create("utf8");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, utf8_accepts_every_well_formed_length);
  tcase_add_test(tc, utf8_refuses_overlongs_surrogates_and_stray_bytes);
  tcase_add_test(tc, utf8_bidi_controls_are_named);
  tcase_add_test(tc, utf8_repair_keeps_length_and_makes_text_valid);
  tcase_add_test(tc, utf8_error_messages_cut_mid_character_stay_valid);
  tcase_add_test(tc, utf8_json_parse_refuses_invalid_bytes_and_says_where);
  tcase_add_test(tc, utf8_fit_never_cuts_a_character);
  suite_add_tcase(s, tc);
  return s;
}
