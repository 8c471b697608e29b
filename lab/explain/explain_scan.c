/* Text scanning and PyTorch's units for the explain recognisers: every read
 * is bounded by the window's end, and a size is read exactly as PyTorch
 * prints it (format_size: "512 bytes", "20.00 MiB"; memory_summary:
 * "  1024 KiB", "0 B"; nvidia-smi: "4MiB"). Every byte a function looks at
 * is counted (lab_ex_examined): the explainer's cost, checked without a
 * clock (tests/unit/check_explain_cost.c). */
#include "explain_scan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

#define NUM_MAX 24 /* digits and point of one number: more is not a size PyTorch prints */

static const struct {
  const char *name;
  double scale;
} units[] = {
    {"bytes", 1.0},         {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0}, {"B", 1.0},
};

/* Per thread: the server explains pastes on several threads at once. */
static _Thread_local size_t examined;

size_t lab_ex_examined(void) { return examined; }
void lab_ex_count(size_t bytes) { examined += bytes; }

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

double lab_ex_parse_size(const char *s, size_t n, size_t *used) {
  size_t i = 0, digits = 0, point = 0;
  double whole = 0, frac = 0, div = 1;
  while (i < n && i < NUM_MAX && (is_digit(s[i]) || (s[i] == '.' && !point && digits))) {
    if (s[i] == '.') point = i;
    else if (point) frac = frac * 10 + (s[i] - '0'), div *= 10, digits++;
    else whole = whole * 10 + (s[i] - '0'), digits++;
    i++;
  }
  examined += i + 1;
  if (!digits || (point && point == i - 1) || (i < n && is_digit(s[i]))) return -1;
  size_t sp = 0;
  while (i + sp < n && s[i + sp] == ' ' && sp < 2) sp++;
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    size_t un = strlen(units[u].name);
    if (i + sp + un > n || memcmp(s + i + sp, units[u].name, un) != 0) continue;
    if (i + sp + un < n && is_alpha(s[i + sp + un])) continue; /* "Bus", "bytes_x": not a unit */
    if (used) *used = i + sp + un;
    return round((whole + frac / div) * units[u].scale);
  }
  return -1;
}

size_t lab_ex_find(const char *t, size_t from, size_t end, const char *needle) {
  size_t k = strlen(needle);
  if (k == 0 || from >= end || end - from < k) return LAB_EX_NONE;
  for (size_t i = from; i + k <= end; i++) {
    const char *p = memchr(t + i, needle[0], end - k + 1 - i);
    if (!p) {
      examined += end - k + 1 - i;
      return LAB_EX_NONE;
    }
    examined += (size_t)(p - (t + i)) + 1;
    i = (size_t)(p - t);
    size_t j = 1;
    while (j < k && p[j] == needle[j]) j++;
    examined += j < k ? j : k - 1;
    if (j == k) return i;
  }
  return LAB_EX_NONE;
}

size_t lab_ex_find_wrapped(const char *t, size_t from, size_t end, const char *needle, size_t *mend) {
  size_t k = strlen(needle);
  for (size_t i = from; i < end; i++) {
    const char *c = memchr(t + i, needle[0], end - i);
    if (!c) {
      examined += end - i;
      return LAB_EX_NONE;
    }
    examined += (size_t)(c - (t + i)) + 1;
    i = (size_t)(c - t);
    size_t p = i, j = 0;
    int breaks = 0;
    while (j < k && p < end) {
      if (t[p] == needle[j]) p++, j++;
      else if ((t[p] == '\n' || t[p] == '\r') && breaks < 2) { /* a wrap: stands for a space, or splits a word */
        if (t[p] == '\r' && p + 1 < end && t[p + 1] == '\n') p++;
        p++, breaks++;
        if (needle[j] == ' ') j++;
      } else break;
    }
    examined += p - i;
    if (j == k) {
      if (mend) *mend = p;
      return i;
    }
  }
  return LAB_EX_NONE;
}

size_t lab_ex_line_end(const char *t, size_t pos, size_t end) {
  if (pos >= end) return end;
  const char *nl = memchr(t + pos, '\n', end - pos);
  examined += nl ? (size_t)(nl - (t + pos)) + 1 : end - pos;
  return nl ? (size_t)(nl - t) + 1 : end;
}

static void keep_printed(const char *s, size_t n, lab_ex_size *out) {
  if (n >= sizeof out->printed) n = sizeof out->printed - 1;
  memcpy(out->printed, s, n);
  out->printed[n] = '\0';
}

int lab_ex_size_after(const char *t, size_t pos, size_t end, lab_ex_size *out) {
  size_t p0 = pos;
  while (pos < end && t[pos] == ' ') pos++;
  examined += pos - p0;
  size_t used = 0;
  double b = pos < end ? lab_ex_parse_size(t + pos, end - pos, &used) : -1;
  if (b < 0) return -1;
  out->bytes = b;
  keep_printed(t + pos, used, out);
  return 0;
}

int lab_ex_size_after_binary(const char *t, size_t pos, size_t end, lab_ex_size *out) {
  static const char *const old[] = {"KB", "MB", "GB", "TB", "PB"};
  if (!lab_ex_size_after(t, pos, end, out)) return 0;
  while (pos < end && t[pos] == ' ') pos++;
  size_t d = pos, point = 0;
  double whole = 0, frac = 0, div = 1;
  while (d < end && d - pos < NUM_MAX && (is_digit(t[d]) || (t[d] == '.' && !point && d > pos))) {
    if (t[d] == '.') point = d;
    else if (point) frac = frac * 10 + (t[d] - '0'), div *= 10;
    else whole = whole * 10 + (t[d] - '0');
    d++;
  }
  size_t u = d < end && t[d] == ' ' ? d + 1 : d;
  examined += u - pos + 3;
  if (d == pos || (point && point == d - 1) || u + 2 > end || (u + 2 < end && is_alpha(t[u + 2]))) return -1;
  for (int k = 0; k < 5; k++) {
    if (memcmp(t + u, old[k], 2) != 0) continue;
    double v = whole + frac / div;
    for (int i = 0; i <= k; i++) v *= 1024;
    out->bytes = round(v);
    keep_printed(t + pos, u + 2 - pos, out);
    return 0;
  }
  return -1;
}

int lab_ex_size_before(const char *t, size_t lo, size_t pos, lab_ex_size *out) {
  while (pos > lo && t[pos - 1] == ' ') pos--;
  size_t u = pos;
  while (u > lo && pos - u < 5 && is_alpha(t[u - 1])) u--;
  if (u == pos) return -1;
  size_t s = u;
  while (s > lo && u - s < 2 && t[s - 1] == ' ') s--;
  size_t d = s;
  while (d > lo && s - d < NUM_MAX && (is_digit(t[d - 1]) || t[d - 1] == '.')) d--;
  examined += pos - d + 1;
  if (d == s) return -1;
  size_t used = 0;
  double b = lab_ex_parse_size(t + d, pos - d, &used);
  if (b < 0 || used != pos - d) return -1;
  out->bytes = b;
  keep_printed(t + d, used, out);
  return 0;
}

size_t lab_ex_word(const char *t, size_t pos, size_t end, const char *stops, char *out, size_t cap) {
  size_t p0 = pos;
  while (pos < end && (t[pos] == ' ' || t[pos] == '\t')) pos++;
  size_t n = 0;
  while (pos + n < end && n + 1 < cap && t[pos + n] != '\n' && t[pos + n] != '\r' && t[pos + n] != '\0' &&
         !(stops && strchr(stops, t[pos + n])))
    n++;
  examined += pos - p0 + n + 1;
  while (n > 0 && (t[pos + n - 1] == ' ' || t[pos + n - 1] == '\t')) n--;
  memcpy(out, t + pos, n);
  out[n] = '\0';
  lab_utf8_repair(out);
  return n;
}

size_t lab_ex_word_after(const char *t, size_t from, size_t end, const char *needle, const char *stops, char *out,
                         size_t cap) {
  size_t at = lab_ex_find(t, from, end, needle);
  out[0] = '\0';
  return at == LAB_EX_NONE ? 0 : lab_ex_word(t, at + strlen(needle), end, stops, out, cap);
}

void lab_ex_fact_size(cJSON *facts, const char *key, const lab_ex_size *s) {
  cJSON *o = cJSON_AddObjectToObject(facts, key);
  if (!o) return;
  cJSON_AddStringToObject(o, "printed", s->printed);
  cJSON_AddNumberToObject(o, "bytes", s->bytes);
}

void lab_ex_fact_str(cJSON *facts, const char *key, const char *s) { cJSON_AddStringToObject(facts, key, s); }

double lab_ex_fact_bytes(const cJSON *facts, const char *key) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(facts, key);
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bytes");
  return cJSON_IsNumber(b) ? b->valuedouble : -1;
}

void lab_ex_format_size(double bytes, char *out, size_t cap) {
  /* c10/cuda/CUDACachingAllocator.cpp format_size: bytes below 1 KiB, else two decimals. */
  if (bytes < 1024) snprintf(out, cap, "%.0f bytes", bytes);
  else if (bytes < 1048576.0) snprintf(out, cap, "%.2f KiB", bytes / 1024);
  else if (bytes < 1073741824.0) snprintf(out, cap, "%.2f MiB", bytes / 1048576.0);
  else snprintf(out, cap, "%.2f GiB", bytes / 1073741824.0);
}

cJSON *lab_ex_bar_new(double total_bytes) {
  char printed[32];
  cJSON *bar = cJSON_CreateObject();
  cJSON_AddNumberToObject(bar, "total_bytes", total_bytes);
  lab_ex_format_size(total_bytes, printed, sizeof printed);
  cJSON_AddStringToObject(bar, "total_printed", printed);
  return bar;
}

void lab_ex_bar_part(cJSON *parts, const char *id, const char *label, double bytes) {
  char printed[32];
  if (bytes < 0) return;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "id", id);
  cJSON_AddStringToObject(p, "label", label);
  cJSON_AddNumberToObject(p, "bytes", bytes);
  lab_ex_format_size(bytes, printed, sizeof printed);
  cJSON_AddStringToObject(p, "printed", printed);
  cJSON_AddItemToArray(parts, p);
}
