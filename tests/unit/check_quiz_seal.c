/* The sealed offline quiz key (lab/quiz/quiz_seal.c, lab/base/sha256.c): SHA-256
 * against the FIPS 180-4 vectors; a sealed key holds nothing readable, opens
 * for the right answer only, and reveals when the learner asks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "quiz.h"
#include "quiz_seal.h"
#include "sha256.h"
#include "suites.h"

static void hex(const uint8_t *p, char out[65]) {
  for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", p[i]);
}

START_TEST(sha256_matches_the_standard_vectors) {
  uint8_t d[32];
  char h[65];
  lab_sha256_once("abc", 3, d);
  hex(d, h);
  ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  lab_sha256_once("", 0, d);
  hex(d, h);
  ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  lab_sha256_once(two, strlen(two), d);
  hex(d, h);
  ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* a million 'a', fed in uneven pieces */
  lab_sha256 s;
  char a[1001];
  memset(a, 'a', sizeof a);
  lab_sha256_init(&s);
  for (int i = 0; i < 1000; i++) lab_sha256_update(&s, a, i % 2 ? 999 : 1001);
  lab_sha256_final(&s, d);
  hex(d, h);
  ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

static const char quiz_src[] =
    "{\"pass_pct\":75,\"questions\":["
    "{\"id\":\"q1\",\"prompt\":\"P\",\"multi\":false,\"options\":[{\"id\":\"a\",\"text\":\"A\"},"
    "{\"id\":\"b\",\"text\":\"B\"},{\"id\":\"c\",\"text\":\"C\"}],\"correct\":[\"b\"],"
    "\"explanation\":\"Because the stream is asynchronous.\"},"
    "{\"id\":\"m\",\"prompt\":\"M\",\"multi\":true,\"options\":[{\"id\":\"a\",\"text\":\"A\"},"
    "{\"id\":\"b\",\"text\":\"B\"},{\"id\":\"c\",\"text\":\"C\"},{\"id\":\"d\",\"text\":\"D\"}],"
    "\"correct\":[\"c\",\"a\"],\"explanation\":\"Pinned memory and one batched copy.\"}]}";

static cJSON *sealed_key(cJSON **pub) {
  cJSON *src = cJSON_Parse(quiz_src);
  ck_assert_int_eq(lab_quiz_check(src, NULL, &(lab_error){0}), 0);
  cJSON *key = lab_quiz_key(src, "l1");
  cJSON *sealed = lab_quiz_seal(key);
  ck_assert_ptr_nonnull(sealed);
  if (pub) *pub = lab_quiz_public(src);
  cJSON_Delete(key);
  cJSON_Delete(src);
  return sealed;
}

START_TEST(sealed_key_holds_nothing_readable) {
  cJSON *sealed = sealed_key(NULL);
  char *text = cJSON_PrintUnformatted(sealed);
  ck_assert_ptr_null(strstr(text, "asynchronous"));
  ck_assert_ptr_null(strstr(text, "Pinned"));
  ck_assert_ptr_null(strstr(text, "correct"));
  ck_assert_ptr_null(strstr(text, "explanation"));
  /* deterministic: the same key seals to the same text (reproducible builds) */
  cJSON *again = sealed_key(NULL);
  char *text2 = cJSON_PrintUnformatted(again);
  ck_assert_str_eq(text, text2);
  free(text);
  free(text2);
  cJSON_Delete(again);
  cJSON_Delete(sealed);
}
END_TEST

START_TEST(sealed_key_scores_and_opens_only_the_right_answer) {
  cJSON *sealed = sealed_key(NULL), *result = NULL;
  cJSON *answers = cJSON_Parse("{\"q1\":[\"b\"],\"m\":[\"a\",\"d\"]}");
  lab_error err = {0};
  ck_assert_int_eq(lab_quiz_score(sealed, answers, &result, &err), 0);
  ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(result, "score")), 1);
  const cJSON *q1 = cJSON_GetArrayItem(cJSON_GetObjectItem(result, "questions"), 0);
  const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(result, "questions"), 1);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(q1, "correct")));
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(q1, "explanation")), "Because the stream is asynchronous.");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(m, "correct")));
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "sealed")));
  ck_assert_ptr_null(cJSON_GetObjectItem(m, "explanation"));
  ck_assert_ptr_null(cJSON_GetObjectItem(m, "answer"));
  cJSON_Delete(result);
  cJSON_Delete(answers);
  /* the order of the chosen ids does not matter */
  answers = cJSON_Parse("{\"q1\":[\"a\"],\"m\":[\"c\",\"a\"]}");
  ck_assert_int_eq(lab_quiz_score(sealed, answers, &result, &err), 0);
  m = cJSON_GetArrayItem(cJSON_GetObjectItem(result, "questions"), 1);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "correct")));
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(m, "explanation")), "Pinned memory and one batched copy.");
  cJSON_Delete(result);
  cJSON_Delete(answers);
  cJSON_Delete(sealed);
}
END_TEST

START_TEST(sealed_key_reveals_when_the_learner_asks) {
  cJSON *pub = NULL, *sealed = sealed_key(&pub), *answer = NULL;
  char *why = NULL;
  const cJSON *qs = cJSON_GetObjectItem(pub, "questions");
  const cJSON *keys = cJSON_GetObjectItem(sealed, "answers");
  ck_assert_int_eq(lab_quiz_reveal(cJSON_GetObjectItem(keys, "m"), cJSON_GetArrayItem(qs, 1), &answer, &why), 0);
  ck_assert_str_eq(why, "Pinned memory and one batched copy.");
  ck_assert_int_eq(cJSON_GetArraySize(answer), 2);
  ck_assert_str_eq(cJSON_GetArrayItem(answer, 0)->valuestring, "a");
  ck_assert_str_eq(cJSON_GetArrayItem(answer, 1)->valuestring, "c");
  free(why);
  cJSON_Delete(answer);
  ck_assert_int_eq(lab_quiz_reveal(cJSON_GetObjectItem(keys, "q1"), cJSON_GetArrayItem(qs, 0), &answer, &why), 0);
  ck_assert_str_eq(why, "Because the stream is asynchronous.");
  free(why);
  cJSON_Delete(answer);
  /* a question whose options cannot open it (here: q1's entry, m's options minus b) */
  cJSON *fake = cJSON_Parse("{\"multi\":true,\"options\":[{\"id\":\"a\"},{\"id\":\"c\"}]}");
  ck_assert_int_eq(lab_quiz_reveal(cJSON_GetObjectItem(keys, "q1"), fake, &answer, &why), -1);
  ck_assert_ptr_null(answer);
  cJSON_Delete(fake);
  cJSON_Delete(sealed);
  cJSON_Delete(pub);
}
END_TEST

Suite *make_quiz_seal_suite(void) {
  Suite *s = suite_create("quiz_seal");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, sha256_matches_the_standard_vectors);
  tcase_add_test(tc, sealed_key_holds_nothing_readable);
  tcase_add_test(tc, sealed_key_scores_and_opens_only_the_right_answer);
  tcase_add_test(tc, sealed_key_reveals_when_the_learner_asks);
  suite_add_tcase(s, tc);
  return s;
}
