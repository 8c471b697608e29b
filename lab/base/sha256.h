/* SHA-256 (FIPS 180-4) in portable C, so the lesson compiler (native) and
 * the browser client (wasm, no OpenSSL there) seal and open the offline
 * quiz key with the same code. Not constant-time: it hashes public data. */
#ifndef LAB_SHA256_H
#define LAB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define LAB_SHA256_BYTES 32

typedef struct {
  uint32_t h[8];
  uint64_t length_bytes;
  uint8_t block[64];
  size_t used; /* bytes of block filled */
} lab_sha256;

void lab_sha256_init(lab_sha256 *s);
void lab_sha256_update(lab_sha256 *s, const void *data, size_t n);
void lab_sha256_final(lab_sha256 *s, uint8_t out[LAB_SHA256_BYTES]);
/* One call: out = SHA-256(data[0..n)). */
void lab_sha256_once(const void *data, size_t n, uint8_t out[LAB_SHA256_BYTES]);

#endif
