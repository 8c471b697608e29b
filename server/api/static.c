/* Static files from the web root only: the client, its wasm, lessons. No
 * directory listing, nothing outside the root, the right MIME type for
 * .wasm (streaming compilation needs application/wasm), an ETag so a
 * reload costs a 304, and a precompressed twin (br, gzip) when the client
 * accepts one. */
#include <civetweb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "csp.h"
#include "files.h"
#include "http.h"
#include "precompressed.h"

#define MAX_STATIC_BYTES (32 * 1024 * 1024)

static const struct {
  const char *ext, *type;
} mime[] = {
    {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
    {".wasm", "application/wasm"}, {".json", "application/json"}, {".svg", "image/svg+xml"},
    {".png", "image/png"}, {".ico", "image/x-icon"}, {".txt", "text/plain; charset=utf-8"},
    {".md", "text/markdown; charset=utf-8"}, {".webmanifest", "application/manifest+json"},
    {".py", "text/x-python; charset=utf-8"}, {".ipynb", "application/x-ipynb+json"},
};

static const char *mime_of(const char *path) {
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof mime / sizeof mime[0]; i++)
    if (strcmp(dot, mime[i].ext) == 0) return mime[i].type;
  return "application/octet-stream";
}

static int not_found(struct mg_connection *conn) {
  static const char body[] = "<!doctype html><title>Not found</title><p>Not found. <a href=\"/\">Back to gpulab</a></p>";
  char length[16];
  snprintf(length, sizeof length, "%zu", sizeof body - 1);
  mg_response_header_start(conn, 404);
  mg_response_header_add(conn, "Content-Type", "text/html; charset=utf-8", -1);
  mg_response_header_add(conn, "Content-Length", length, -1);
  srv_add_common_headers(conn);
  mg_response_header_send(conn);
  if (strcmp(mg_get_request_info(conn)->request_method, "HEAD") != 0) mg_write(conn, body, sizeof body - 1);
  return 404;
}

/* A page's CSP line, kept per version of the file (device, inode, size,
 * mtime): a page is read and hashed once per version, not on every load
 * (0.6 ms for the 100 KB index.html, whose inline scripts are most of it).
 * A few pages at most: index.html and instructor.html. */
#define PAGE_CSP_SLOTS 4
static struct {
  bool used;
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  char line[SRV_CSP_LINE_MAX];
} page_csps[PAGE_CSP_SLOTS];
static unsigned page_csp_next; /* the slot a new version takes, round robin */
static pthread_mutex_t page_csp_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_version(int i, const struct stat *st) {
  return page_csps[i].used && page_csps[i].dev == st->st_dev && page_csps[i].ino == st->st_ino &&
         page_csps[i].size == st->st_size && page_csps[i].mtime.tv_sec == st->st_mtim.tv_sec &&
         page_csps[i].mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static bool page_csp(const char *path, const struct stat *st, char *line, size_t n) {
  bool found = false;
  pthread_mutex_lock(&page_csp_lock);
  for (int i = 0; i < PAGE_CSP_SLOTS && !found; i++)
    if (same_version(i, st)) {
      snprintf(line, n, "%s", page_csps[i].line);
      found = true;
    }
  pthread_mutex_unlock(&page_csp_lock);
  if (found) return true;
  char *html = NULL;
  size_t len = 0;
  if (srv_read_file(path, MAX_STATIC_BYTES, &html, &len) != 0) return false;
  srv_csp_page_line(html, len, line, n);
  free(html);
  pthread_mutex_lock(&page_csp_lock);
  unsigned slot = page_csp_next++ % PAGE_CSP_SLOTS;
  page_csps[slot].used = true;
  page_csps[slot].dev = st->st_dev;
  page_csps[slot].ino = st->st_ino;
  page_csps[slot].size = st->st_size;
  page_csps[slot].mtime = st->st_mtim;
  snprintf(page_csps[slot].line, sizeof page_csps[slot].line, "%s", line);
  pthread_mutex_unlock(&page_csp_lock);
  return true;
}

/* Class mode: not even the sealed offline quiz key leaves the server; a
 * class counts only attempts its server scored. Its precompressed twins
 * (FILE.gz, FILE.br: tools/compress.sh) are the same key, and hidden too,
 * asked for by name or not. */
static bool class_hides(const srv_app *app, const char *uri) {
  static const char suffix[] = ".offline.json";
  static const char *const twins[] = {"", ".gz", ".br"};
  size_t n = strlen(uri);
  for (size_t i = 0; app->cls && i < sizeof twins / sizeof twins[0]; i++) {
    size_t tail = sizeof suffix - 1 + strlen(twins[i]);
    if (n >= tail && strncmp(uri + n - tail, suffix, sizeof suffix - 1) == 0 &&
        strcmp(uri + n - strlen(twins[i]), twins[i]) == 0)
      return true;
  }
  return false;
}

int srv_static(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  const char *uri = mg_get_request_info(conn)->local_uri;
  char path[4096];
  struct stat st;
  if (strcmp(uri, "/") == 0) uri = "/index.html";
  if (class_hides(app, uri)) return not_found(conn);
  if (srv_resolve_under(app->web_root, uri, path, sizeof path) != 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return not_found(conn);
  /* A page's CSP allows its own inline scripts by their hashes, taken from
   * the file's version as it is now (before path names a compressed twin),
   * so a page rebuilt while the server runs still runs; a 304 carries it
   * too, as it replaces the cached answer's headers. */
  const char *type = mime_of(path), *vary = srv_compressible(path) ? "Accept-Encoding" : NULL;
  char csp[SRV_CSP_LINE_MAX];
  bool page = strncmp(type, "text/html", 9) == 0 && page_csp(path, &st, csp, sizeof csp);
  /* A precompressed twin when the client takes it (tools/compress.sh):
   * path then names the twin; the type is the original's. */
  const char *coding = srv_precompressed(path, sizeof path, mg_get_header(conn, "Accept-Encoding"));
  char etag[80];
  snprintf(etag, sizeof etag, "\"%llx-%llx%s%s\"", (unsigned long long)st.st_mtime, (unsigned long long)st.st_size,
           coding ? "-" : "", coding ? coding : "");
  const char *inm = mg_get_header(conn, "If-None-Match");
  if (inm && strcmp(inm, etag) == 0) {
    mg_response_header_start(conn, 304);
    mg_response_header_add(conn, "ETag", etag, -1);
    if (vary) mg_response_header_add(conn, "Vary", vary, -1);
    srv_add_page_headers(conn, page ? csp : NULL);
    mg_response_header_send(conn);
    return 304;
  }
  char *body = NULL;
  size_t len = 0;
  if (srv_read_file(path, MAX_STATIC_BYTES, &body, &len) != 0) return not_found(conn);
  char length[32];
  snprintf(length, sizeof length, "%zu", len);
  mg_response_header_start(conn, 200);
  mg_response_header_add(conn, "Content-Type", type, -1);
  mg_response_header_add(conn, "Content-Length", length, -1);
  mg_response_header_add(conn, "ETag", etag, -1);
  if (coding) mg_response_header_add(conn, "Content-Encoding", coding, -1);
  if (vary) mg_response_header_add(conn, "Vary", vary, -1);
  mg_response_header_add(conn, "Cache-Control", "no-cache", -1);
  srv_add_page_headers(conn, page ? csp : NULL);
  mg_response_header_send(conn);
  if (strcmp(mg_get_request_info(conn)->request_method, "HEAD") != 0) mg_write(conn, body, len);
  free(body);
  return 200;
}
