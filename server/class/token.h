/* Secrets of class mode: random session and instructor tokens, join codes,
 * SHA-256 (only hashes of tokens are ever stored) and constant-time
 * comparison. */
#ifndef SRV_TOKEN_H
#define SRV_TOKEN_H

#include <stddef.h>

#include "config.h"
#include "error.h"
#include "store.h"

#define SRV_TOKEN_HEX 64 /* 32 random bytes as lower-case hex */

/* Fills out with SRV_TOKEN_HEX hex digits from the kernel's random source. */
int srv_token_new(char out[SRV_TOKEN_HEX + 1], lab_error *err);
/* A fresh join code: 8 characters of the join-code alphabet. */
int srv_join_code_new(char out[SRV_JOIN_CODE_LEN + 1], lab_error *err);
/* SHA-256 of len bytes. */
void srv_sha256(const void *data, size_t len, unsigned char out[SRV_HASH_BYTES]);
/* 1 when a and b are equal; the time taken does not depend on where they differ. */
int srv_equal_ct(const void *a, const void *b, size_t n);
/* 1 when text is exactly SRV_TOKEN_HEX lower-case hex digits. */
int srv_token_valid(const char *text);

#endif
