/* The planner against published training-memory measurements on real GPUs
 * (tests/plan/published.json: each row a run's settings, the counter that
 * was read, the figure as published, its link, where it is and the
 * conditions). Validates every row strictly, plans each one, prints the
 * ratios (planned / published) and checks, as TAP, that no row was used to
 * set a planner figure (no planner file cites a row's source), that there
 * are at least 20 rows from at least 3 sources covering all three counters,
 * and that at least 90 % of them lie within [0.8, 1.25].
 * Usage: plan_fidelity published.json [planner files that must not cite a row]...
 * (make fidelity, with lab/plan's files). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "plan.h"

#define LO 0.80
#define HI 1.25
#define MIN_ROWS 20
#define MIN_SOURCES 3
#define MIN_SHARE 0.90
#define MAX_ROWS 256
#define MIB (1024.0 * 1024.0)

static int tap_n, tap_failed;

static void tap(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (!ok) tap_failed++;
}

static const char *const counters[] = {"allocated", "reserved", "device"};
#define N_COUNTERS 3

static const struct unit {
  const char *name;
  double bytes;
} units[] = {{"B", 1}, {"MB", 1e6}, {"MiB", MIB}, {"GB", 1e9}, {"GiB", MIB * 1024}};

static const char *const keys[] = {"id", "model", "settings", "counter", "published", "unit", "gpu", "source",
                                   "where", "conditions", "note"};

static const char *str(const cJSON *row, const char *key) {
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, key));
  return s ? s : "";
}

static int counter_index(const char *name) {
  for (int i = 0; i < N_COUNTERS; i++)
    if (strcmp(name, counters[i]) == 0) return i;
  return -1;
}

static double unit_bytes(const char *name) {
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(name, units[i].name) == 0) return units[i].bytes;
  return 0;
}

/* Why a row is not well formed, or NULL. */
static const char *malformed(const cJSON *row, const cJSON *rows, int index) {
  if (!cJSON_IsObject(row)) return "not an object";
  const cJSON *v;
  cJSON_ArrayForEach(v, row) {
    size_t k = 0;
    while (k < sizeof keys / sizeof keys[0] && strcmp(v->string, keys[k])) k++;
    if (k == sizeof keys / sizeof keys[0]) return "an unknown key";
  }
  static const char *const text[] = {"id", "model", "counter", "unit", "gpu", "source", "where", "conditions"};
  for (size_t k = 0; k < sizeof text / sizeof text[0]; k++)
    if (!*str(row, text[k])) return "a missing or empty text key";
  if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(row, "settings"))) return "settings is not an object";
  const cJSON *pub = cJSON_GetObjectItemCaseSensitive(row, "published");
  if (!cJSON_IsNumber(pub) || !(pub->valuedouble > 0)) return "published is not a positive number";
  if (counter_index(str(row, "counter")) < 0) return "counter is not allocated, reserved or device";
  if (!unit_bytes(str(row, "unit"))) return "unit is not B, MB, MiB, GB or GiB";
  if (strncmp(str(row, "source"), "https://", 8)) return "source is not an https link";
  size_t wl = strlen(str(row, "where"));
  if (wl < 12 || wl > 200 || strchr(str(row, "where"), '"')) return "where is not 12-200 characters without quotation marks";
  for (int j = 0; j < index; j++)
    if (strcmp(str(cJSON_GetArrayItem(rows, j), "id"), str(row, "id")) == 0) return "a duplicate id";
  return NULL;
}

/* The planner's figure for the row's counter, in bytes, or a negative value with err set. */
static double planned(const cJSON *row, lab_error *err) {
  lab_plan_settings s;
  if (lab_plan_settings_from_json(cJSON_GetObjectItemCaseSensitive(row, "settings"), &s, err)) return -1;
  lab_plan_memory m;
  if (lab_plan_memory_of(&s, &m, err)) return -1;
  const uint64_t by[N_COUNTERS] = {m.allocated, m.reserved, m.device};
  return (double)by[counter_index(str(row, "counter"))];
}

static char *slurp(const char *path, size_t max) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(max + 1);
  size_t len = buf ? fread(buf, 1, max, f) : 0;
  fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}

/* Held out: no planner file names a row's source, so no planner figure was set from one. */
static void held_out(const cJSON *rows, char **files, int n_files) {
  int cited = 0;
  for (int i = 0; i < n_files; i++) {
    char *text = slurp(files[i], 1 << 20);
    if (!text) {
      printf("# cannot read %s\n", files[i]);
      cited++;
      continue;
    }
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
      if (*str(row, "source") && strstr(text, str(row, "source"))) {
        printf("# %s cites %s's source: that row would be fitted, not held out\n", files[i], str(row, "id"));
        cited++;
        break;
      }
    }
    free(text);
  }
  tap(n_files > 0 && cited == 0, "held out: none of the planner's %d files cites a row's source", n_files);
}

static void compare(const cJSON *rows) {
  int n = cJSON_GetArraySize(rows), bad = 0, in = 0, in_band = 0, planned_n = 0, per_counter[N_COUNTERS] = {0};
  const char *sources[MAX_ROWS];
  int n_sources = 0;
  printf("# %-38s %-9s %-9s %14s %14s %6s\n", "row", "counter", "profile", "published MiB", "planned MiB", "ratio");
  for (int i = 0; i < n && i < MAX_ROWS; i++) {
    const cJSON *row = cJSON_GetArrayItem(rows, i);
    const char *why = malformed(row, rows, i);
    if (why) {
      printf("# row %d (%s): %s\n", i, cJSON_IsObject(row) ? str(row, "id") : "?", why);
      bad++;
      continue;
    }
    lab_error err = {0};
    double plan = planned(row, &err);
    if (plan < 0) {
      printf("# row %d (%s): the planner refuses its settings: %s\n", i, str(row, "id"), err.message);
      bad++;
      continue;
    }
    double pub = cJSON_GetObjectItemCaseSensitive(row, "published")->valuedouble * unit_bytes(str(row, "unit"));
    double ratio = plan / pub;
    bool ok = ratio >= LO && ratio <= HI;
    /* the planner's own band around its figure */
    int c = counter_index(str(row, "counter"));
    const double lo[N_COUNTERS] = {LAB_PLAN_ALLOCATED_LOW, LAB_PLAN_RESERVED_LOW, LAB_PLAN_DEVICE_LOW};
    const double hi[N_COUNTERS] = {LAB_PLAN_ALLOCATED_HIGH, LAB_PLAN_RESERVED_HIGH, LAB_PLAN_DEVICE_HIGH};
    in_band += pub >= plan * lo[c] && pub <= plan * hi[c];
    in += ok;
    planned_n++;
    per_counter[c]++;
    int k = 0;
    while (k < n_sources && strcmp(sources[k], str(row, "source"))) k++;
    if (k == n_sources) sources[n_sources++] = str(row, "source");
    const char *prof = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(row, "settings"), "profile"));
    printf("# %-38s %-9s %-9s %14.0f %14.0f %6.3f%s\n", str(row, "id"), counters[c], prof ? prof : "t4", pub / MIB,
           plan / MIB, ratio, ok ? "" : " OUT");
    if (!ok) printf("#   %s\n", *str(row, "note") ? str(row, "note") : "no note");
  }
  printf("# %d rows from %d sources, %d within [%.2f, %.2f] (%.0f%%); the published figure inside the planner's own band: %d\n",
         planned_n, n_sources, in, LO, HI, planned_n ? 100.0 * in / planned_n : 0.0, in_band);
  tap(n > 0 && n <= MAX_ROWS && bad == 0, "every row is well formed and planned (%d rows, %d refused)", n, bad);
  tap(planned_n >= MIN_ROWS && n_sources >= MIN_SOURCES, "at least %d rows from at least %d sources (%d from %d)",
      MIN_ROWS, MIN_SOURCES, planned_n, n_sources);
  tap(per_counter[0] && per_counter[1] && per_counter[2],
      "every counter is measured: max_memory_allocated %d, max_memory_reserved %d, nvidia-smi %d", per_counter[0],
      per_counter[1], per_counter[2]);
  tap(planned_n && in >= MIN_SHARE * planned_n, "at least %.0f%% of the rows within [%.2f, %.2f] of the published figure",
      100 * MIN_SHARE, LO, HI);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: plan_fidelity published.json [planner files]...\n"), 2;
  char *text = slurp(argv[1], 1 << 20);
  cJSON *doc = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!doc) return fprintf(stderr, "plan_fidelity: cannot read %s as JSON\n", argv[1]), 2;
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
  printf("TAP version 13\n# gpulab plan fidelity: the planner against published training memory (%s)\n", argv[1]);
  if (!cJSON_IsArray(rows)) {
    tap(0, "the document has a rows array");
  } else {
    compare(rows);
    held_out(rows, argv + 2, argc - 2);
  }
  cJSON_Delete(doc);
  printf("1..%d\n# pass %d\n# fail %d\n", tap_n, tap_n - tap_failed, tap_failed);
  return tap_failed ? 1 : 0;
}
