/* Sealing and opening the offline quiz key (see quiz_seal.h). Every hash
 * input starts with its own label, so the check and the cipher key are
 * unrelated even though both come from the same salt and answer set. */
#include "quiz_seal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define SALT_BYTES 16
#define MAX_OPTIONS 16 /* lab/quiz/quiz.c bounds an answer to 16 choices */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* SHA-256(label || salt || the ids sorted, each followed by '\n'). Option
 * ids are [a-z0-9_-], so the joined form is unambiguous. -1 when the set is
 * not an array of at most MAX_OPTIONS strings. */
static int hash_set(const char *label, const uint8_t salt[SALT_BYTES], const cJSON *ids, uint8_t out[32]) {
  const char *v[MAX_OPTIONS];
  int n = 0;
  const cJSON *c;
  if (!cJSON_IsArray(ids)) return -1;
  cJSON_ArrayForEach(c, ids) {
    if (!cJSON_IsString(c) || n == MAX_OPTIONS) return -1;
    v[n++] = c->valuestring;
  }
  qsort(v, (size_t)n, sizeof v[0], cmp_str);
  lab_sha256 s;
  lab_sha256_init(&s);
  lab_sha256_update(&s, label, strlen(label) + 1);
  lab_sha256_update(&s, salt, SALT_BYTES);
  for (int i = 0; i < n; i++) {
    lab_sha256_update(&s, v[i], strlen(v[i]));
    lab_sha256_update(&s, "\n", 1);
  }
  lab_sha256_final(&s, out);
  return 0;
}

/* data ^= SHA-256(key || counter) blocks, counter big-endian from 0. */
static void keystream_xor(const uint8_t key[32], uint8_t *data, size_t n) {
  uint8_t in[36], block[32];
  memcpy(in, key, 32);
  for (size_t at = 0, counter = 0; at < n; counter++) {
    for (int i = 0; i < 4; i++) in[32 + i] = (uint8_t)(counter >> (24 - 8 * i));
    lab_sha256_once(in, sizeof in, block);
    for (int i = 0; i < 32 && at < n; i++) data[at++] ^= block[i];
  }
}

static char *to_hex(const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  char *s = malloc(2 * n + 1);
  for (size_t i = 0; s && i < n; i++) {
    s[2 * i] = digits[p[i] >> 4];
    s[2 * i + 1] = digits[p[i] & 15];
  }
  if (s) s[2 * n] = '\0';
  return s;
}

static int hex_val(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Decodes a lower-case hex string into a new buffer of *n bytes (+1 NUL). */
static uint8_t *from_hex(const char *s, size_t *n) {
  size_t len = s ? strlen(s) : 1;
  if (len % 2) return NULL;
  uint8_t *p = malloc(len / 2 + 1);
  for (size_t i = 0; p && i < len / 2; i++) {
    int hi = hex_val(s[2 * i]), lo = hex_val(s[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(p);
      return NULL;
    }
    p[i] = (uint8_t)(hi << 4 | lo);
  }
  if (p) p[len / 2] = 0;
  *n = len / 2;
  return p;
}

static int add_hex(cJSON *obj, const char *name, const uint8_t *p, size_t n) {
  char *h = to_hex(p, n);
  int ok = h && cJSON_AddStringToObject(obj, name, h);
  free(h);
  return ok ? 0 : -1;
}

static cJSON *seal_entry(const char *lesson, const char *qid, const cJSON *plain) {
  const cJSON *right = cJSON_GetObjectItemCaseSensitive(plain, "correct");
  const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plain, "explanation"));
  uint8_t salt_full[32], check[32], key[32];
  if (!why) return NULL;
  /* A salt derived from the question keeps builds reproducible. */
  lab_sha256 s;
  lab_sha256_init(&s);
  lab_sha256_update(&s, "gpulab-quiz-salt", 17);
  lab_sha256_update(&s, lesson, strlen(lesson) + 1);
  lab_sha256_update(&s, qid, strlen(qid) + 1);
  lab_sha256_update(&s, why, strlen(why));
  lab_sha256_final(&s, salt_full);
  if (hash_set("gpulab-quiz-check", salt_full, right, check) || hash_set("gpulab-quiz-key", salt_full, right, key))
    return NULL;
  size_t n = strlen(why);
  uint8_t *box = malloc(n ? n : 1);
  cJSON *e = cJSON_CreateObject();
  if (box && e) {
    memcpy(box, why, n);
    keystream_xor(key, box, n);
  }
  if (!box || !e || add_hex(e, "salt", salt_full, SALT_BYTES) || add_hex(e, "check", check, sizeof check) ||
      add_hex(e, "box", box, n)) {
    cJSON_Delete(e);
    e = NULL;
  }
  free(box);
  return e;
}

cJSON *lab_quiz_seal(const cJSON *key) {
  const char *lesson = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(key, "id"));
  const cJSON *pass = cJSON_GetObjectItemCaseSensitive(key, "pass_pct");
  const cJSON *answers = cJSON_GetObjectItemCaseSensitive(key, "answers"), *a;
  if (!lesson || !cJSON_IsNumber(pass) || !cJSON_IsObject(answers)) return NULL;
  cJSON *out = cJSON_CreateObject();
  cJSON *sealed = cJSON_CreateObject();
  if (!out || !sealed || !cJSON_AddStringToObject(out, "id", lesson) ||
      !cJSON_AddNumberToObject(out, "pass_pct", pass->valuedouble))
    goto fail;
  cJSON_ArrayForEach(a, answers) {
    cJSON *e = seal_entry(lesson, a->string, a);
    if (!e) goto fail;
    cJSON_AddItemToObject(sealed, a->string, e);
  }
  cJSON_AddItemToObject(out, "answers", sealed);
  return out;
fail:
  cJSON_Delete(sealed);
  cJSON_Delete(out);
  return NULL;
}

static const char *str_field(const cJSON *entry, const char *name) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, name));
}

bool lab_quiz_sealed_entry(const cJSON *entry) {
  const char *salt = str_field(entry, "salt"), *check = str_field(entry, "check"), *box = str_field(entry, "box");
  return salt && check && box && strlen(salt) == 2 * SALT_BYTES && strlen(check) == 64 && strlen(box) % 2 == 0;
}

int lab_quiz_seal_open(const cJSON *entry, const cJSON *choices, char **explanation) {
  size_t n_salt = 0, n_check = 0, n_box = 0;
  uint8_t got[32], key[32];
  int rc = -1;
  if (explanation) *explanation = NULL;
  if (!lab_quiz_sealed_entry(entry)) return -1;
  uint8_t *salt = from_hex(str_field(entry, "salt"), &n_salt);
  uint8_t *check = from_hex(str_field(entry, "check"), &n_check);
  if (!salt || !check || hash_set("gpulab-quiz-check", salt, choices, got)) goto end;
  rc = memcmp(got, check, sizeof got) == 0;
  if (rc == 1 && explanation) {
    uint8_t *box = from_hex(str_field(entry, "box"), &n_box);
    if (!box || hash_set("gpulab-quiz-key", salt, choices, key)) {
      free(box);
      rc = -1;
      goto end;
    }
    keystream_xor(key, box, n_box);
    *explanation = (char *)box; /* from_hex left a NUL after the bytes */
  }
end:
  free(salt);
  free(check);
  return rc;
}

int lab_quiz_reveal(const cJSON *entry, const cJSON *question, cJSON **answer, char **explanation) {
  const cJSON *opts = cJSON_GetObjectItemCaseSensitive(question, "options"), *o;
  const char *ids[MAX_OPTIONS];
  int n = 0;
  bool multi = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(question, "multi"));
  *answer = NULL;
  *explanation = NULL;
  cJSON_ArrayForEach(o, opts) {
    const char *id = str_field(o, "id");
    if (!id || n == MAX_OPTIONS) return -1;
    ids[n++] = id;
  }
  for (uint32_t mask = 1; n > 0 && mask < (1u << n); mask++) {
    if (!multi && (mask & (mask - 1))) continue; /* one option at a time */
    cJSON *set = cJSON_CreateArray();
    for (int i = 0; set && i < n; i++)
      if (mask & (1u << i)) cJSON_AddItemToArray(set, cJSON_CreateString(ids[i]));
    int rc = set ? lab_quiz_seal_open(entry, set, explanation) : -1;
    if (rc == 1) {
      *answer = set;
      return 0;
    }
    cJSON_Delete(set);
    if (rc < 0) return -1;
  }
  return -1;
}
