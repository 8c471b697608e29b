/* `gpulab doctor FILE[.gz]` (or - for standard input): reads a PyTorch
 * profiler trace in chunks, inflating gzip as it goes (zlib, gzip or plain
 * detected from the first bytes), and prints lab/doctor.h's findings as
 * text or, with --json, as the envelope. A .gz that inflates more than
 * LAB_DOCTOR_GZIP_MAX_RATIO times its size past 64 MiB is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cjson_compat.h"
#include "cli.h"
#include "doctor.h"

#define CHUNK (256 * 1024)
#define BOMB_FLOOR (64.0 * 1024 * 1024)

typedef struct reader {
  FILE *f;
  lab_doctor *doc;
  unsigned char *in, *out;
  double in_total, out_total;
} reader;

static int feed_gzip(reader *r, size_t first, lab_error *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  size_t have = first;
  int rc = Z_OK, ret = 0;
  for (;;) {
    if (!have) {
      have = fread(r->in, 1, CHUNK, r->f);
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
        ret = lab_fail(err, LAB_E_DOCTOR_BAD_GZIP, NULL, "The .gz data is damaged after %.0f compressed bytes (%s).",
                       r->in_total, z.msg ? z.msg : "inflate failed");
        goto done;
      }
      size_t got = CHUNK - z.avail_out;
      r->out_total += (double)got;
      if (r->out_total > BOMB_FLOOR && r->out_total > LAB_DOCTOR_GZIP_MAX_RATIO * r->in_total) {
        ret = lab_fail(err, LAB_E_DOCTOR_GZIP_BOMB, NULL,
                       "The .gz inflated to %.0f MiB from %.0f KiB (over %d times): a gzip bomb, not a trace.",
                       r->out_total / 1048576, r->in_total / 1024, LAB_DOCTOR_GZIP_MAX_RATIO);
        goto done;
      }
      if (got && lab_doctor_feed(r->doc, (const char *)r->out, got, err)) {
        ret = -1;
        goto done;
      }
      if (rc == Z_BUF_ERROR && !got) break;
    }
  }
  if (rc != Z_STREAM_END)
    ret = lab_fail(err, LAB_E_DOCTOR_BAD_GZIP, NULL, "The .gz file ends early after %.0f bytes: it was cut short.", r->in_total);
done:
  inflateEnd(&z);
  return ret;
}

static cJSON *read_trace(FILE *f, lab_error *err) {
  reader r = {f, lab_doctor_new(), malloc(CHUNK), malloc(CHUNK), 0, 0};
  cJSON *env = NULL;
  if (!r.doc || !r.in || !r.out) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto out;
  }
  size_t n = fread(r.in, 1, CHUNK, f);
  if (n >= 2 && r.in[0] == 0x1f && r.in[1] == 0x8b) {
    if (feed_gzip(&r, n, err)) goto out;
  } else {
    while (n) {
      if (lab_doctor_feed(r.doc, (const char *)r.in, n, err)) goto out;
      n = fread(r.in, 1, CHUNK, f);
    }
  }
  env = lab_doctor_finish(r.doc, err);
out:
  lab_doctor_free(r.doc);
  free(r.in);
  free(r.out);
  return env;
}

static const char *s(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}
static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void print_text(const cJSON *env) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(env, "trace"), *x, *p;
  printf("Read %.0f events (%.0f on the GPU) over %.3f ms, %.0f profiler steps.\n", num(t, "events"), num(t, "gpu_events"),
         num(t, "span_ms"), num(t, "profiler_steps"));
  const cJSON *steps = cJSON_GetObjectItemCaseSensitive(env, "steps");
  if (num(t, "gpu_events") > 0) {
    printf("\n  %-20s %10s %8s %8s  largest gap\n", "step", "wall ms", "busy %", "kernels");
    cJSON_ArrayForEach(x, steps) {
      const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "gaps"), 0);
      printf("  %-20s %10.3f %8.1f %8.0f  ", s(x, "name"), num(x, "wall_ms"), num(x, "gpu_busy_pct"), num(x, "kernels"));
      if (g) printf("%.3f ms (%s)\n", num(g, "ms"), s(g, "host"));
      else printf("-\n");
    }
  }
  int i = 0;
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(x, "lesson"), *e = cJSON_GetObjectItemCaseSensitive(x, "experiment");
    printf("\n%d. %s [%s, %s]\n   %s\n", ++i, s(x, "title"), s(x, "id"), s(x, "certainty"), s(x, "text"));
    printf("   Lesson: %s, section \"%s\" (%s)\n   Experiment: gpulab run %s", s(l, "id"), s(l, "section"), s(l, "href"),
           s(e, "name"));
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(e, "params")) {
      if (cJSON_IsBool(p)) printf(" --%s=%s", p->string, cJSON_IsTrue(p) ? "true" : "false");
      else if (cJSON_IsNumber(p)) printf(" --%s=%.15g", p->string, p->valuedouble);
    }
    printf("\n");
  }
}

int srv_cmd_doctor(int argc, char **argv) {
  int json = 0;
  const char *path = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!path) path = argv[i];
    else return srv_cli_usage("doctor takes one FILE (.json or .json.gz, or - for standard input) and --json");
  }
  if (!path) return srv_cli_usage("doctor needs a FILE: the trace torch.profiler wrote (.json or .json.gz)");
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    fprintf(stderr, "gpulab: cannot open %s\n", path);
    return 1;
  }
  lab_error err = {0};
  cJSON *env = read_trace(f, &err);
  if (f != stdin) fclose(f);
  if (!env) {
    if (json) {
      cJSON *e = lab_error_json(&err);
      char *t = cJSON_Print(e);
      if (t) puts(t);
      cJSON_free(t);
      cJSON_Delete(e);
    } else {
      fprintf(stderr, "gpulab: %s (%s)\n", err.message, lab_err_code(err.code));
    }
    return 1;
  }
  if (json) {
    char *t = cJSON_Print(env);
    if (t) puts(t);
    cJSON_free(t);
  } else {
    print_text(env);
  }
  cJSON_Delete(env);
  return 0;
}
