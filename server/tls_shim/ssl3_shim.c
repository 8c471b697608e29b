/* libgpulab_ssl3.so: lets Debian 12's civetweb 1.15 speak TLS with
 * OpenSSL 3. That civetweb dlopens "libssl.so" and looks its functions up
 * by their OpenSSL 1.1 names; OpenSSL 3 turned SSL_get_peer_certificate
 * into a macro, so the lookup yields NULL and the first HTTPS request
 * crashes the server (in ssl_get_client_cert_info). This library carries
 * the soname "libssl.so" and needs libssl.so.3: once the server has loaded
 * it, civetweb's dlopen("libssl.so") gets it, and every lookup finds either
 * the one function below or libssl.so.3's own. Built as a shared library
 * beside the binary (lib/); see server/http/tls.c. */
#include <openssl/ssl.h>

/* ssl.h maps the old name onto the new one; define the old name itself. */
#undef SSL_get_peer_certificate
X509 *SSL_get_peer_certificate(const SSL *s);

X509 *SSL_get_peer_certificate(const SSL *s) { return SSL_get1_peer_certificate(s); }
