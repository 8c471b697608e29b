/* A profiler trace read in chunks from any source (a file for the CLI, a
 * request body for POST /api/doctor) into lab/doctor/doctor.h: gzip (and zlib) are
 * recognised by their first bytes and inflated as they come; a stream that
 * inflates more than LAB_DOCTOR_GZIP_MAX_RATIO times its size past 64 MiB
 * is refused as a gzip bomb, and a server reads at most a set size of
 * JSON per trace (the rules and their words: lab/doctor/doctor_gzip.c). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "doctor_stream.h"

#define CHUNK (256 * 1024)

typedef struct reader {
  srv_doctor_read_fn read;
  void *src;
  lab_doctor *doc;
  unsigned char *in, *out;
  double in_total, out_total, max_out; /* max_out: JSON bytes read at most (0: no bound) */
} reader;

/* The next n bytes of JSON to the doctor, within the reader's bound. */
static int feed(reader *r, const unsigned char *buf, size_t n, lab_error *err) {
  if (r->max_out > 0 && lab_doctor_size_check(r->out_total + (double)n, r->max_out, err)) return -1;
  r->out_total += (double)n;
  return lab_doctor_feed(r->doc, (const char *)buf, n, err);
}

static int feed_gzip(reader *r, size_t first, lab_error *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  size_t have = first;
  int rc = Z_OK, ret = 0;
  for (;;) {
    if (!have) {
      have = r->read(r->src, r->in, CHUNK);
      if (!have) break;
    }
    r->in_total += (double)have;
    z.next_in = r->in;
    z.avail_in = (uInt)have;
    have = 0;
    while (z.avail_in) {
      z.next_out = r->out;
      z.avail_out = CHUNK;
      rc = inflate(&z, Z_NO_FLUSH);
      if (rc == Z_STREAM_END && z.avail_in) {
        inflateReset(&z); /* concatenated gzip members (gzip's own rule) */
        rc = Z_OK;
      }
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        ret = lab_doctor_gzip_fail(r->in_total, 0, z.msg, err);
        goto done;
      }
      size_t got = CHUNK - z.avail_out;
      if (lab_doctor_gzip_check(r->in_total, r->out_total + (double)got, err)) {
        ret = -1;
        goto done;
      }
      if (got && feed(r, r->out, got, err)) {
        ret = -1;
        goto done;
      }
      if (rc == Z_BUF_ERROR && !got) break;
    }
  }
  if (rc != Z_STREAM_END)
    ret = lab_doctor_gzip_fail(r->in_total, 1, NULL, err);
done:
  inflateEnd(&z);
  return ret;
}

cJSON *srv_doctor_stream(srv_doctor_read_fn read, void *src, lab_error *err) {
  return srv_doctor_stream_capped(read, src, 0, err);
}

cJSON *srv_doctor_stream_capped(srv_doctor_read_fn read, void *src, double max_bytes, lab_error *err) {
  reader r = {read, src, lab_doctor_new(), malloc(CHUNK), malloc(CHUNK), 0, 0, max_bytes};
  cJSON *env = NULL;
  if (!r.doc || !r.in || !r.out) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto out;
  }
  size_t n = read(src, r.in, CHUNK);
  if (n >= 2 && r.in[0] == 0x1f && r.in[1] == 0x8b) {
    if (feed_gzip(&r, n, err)) goto out;
  } else {
    while (n) {
      if (feed(&r, r.in, n, err)) goto out;
      n = read(src, r.in, CHUNK);
    }
  }
  env = lab_doctor_finish(r.doc, err);
out:
  lab_doctor_free(r.doc);
  free(r.in);
  free(r.out);
  return env;
}

