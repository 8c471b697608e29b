/* `gpulab doctor FILE[.gz]` (or - for standard input): reads a PyTorch
 * profiler trace in chunks (server/api/doctor_stream.c inflates a .gz as it
 * goes) and prints lab/doctor/doctor.h's findings as text or, with --json, as the
 * envelope POST /api/doctor answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "cli.h"
#include "doctor.h"
#include "doctor_stream.h"

static size_t from_file(void *src, unsigned char *buf, size_t cap) { return fread(buf, 1, cap, (FILE *)src); }

static const char *s(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}
static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

#define SKETCH_W 64
#define SKETCH_LANES 6

/* The chosen step's timeline as one row of characters per lane: # busy. */
static void print_sketch(const cJSON *tl, double wall_us) {
  const cJSON *x;
  double end = wall_us;
  cJSON_ArrayForEach(x, tl) end = num(x, "end_us") > end ? num(x, "end_us") : end;
  if (end <= 0) return;
  char lanes[SKETCH_LANES][32], rows[SKETCH_LANES][SKETCH_W + 1];
  int n = 0;
  cJSON_ArrayForEach(x, tl) {
    int l = 0;
    while (l < n && strcmp(lanes[l], s(x, "lane"))) l++;
    if (l == n) {
      if (n == SKETCH_LANES) continue;
      snprintf(lanes[n], sizeof lanes[n], "%s", s(x, "lane"));
      memset(rows[n], '.', SKETCH_W);
      rows[n++][SKETCH_W] = 0;
    }
    int a = (int)(num(x, "start_us") / end * SKETCH_W), b = (int)(num(x, "end_us") / end * SKETCH_W);
    for (int c = a; c <= b && c < SKETCH_W; c++) rows[l][c] = '#';
  }
  for (int l = 0; l < n; l++) printf("  %-16s |%s|\n", lanes[l], rows[l]);
  printf("  %-16s 0%*.*f ms\n", "", SKETCH_W - 2, 3, end / 1000);
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
  const cJSON *of = cJSON_GetObjectItemCaseSensitive(env, "timeline_of");
  if (of)
    printf("\nTimeline of %s (%s): %.0f spans, %.0f left out (see --json).\n", s(of, "step"), s(of, "why"), num(of, "spans"),
           num(of, "spans_left_out"));
  double wall = 0;
  cJSON_ArrayForEach(x, steps) if (of && !strcmp(s(x, "name"), s(of, "step"))) wall = num(x, "wall_ms") * 1000;
  print_sketch(cJSON_GetObjectItemCaseSensitive(env, "timeline"), wall);
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
  FILE *f = srv_cli_open(path);
  if (!f) return 1;
  lab_error err = {0};
  cJSON *env = srv_doctor_stream(from_file, f, &err);
  if (f != stdin) fclose(f);
  return srv_cli_answer(env, &err, json, print_text);
}
