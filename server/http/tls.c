/* Prepares the one PEM file civetweb's TLS wants (see tls.h). The joined
 * file holds a private key, so it is created 0600 with mkstemp and lives
 * only between start-up and mg_start having read it. */
#include "tls.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

#define PEM_MAX (1 << 20)

static int read_pem(const char *path, const char *what, char **text, size_t *len, char *msg, size_t n) {
  if (srv_read_file(path, PEM_MAX, text, len) != 0) {
    snprintf(msg, n, "cannot read the TLS %s %.300s (missing, unreadable or over 1 MiB)", what, path);
    return -1;
  }
  if (!strstr(*text, "-----BEGIN ")) {
    free(*text);
    *text = NULL;
    snprintf(msg, n, "the TLS %s %.300s is not PEM (no -----BEGIN line)", what, path);
    return -1;
  }
  return 0;
}

static int write_all(int fd, const char *p, size_t len) {
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int srv_tls_prepare(srv_tls *t, const char *cert, const char *key, char *msg, size_t n) {
  memset(t, 0, sizeof *t);
  char *ctext = NULL, *ktext = NULL;
  size_t clen = 0, klen = 0;
  if (read_pem(cert, "certificate", &ctext, &clen, msg, n) != 0) return -1;
  if (!key || !key[0] || strcmp(key, cert) == 0) {
    int has_key = strstr(ctext, "PRIVATE KEY-----") != NULL;
    free(ctext);
    if (!has_key) {
      snprintf(msg, n, "the TLS certificate %.300s holds no private key: give the key with --tls-key", cert);
      return -1;
    }
    snprintf(t->pem_path, sizeof t->pem_path, "%s", cert);
    return 0;
  }
  if (read_pem(key, "key", &ktext, &klen, msg, n) != 0) {
    free(ctext);
    return -1;
  }
  const char *dir = getenv("TMPDIR");
  snprintf(t->pem_path, sizeof t->pem_path, "%.4000s/gpulab-tls-XXXXXX", dir && dir[0] ? dir : "/tmp");
  int fd = mkstemp(t->pem_path); /* mode 0600 */
  int rc = -1;
  if (fd < 0) {
    snprintf(msg, n, "cannot create a private file in %.300s to join the TLS key and certificate",
             dir && dir[0] ? dir : "/tmp");
  } else {
    t->temporary = 1;
    if (fchmod(fd, 0600) == 0 && write_all(fd, ktext, klen) == 0 && write_all(fd, "\n", 1) == 0 &&
        write_all(fd, ctext, clen) == 0)
      rc = 0;
    else
      snprintf(msg, n, "cannot write the joined TLS key and certificate (disk full?)");
    close(fd);
  }
  /* The key's bytes are not left in freed memory longer than needed. */
  memset(ktext, 0, klen);
  free(ktext);
  free(ctext);
  if (rc != 0) srv_tls_loaded(t);
  return rc;
}

void srv_tls_loaded(srv_tls *t) {
  if (t->temporary) unlink(t->pem_path);
  t->temporary = 0;
}

int srv_tls_library(char *msg, size_t n) {
  char exe[4096], shim[4200];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(shim, sizeof shim, "%s/../lib/libgpulab_ssl3.so", exe);
    /* Kept loaded for good: civetweb's dlopen("libssl.so") must find it by soname. */
    (void)dlopen(shim, RTLD_NOW | RTLD_GLOBAL);
  }
  void *ssl = dlopen("libssl.so", RTLD_LAZY);
  if (!ssl) {
    snprintf(msg, n, "TLS needs OpenSSL's libssl.so (Debian: apt install libssl-dev)");
    return -1;
  }
  int ok = dlsym(ssl, "SSL_get_peer_certificate") != NULL;
  dlclose(ssl);
  if (!ok)
    snprintf(msg, n, "this civetweb was built for OpenSSL 1.1 and would crash on the first HTTPS request with "
                     "OpenSSL 3; %s is missing: rebuild with 'make'", shim);
  return ok ? 0 : -1;
}
