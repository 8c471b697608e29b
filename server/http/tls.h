/* TLS for `gpulab serve`: civetweb (1.15) reads the certificate and the
 * private key from one PEM file (`ssl_certificate`). A key given apart is
 * joined with the certificate into a private (0600) temporary file that is
 * removed as soon as the server has loaded it. */
#ifndef SRV_TLS_H
#define SRV_TLS_H

#include <stddef.h>

/* The TLS 1.2 suites offered (TLS 1.3's are all AEAD and forward secret):
 * ECDHE key exchange and AEAD ciphers only, so no RSA key transport and no
 * CBC with SHA-1 (the Mozilla "intermediate" list without finite-field DH). */
#define SRV_TLS_CIPHERS                                                                              \
  "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"        \
  "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

typedef struct srv_tls {
  char pem_path[4200]; /* what to pass as ssl_certificate */
  int temporary;       /* pem_path is ours to remove */
} srv_tls;

/* cert: PEM certificate (may hold the key too); key: PEM key or "" / NULL.
 * Returns 0, or -1 with msg saying which file is missing or not PEM. */
int srv_tls_prepare(srv_tls *t, const char *cert, const char *key, char *msg, size_t n);
/* Makes sure civetweb's TLS will not crash: Debian 12's civetweb 1.15
 * looks up SSL_get_peer_certificate, gone from OpenSSL 3. Loads
 * lib/libgpulab_ssl3.so beside the binary (server/tls_shim/) when it is
 * there; then checks that "libssl.so" answers every name civetweb needs.
 * Call before mg_init_library(MG_FEATURES_TLS). 0, or -1 with msg. */
int srv_tls_library(char *msg, size_t n);
/* Removes the joined file, if one was made (call right after mg_start). */
void srv_tls_loaded(srv_tls *t);

#endif
