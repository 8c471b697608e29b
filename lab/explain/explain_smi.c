/* Recognises nvidia-smi's table (any recent driver): the driver version and
 * the newest CUDA it supports from the header, each GPU's name, memory in
 * use and utilisation from its rows, and how many processes hold memory.
 * Rows are read by their cells ('|'-separated), so column widths may vary;
 * a table quoted with "> " or pasted from its column headers on (its first
 * lines cut) is read too. Then it is read against the lesson: a GPU whose
 * memory is nearly full while it computes nothing ("memory full, GPU
 * idle"), a GPU full and busy beside an empty one (another job's GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_driver.h"
#include "explain_item.h"
#include "explain_scan.h"

#define MAX_GPUS 16
#define MAX_LINES 400 /* a table for 16 GPUs and their processes is well under this */

/* The next "| Processes:" line before lim: the processes table pasted alone starts there. */
static size_t procs_table(const char *t, size_t n, size_t from, size_t lim, lab_ex_memo *m) {
  for (size_t at = lab_ex_next(m, t, n, from, lim, "Processes:"); at != LAB_EX_NONE;
       at = lab_ex_next(m, t, n, at + 1, lim, "Processes:")) {
    size_t p = at;
    while (p > from && at - p < 8 && (t[p - 1] == ' ' || t[p - 1] == '\t')) p--;
    lab_ex_count(at - p + 1);
    if (p > from && t[p - 1] == '|') return p - 1;
  }
  return LAB_EX_NONE;
}

/* The next header line ("NVIDIA-SMI 535.104.05   Driver Version: …") at or
 * after from. The walk past lines that only name nvidia-smi is
 * remembered (m->state[0]: where it began, plus one; m->state[1]: what it
 * found), so that it is not walked again while a processes table before
 * it is what find returns. */
static size_t header(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  if (m->state[0] && m->state[0] - 1 <= from && from <= m->state[1]) return m->state[1];
  size_t at = from;
  for (;; at++) {
    at = lab_ex_next(m, t, n, at, n, "NVIDIA-SMI ");
    if (at == LAB_EX_NONE) break;
    if (lab_ex_next(m, t, n, at, lab_ex_next_line_end(m, t, n, at, n), "Driver Version") != LAB_EX_NONE) break;
  }
  m->state[0] = from + 1;
  m->state[1] = at;
  return at;
}

/* A table whose first lines were cut: it starts at its column headers' line ("… Persistence-M| Bus-Id …"). */
static size_t columns(const char *t, size_t n, size_t from, size_t lim, lab_ex_memo *m) {
  size_t at = lab_ex_next(m, t, n, from, lim, "Persistence-M");
  if (at == LAB_EX_NONE) return at;
  size_t ls = at;
  while (ls > from && t[ls - 1] != '\n' && at - ls < 80) ls--;
  lab_ex_count(at - ls + 1);
  return ls;
}

static size_t find(const char *t, size_t n, size_t from, lab_ex_memo *m) {
  size_t at = header(t, n, from, m);
  size_t pt = procs_table(t, n, from, at == LAB_EX_NONE ? n : at, m);
  size_t cols = columns(t, n, from, pt != LAB_EX_NONE ? pt : at == LAB_EX_NONE ? n : at, m);
  if (cols != LAB_EX_NONE) return cols;
  return pt != LAB_EX_NONE ? pt : at;
}

/* Spaces, tabs and the "> " of a quoted paste before a line's first cell. */
static size_t skip_lead(const char *t, size_t p, size_t end) {
  size_t p0 = p;
  while (p < end && (t[p] == ' ' || t[p] == '\t' || t[p] == '>')) p++;
  lab_ex_count(p - p0 + 1);
  return p;
}

/* The table runs while lines start with '|' or '+' (after leading spaces)
 * or are blank between its two parts. */
static size_t extent(const char *t, size_t n, size_t at, size_t lim, lab_ex_memo *m) {
  (void)n, (void)m;
  size_t le = lab_ex_line_end(t, at, lim), last = le;
  for (int k = 0; k < MAX_LINES && le < lim; k++) {
    size_t ne = lab_ex_line_end(t, le, lim), p = skip_lead(t, le, ne); /* indented, by spaces or tabs, or quoted */
    if (p < ne && (t[p] == '|' || t[p] == '+')) last = ne;
    else if (!(p >= ne - 1 || t[p] == '\r')) break; /* not blank, not the table */
    le = ne;
  }
  return last;
}

/* The c-th '|'-separated cell of the line [ls, le) (1 = the first after the leading '|'). */
static int cell(const char *t, size_t ls, size_t le, int c, size_t *cs, size_t *ce) {
  int k = 0;
  for (size_t p = ls; p < le; p++) {
    if (t[p] != '|') continue;
    if (k == c) {
      *ce = p;
      lab_ex_count(p - ls + 1);
      return 0;
    }
    k++;
    *cs = p + 1;
  }
  lab_ex_count(le - ls);
  return -1;
}

/* A GPU row's memory held (0..1, -1 unknown) and utilisation (%, -1 unknown or N/A). */
static double held(const cJSON *g) {
  const cJSON *u = cJSON_GetObjectItemCaseSensitive(g, "used_bytes"), *t = cJSON_GetObjectItemCaseSensitive(g, "total_bytes");
  return cJSON_IsNumber(u) && cJSON_IsNumber(t) && t->valuedouble > 0 ? u->valuedouble / t->valuedouble : -1;
}
static double util(const cJSON *g) {
  const cJSON *u = cJSON_GetObjectItemCaseSensitive(g, "util");
  return cJSON_IsString(u) && u->valuestring[0] >= '0' && u->valuestring[0] <= '9' ? atof(u->valuestring) : -1;
}

/* The table against the lesson (docs/explain.md): a GPU holding at least 80 % of its memory at a
 * utilisation of at most 10 % is "memory full, GPU idle"; one holding 80 % while busy beside a GPU
 * holding at most 10 % is another job's GPU, with a free one beside it. The GPU meant is named. */
static void judge(lab_ex_item *it, const cJSON *gpus) {
  const cJSON *g, *idle = NULL, *taken = NULL, *empty = NULL;
  cJSON_ArrayForEach(g, gpus) {
    double h = held(g), u = util(g);
    if (h >= 0.8 && u >= 0 && u <= 10 && !idle) idle = g;
    if (h >= 0.8 && u > 10 && !taken) taken = g;
    if (h >= 0 && h <= 0.1 && !empty) empty = g;
  }
  const cJSON *named = idle ? idle : taken && empty ? taken : NULL;
  it->diag = idle ? "smi_memory_held_idle" : taken && empty ? "smi_gpu_taken" : "smi_reading";
  if (!named) return;
  char pct[8];
  snprintf(pct, sizeof pct, "%.0f%%", 100 * held(named));
  cJSON_AddStringToObject(it->facts, "gpu_index", cJSON_GetObjectItemCaseSensitive(named, "index")->valuestring);
  cJSON_AddStringToObject(it->facts, "gpu_held", pct);
  cJSON_AddStringToObject(it->facts, "gpu_util", cJSON_GetObjectItemCaseSensitive(named, "util")->valuestring);
  if (empty) cJSON_AddStringToObject(it->facts, "free_gpu", cJSON_GetObjectItemCaseSensitive(empty, "index")->valuestring);
}

static void read(const char *t, size_t n, size_t s, size_t e, lab_ex_memo *m, lab_ex_item *it) {
  char w[96];
  cJSON *f = it->facts, *gpus = NULL, *g = NULL;
  int ngpu = 0, in_procs = 0, procs = 0, procs_seen = 0;
  (void)n, (void)m;
  it->kind = "nvidia_smi";
  if (lab_ex_word_after(t, s, e, "Driver Version: ", " |", w, sizeof w)) lab_ex_fact_str(f, "driver", w);
  if (lab_ex_word_after(t, s, e, "CUDA Version: ", " |", w, sizeof w)) lab_ex_fact_str(f, "cuda", w);
  gpus = cJSON_AddArrayToObject(f, "gpus");
  if (lab_ex_find(t, s, lab_ex_line_end(t, s, e), "Processes:") != LAB_EX_NONE) in_procs = 1, procs_seen = 1;
  for (size_t ls = lab_ex_line_end(t, s, e); ls < e;) {
    size_t le = lab_ex_line_end(t, ls, e), cs = 0, ce = 0;
    if (lab_ex_find(t, ls, le, "Processes:") != LAB_EX_NONE) in_procs = 1, procs_seen = 1;
    if (in_procs) { /* rows under the "|====|" rule, one per process (memory "N/A" on Windows counts too) */
      size_t p = skip_lead(t, ls, le);
      if (lab_ex_find(t, ls, le, "|====") != LAB_EX_NONE) in_procs = 2;
      else if (in_procs == 2 && p < le && t[p] == '|' && lab_ex_find(t, ls, le, "No running processes") == LAB_EX_NONE) {
        size_t q = p + 1;
        while (q < le && (t[q] == ' ' || t[q] == '|' || t[q] == '\r' || t[q] == '\n')) q++;
        lab_ex_count(q - p);
        if (q < le) procs++;
      }
    } else if (cell(t, ls, le, 1, &cs, &ce) == 0) {
      size_t p = cs;
      while (p < ce && t[p] == ' ') p++;
      size_t d = p;
      while (d < ce && t[d] >= '0' && t[d] <= '9') d++;
      lab_ex_count(d - cs + 1);
      if (d > p && d < ce && t[d] == ' ' && ngpu < MAX_GPUS) { /* "|   0  NVIDIA A100-SXM4-40GB   On  |" */
        size_t q = ce;
        while (q > d && t[q - 1] == ' ') q--;
        lab_ex_count(ce - q + 1);
        /* the persistence mode (Linux) or driver model (Windows) ends the cell */
        if (q - d > 3 && (!strncmp(t + q - 3, " On", 3) || !strncmp(t + q - 3, "Off", 3) || !strncmp(t + q - 3, "TCC", 3))) q -= 3;
        else if (q - d > 4 && !strncmp(t + q - 4, "WDDM", 4)) q -= 4;
        lab_ex_word(t, d, q, NULL, w, sizeof w);
        g = cJSON_CreateObject();
        char idx[8];
        lab_ex_word(t, p, d, NULL, idx, sizeof idx);
        cJSON_AddStringToObject(g, "index", idx);
        cJSON_AddStringToObject(g, "name", w);
        cJSON_AddItemToArray(gpus, g);
        ngpu++;
      } else if (g && lab_ex_find(t, ls, le, "MiB /") != LAB_EX_NONE && !cJSON_GetObjectItemCaseSensitive(g, "used")) {
        size_t cs2 = 0, ce2 = 0, cs3 = 0, ce3 = 0;
        lab_ex_size used, total;
        size_t slash = lab_ex_find(t, ls, le, "MiB /");
        if (!lab_ex_size_before(t, ls, slash + 3, &used) && !lab_ex_size_after(t, slash + 5, le, &total)) {
          cJSON_AddStringToObject(g, "used", used.printed);
          cJSON_AddStringToObject(g, "total", total.printed);
          cJSON_AddNumberToObject(g, "used_bytes", used.bytes);
          cJSON_AddNumberToObject(g, "total_bytes", total.bytes);
        }
        if (cell(t, ls, le, 2, &cs2, &ce2) == 0 && cell(t, ls, le, 3, &cs3, &ce3) == 0 &&
            lab_ex_word(t, cs3, ce3, " ", w, sizeof w) && (strchr(w, '%') || !strcmp(w, "N/A")))
          cJSON_AddStringToObject(g, "util", w);
      }
    }
    ls = le;
  }
  if (procs_seen) cJSON_AddNumberToObject(f, "processes", procs);
  it->platform = LAB_EX_CUDA;
  /* the header of a driver before 410 prints no "CUDA Version": the newest CUDA the driver runs */
  if (!cJSON_GetObjectItemCaseSensitive(f, "cuda") && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "driver")) &&
      lab_ex_driver_cuda(cJSON_GetObjectItemCaseSensitive(f, "driver")->valuestring, w, sizeof w))
    lab_ex_fact_str(f, "driver_cuda", w);
  judge(it, gpus);
}

const lab_ex_recogniser lab_ex_smi = {"nvidia_smi", find, extent, read};
