/* Tokens, join codes and hashes: 32 bytes from the kernel's random source
 * (getrandom) as hex, join codes from a 32-symbol alphabet, SHA-256 from
 * libcrypto, and a comparison whose time does not depend on the data. */
#include "token.h"

#include <errno.h>
#include <openssl/evp.h>
#include <string.h>
#include <sys/random.h>

static int random_bytes(unsigned char *buf, size_t n, lab_error *err) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(buf + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return lab_fail(err, LAB_E_INTERNAL, NULL, "the kernel's random source failed (getrandom)");
    got += (size_t)r;
  }
  return 0;
}

int srv_token_new(char out[SRV_TOKEN_HEX + 1], lab_error *err) {
  unsigned char raw[SRV_TOKEN_HEX / 2];
  if (random_bytes(raw, sizeof raw, err) != 0) return -1;
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < sizeof raw; i++) {
    out[2 * i] = hex[raw[i] >> 4];
    out[2 * i + 1] = hex[raw[i] & 15];
  }
  out[SRV_TOKEN_HEX] = 0;
  return 0;
}

int srv_join_code_new(char out[SRV_JOIN_CODE_LEN + 1], lab_error *err) {
  /* 32 symbols: a byte mod 32 is uniform, and 8 symbols give 40 bits. */
  static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  _Static_assert(sizeof alphabet - 1 == 32, "the join-code alphabet has 32 symbols");
  unsigned char raw[SRV_JOIN_CODE_LEN];
  if (random_bytes(raw, sizeof raw, err) != 0) return -1;
  for (int i = 0; i < SRV_JOIN_CODE_LEN; i++) out[i] = alphabet[raw[i] & 31];
  out[SRV_JOIN_CODE_LEN] = 0;
  return 0;
}

void srv_sha256(const void *data, size_t len, unsigned char out[SRV_HASH_BYTES]) {
  unsigned int n = SRV_HASH_BYTES;
  if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL)) memset(out, 0, SRV_HASH_BYTES);
}

int srv_equal_ct(const void *a, const void *b, size_t n) {
  const volatile unsigned char *x = a, *y = b;
  unsigned char diff = 0;
  for (size_t i = 0; i < n; i++) diff |= (unsigned char)(x[i] ^ y[i]);
  return diff == 0;
}

int srv_token_valid(const char *text) {
  size_t i = 0;
  for (; text[i]; i++)
    if (i == SRV_TOKEN_HEX || !((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return 0;
  return i == SRV_TOKEN_HEX;
}
