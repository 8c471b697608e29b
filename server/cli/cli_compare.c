/* `gpulab compare RUN.json [--json] [--profile NAME] [--claims FILE]`: a
 * measurement kit file (kit/measure.py) beside the simulator's prediction
 * for the same device (lab/compare/compare.h): per figure measured,
 * predicted, ratio and whether it is physically possible, then the
 * lessons' claims on the learner's numbers. The file is untrusted: read at
 * most 1 MiB and one byte, checked whole before anything uses it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "cli.h"
#include "compare.h"
#include "json.h"
#include "kit_file.h"

/* Every line printed without control bytes but its newlines: the file's
 * texts (a device name, a skip reason, a fitted profile's label) come from
 * a learner's machine, and a terminal would act on an escape sequence. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  for (const char *c = line; *c; c++) putchar(*c != '\n' && ((unsigned char)*c < 0x20 || *c == 0x7f) ? '?' : *c);
}

static const char *s(const cJSON *o, const char *k) {
  const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
  return v ? v : "";
}

static void num(const cJSON *o, const char *k, char *out, size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  if (cJSON_IsNumber(v)) snprintf(out, n, "%.3g", v->valuedouble);
  else snprintf(out, n, "-");
}

static void print_figures(const cJSON *e) {
  const cJSON *f;
  say("\n%s%s%s\n", s(e, "experiment"), s(e, "note")[0] ? ": " : "", s(e, "note"));
  say("  %-30s %12s %12s %8s\n", "figure", "measured", "predicted", "ratio");
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(e, "figures")) {
    char m[32], p[32], r[32], name[64];
    num(f, "measured", m, sizeof m);
    num(f, "predicted", p, sizeof p);
    num(f, "ratio", r, sizeof r);
    snprintf(name, sizeof name, "%s%s%s%s", s(f, "metric"), s(f, "unit")[0] ? " (" : "", s(f, "unit"),
             s(f, "unit")[0] ? ")" : "");
    say("  %-30s %12s %12s %8s%s", name, m, p, r, strcmp(r, "-") ? "x" : "");
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(f, "plausible"))) say("  IMPLAUSIBLE: %s", s(f, "reason"));
    say("\n");
  }
}

/* Milliseconds, or bytes in the unit that reads best; "-" when absent. */
static void amount(const cJSON *v, int ms, char *out, size_t n) {
  double x = cJSON_GetNumberValue(v);
  if (!cJSON_IsNumber(v)) snprintf(out, n, "-");
  else if (ms) snprintf(out, n, "%.3g ms", x);
  else if (x >= 1 << 30) snprintf(out, n, "%.3f GiB", x / (1 << 30));
  else if (x >= 1 << 20) snprintf(out, n, "%.2f MiB", x / (1 << 20));
  else if (x >= 1 << 10) snprintf(out, n, "%.1f KiB", x / (1 << 10));
  else snprintf(out, n, "%.0f B", x);
}

/* A plan run (measure.py --plan): each counter the kit read beside the plan's prediction. */
static void print_plan(const cJSON *plan) {
  const cJSON *c;
  say("\nThe plan (%s, planned on %s) run on your %s: %s\n", s(plan, "model")[0] ? s(plan, "model") : s(plan, "arch"),
      s(plan, "profile"), s(plan, "device"), s(plan, "verdict"));
  const cJSON *oom = cJSON_GetObjectItemCaseSensitive(plan, "oom");
  if (cJSON_IsObject(oom)) say("  the error: %s\n", s(oom, "message"));
  if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "counters")))
    say("  %-16s %14s %14s %8s\n", "counter", "measured", "planned", "ratio");
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(plan, "counters")) {
    char m[32], p[32], r[32];
    int ms = !strcmp(s(c, "id"), "step_ms");
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(c, "measured"), *pv = cJSON_GetObjectItemCaseSensitive(c, "predicted");
    amount(mv, ms, m, sizeof m);
    amount(pv, ms, p, sizeof p);
    num(c, "ratio", r, sizeof r);
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(c, "in_band");
    say("  %-16s %14s %14s %8s  %s\n", s(c, "id"), m, p, r,
        cJSON_IsTrue(in) ? "in the plan's band" : cJSON_IsFalse(in) ? "OUTSIDE the plan's band" : "not scored");
    say("    (%s)\n", s(c, "what"));
  }
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(plan, "unavailable")) say("  %-16s not measured: %s\n", s(c, "id"), s(c, "why"));
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(plan, "notes")) say("  note: %s\n", cJSON_GetStringValue(c));
}

static void print_text(const cJSON *rep) {
  const cJSON *run = cJSON_GetObjectItemCaseSensitive(rep, "run"), *prof = cJSON_GetObjectItemCaseSensitive(rep, "profile");
  const cJSON *e, *c;
  say("Your run: %s (%s), PyTorch %s%s%s, %s\n", s(run, "device"), s(run, "kind"), s(run, "torch"),
      s(run, "platform")[0] ? ", " : "", s(run, "platform"), s(run, "date"));
  say("Compared with the profile %s (%s): %s.\n", s(prof, "name"), s(prof, "label"), s(prof, "how"));
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rep, "experiments")) print_figures(e);
  if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rep, "plan"))) print_plan(cJSON_GetObjectItemCaseSensitive(rep, "plan"));
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rep, "skipped")) say("\nskipped %s: %s", s(e, "experiment"), s(e, "why"));
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rep, "failed")) say("\nfailed %s: %s", s(e, "experiment"), s(e, "error"));
  say("\n\nThe lessons' claims on your numbers:%s%s\n", s(rep, "claims_note")[0] ? " " : "", s(rep, "claims_note"));
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rep, "claims")) {
    int holds = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "holds"));
    say("  %s: \"%s\" (%s)\n    on your %s: %s\n", holds ? "the lesson's claim holds" : "the lesson's claim does NOT hold",
        s(c, "quote"), s(c, "where"), s(run, "device"), holds ? s(c, "numbers") : s(c, "why"));
  }
  double bad = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rep, "implausible"));
  if (bad >= 1)
    say("\n%.0f figure%s physically impossible on this device: not measured as the lessons teach (see above).\n", bad,
        bad < 2 ? " is" : "s are");
}

/* The lessons' compiled claims beside the binary (the build's claims.json, or a bundle's). */
static cJSON *load_claims(const char *path) {
  char exe[4096], guess[4200];
  if (!path) {
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(guess, sizeof guess, "%s/../claims.json", exe);
    path = guess;
  }
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 8 << 20, n;
  char *text = malloc(cap);
  n = text ? fread(text, 1, cap, f) : 0;
  fclose(f);
  cJSON *root = text && n < cap ? lab_json_parse(text, n, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  free(text);
  return root;
}

int srv_cmd_compare(int argc, char **argv) {
  int json = 0;
  const char *path = NULL, *profile = NULL, *claims_path = NULL;
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (srv_cli_option(argc, argv, &i, "--profile", &v)) {
      if (!v) return srv_cli_usage("compare --profile needs a profile name");
      profile = v;
    } else if (srv_cli_option(argc, argv, &i, "--claims", &v)) {
      if (!v) return srv_cli_usage("compare --claims needs a file");
      claims_path = v;
    } else if (argv[i][0] != '-' && !path) path = argv[i];
    else if (!strcmp(argv[i], "-") && !path) path = argv[i];
    else return srv_cli_usage("compare takes one RUN.json (or - for standard input), --json, --profile NAME, --claims FILE");
  }
  if (!path) return srv_cli_usage("compare needs the file the measurement kit wrote (python3 measure.py --out FILE)");
  lab_error err = {0};
  size_t n = 0;
  char *buf = srv_cli_read(path, LAB_KIT_MAX_BYTES, &n, &err);
  if (!buf && !err.code) return 1; /* cannot open: said */
  cJSON *kit = buf ? lab_kit_read(buf, n, &err) : NULL, *report = NULL;
  free(buf);
  cJSON *claims = kit ? load_claims(claims_path) : NULL;
  if (kit && claims_path && !claims) {
    lab_fail(&err, LAB_E_USAGE, "claims", "cannot read the claims file %.200s (lessonc --claims writes it)", claims_path);
    cJSON_Delete(kit);
    kit = NULL;
  }
  if (kit) lab_compare(kit, claims, profile, &report, &err);
  cJSON_Delete(kit);
  cJSON_Delete(claims);
  return srv_cli_answer(report, &err, json, print_text);
}
