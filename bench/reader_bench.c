/* `make bench`: what the readers cost per MiB of input, each beside a peer
 * measured in the same run on the same bytes. The explainer: per
 * recogniser, its own messages (a real one of the corpus, pasted again and
 * again to 256 KiB) and the paste built to be its worst case (its anchor
 * and its first companion phrase repeated on one line), beside memchr
 * walking the same bytes line by line (the least any reader of lines
 * does). The doctor: a Kineto-shaped trace read plain and through the
 * gzip path (srv_doctor_stream, zlib), beside zlib's own inflate of the
 * same .gz. CPU time of this process (CLOCK_PROCESS_CPUTIME_ID), the
 * median of 5 batches of at least 20 ms; one JSON object on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "cjson_compat.h"
#include "doctor.h"
#include "doctor_stream.h"
#include "explain.h"

#define PASTE (LAB_EXPLAIN_MAX_BYTES - 1)
#define BATCHES 5

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Seconds of CPU per call of fn(ctx): the median of BATCHES batches, each
 * repeating the call for at least 20 ms. */
static double per_call(void (*fn)(void *), void *ctx) {
  double v[BATCHES];
  fn(ctx); /* warm */
  for (int b = 0; b < BATCHES; b++) {
    long n = 0;
    double t0 = cpu_s(), t;
    do {
      fn(ctx);
      n++;
      t = cpu_s() - t0;
    } while (t < 0.02);
    v[b] = t / (double)n;
  }
  qsort(v, BATCHES, sizeof v[0], by_value);
  return v[BATCHES / 2];
}

typedef struct buf {
  char *p;
  size_t n;
} buf;

static volatile size_t sink;

static void explain_once(void *ctx) {
  buf *b = ctx;
  lab_error err;
  cJSON *r = lab_explain(b->p, b->n, &err);
  sink += r != NULL;
  cJSON_Delete(r);
}

static void lines_once(void *ctx) {
  buf *b = ctx;
  size_t lines = 0;
  for (const char *p = b->p, *end = b->p + b->n; (p = memchr(p, '\n', (size_t)(end - p))); p++) lines++;
  sink += lines;
}

static char *repeat(const char *unit, size_t len) {
  char *t = malloc(len);
  size_t u = strlen(unit);
  for (size_t i = 0; i < len; i++) t[i] = unit[i % u];
  return t;
}

/* Per recogniser: a real message of its kind (from the corpus's own
 * cases, shortened to its first lines) and its worst paste. */
static const struct {
  const char *kind, *message, *worst;
} cases[] = {
    {"oom",
     "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.68 GiB total capacity; 22.84 GiB "
     "already allocated; 17.12 MiB free; 23.00 GiB reserved in total by PyTorch)\n",
     "Tried to allocate "},
    {"device_mismatch",
     "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
     "(when checking argument for argument mat1 in method wrapper_CUDA_addmm)\n",
     "can't convert tttttttttttttttt"},
    {"async_error",
     "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at "
     "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
     "CUDA_LAUNCH_BLOCKING=1.\n",
     "Assertion `` faile"},
    {"setup", "AssertionError: Torch not compiled with CUDA enabled\n",
     "is not compatible with the current PyTorch installation"},
    {"nvidia_smi",
     "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
     "|   0  NVIDIA A100-SXM4-40GB   On  | 00000000:00:04.0 Off |                    0 |\n"
     "| N/A   32C    P0    43W / 400W |   1234MiB / 40960MiB |      5%      Default |\n",
     "NVIDIA-SMI Driver Versio"},
    {"collect_env",
     "Collecting environment information...\nPyTorch version: 2.1.0+cu121\nIs debug build: False\nCUDA used to build "
     "PyTorch: 12.1\nIs CUDA available: True\nNvidia driver version: 535.104.05\n",
     "Is debug build: PyTorch version: "},
    {"memory_summary",
     "{'allocated_bytes.all.current': 1073741824, 'reserved_bytes.all.current': 2147483648, 'num_alloc_retries': 3}\n",
     "allocated_bytes.all.current' "},
};

/* ---- the doctor: a Kineto-shaped trace, plain and gzipped ------------------- */

static buf trace_of(size_t target) {
  buf b = {malloc(target + 4096), 0};
  b.n += (size_t)sprintf(b.p, "{\"traceEvents\":[");
  long t = 0, n = 0;
  for (int step = 0; b.n < target; step++) {
    b.n += (size_t)sprintf(b.p + b.n, "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"ts\":%ld,"
                                      "\"dur\":10000,\"pid\":1,\"tid\":1}", step ? "," : "", step, t);
    for (int k = 0; k < 100 && b.n + 1024 < target + 4096; k++, n++) {
      long s = t + k * 100;
      b.n += (size_t)sprintf(b.p + b.n,
                             ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                             "\"ts\":%ld,\"dur\":6,\"args\":{\"correlation\":%ld}},{\"ph\":\"X\",\"cat\":\"kernel\","
                             "\"name\":\"void at::native::elementwise_kernel_%d\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":60,"
                             "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%ld}}",
                             s + 10, n, k % 50, s + 15, n);
    }
    t += 10000;
  }
  b.n += (size_t)sprintf(b.p + b.n, "]}");
  return b;
}

static buf gzip_of(const buf *in) {
  uLongf cap = compressBound(in->n) + 64;
  buf g = {malloc(cap), 0};
  z_stream z = {0};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = (Bytef *)in->p;
  z.avail_in = (uInt)in->n;
  z.next_out = (Bytef *)g.p;
  z.avail_out = (uInt)cap;
  deflate(&z, Z_FINISH);
  g.n = z.total_out;
  deflateEnd(&z);
  return g;
}

typedef struct cursor {
  const buf *b;
  size_t at;
} cursor;

static size_t from_buf(void *src, unsigned char *out, size_t cap) {
  cursor *c = src;
  size_t n = c->b->n - c->at < cap ? c->b->n - c->at : cap;
  memcpy(out, c->b->p + c->at, n);
  c->at += n;
  return n;
}

static void doctor_once(void *ctx) {
  cursor c = {ctx, 0};
  lab_error err;
  cJSON *r = srv_doctor_stream(from_buf, &c, &err);
  sink += r != NULL;
  cJSON_Delete(r);
}

static void inflate_once(void *ctx) {
  const buf *g = ctx;
  static unsigned char out[256 * 1024];
  z_stream z = {0};
  inflateInit2(&z, 15 + 32);
  z.next_in = (Bytef *)g->p;
  z.avail_in = (uInt)g->n;
  int rc;
  do {
    z.next_out = out;
    z.avail_out = sizeof out;
    rc = inflate(&z, Z_NO_FLUSH);
  } while (rc == Z_OK);
  sink += z.total_out;
  inflateEnd(&z);
}

int main(int argc, char **argv) {
  double mib = argc > 1 ? atof(argv[1]) : 32; /* the doctor's trace, MiB of JSON */
  cJSON *o = cJSON_CreateObject(), *ex = cJSON_AddArrayToObject(o, "explain");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    buf real = {repeat(cases[i].message, PASTE), PASTE}, worst = {repeat(cases[i].worst, PASTE), PASTE};
    double mb = (double)PASTE / 1048576.0;
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "kind", cases[i].kind);
    cJSON_AddNumberToObject(c, "messages_s_per_mib", per_call(explain_once, &real) / mb);
    cJSON_AddNumberToObject(c, "worst_s_per_mib", per_call(explain_once, &worst) / mb);
    cJSON_AddNumberToObject(c, "peer_lines_s_per_mib", per_call(lines_once, &real) / mb);
    cJSON_AddItemToArray(ex, c);
    free(real.p);
    free(worst.p);
  }
  buf trace = trace_of((size_t)(mib * 1048576));
  buf gz = gzip_of(&trace);
  double tm = (double)trace.n / 1048576.0;
  cJSON *d = cJSON_AddObjectToObject(o, "doctor");
  cJSON_AddNumberToObject(d, "json_mib", tm);
  cJSON_AddNumberToObject(d, "gzip_mib", (double)gz.n / 1048576.0);
  cJSON_AddNumberToObject(d, "plain_s_per_mib", per_call(doctor_once, &trace) / tm);
  cJSON_AddNumberToObject(d, "gzip_s_per_mib", per_call(doctor_once, &gz) / tm);
  cJSON_AddNumberToObject(d, "peer_inflate_s_per_mib", per_call(inflate_once, &gz) / tm);
  free(trace.p);
  free(gz.p);
  char *text = cJSON_PrintUnformatted(o);
  puts(text);
  cJSON_free(text);
  cJSON_Delete(o);
  return 0;
}
