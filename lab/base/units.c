/* lab_fmt_ms (see units.h): three significant digits in the largest unit
 * the value is at least one of. */
#include "units.h"

#include <math.h>
#include <stdio.h>

const char *lab_fmt_ms(double ms, char *buf, size_t n) {
  static const struct {
    double per_ms;
    const char *unit;
  } units[] = {{1e-3, "s"}, {1, "ms"}, {1e3, "µs"}, {1e6, "ns"}};
  if (!(ms >= 0)) {
    snprintf(buf, n, "unknown");
    return buf;
  }
  if (ms == 0) {
    snprintf(buf, n, "0 ms");
    return buf;
  }
  size_t u = 0;
  while (u + 1 < sizeof units / sizeof units[0] && ms * units[u].per_ms < 1) u++;
  double v = ms * units[u].per_ms;
  snprintf(buf, n, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u].unit);
  return buf;
}

const char *lab_fmt_num(double v, char *buf, size_t n) {
  double a = v < 0 ? -v : v;
  if (a >= 100 || a == 0) snprintf(buf, n, "%.0f", v);
  else if (a >= 10) snprintf(buf, n, "%.1f", v);
  else if (a >= 1) snprintf(buf, n, "%.2f", v);
  else {
    int decimals = 2 - (int)floor(log10(a)); /* three significant digits, no exponent */
    snprintf(buf, n, "%.*f", decimals > 12 ? 12 : decimals, v);
  }
  return buf;
}

const char *lab_fmt_plain(double v, char *buf, size_t n) {
  if (!isfinite(v)) snprintf(buf, n, "unknown");
  else if (v == floor(v) && fabs(v) < 1e15) snprintf(buf, n, "%.0f", v);
  else lab_fmt_num(v, buf, n);
  return buf;
}

const char *lab_fmt_bytes_si(double bytes, char *buf, size_t n) {
  static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
  char num[32];
  size_t u = 0;
  if (!(bytes >= 0)) {
    snprintf(buf, n, "unknown");
    return buf;
  }
  while (u + 1 < sizeof unit / sizeof unit[0] && bytes >= 1000) bytes /= 1000, u++;
  snprintf(buf, n, "%s %s", u == 0 ? (snprintf(num, sizeof num, "%.0f", bytes), num) : lab_fmt_num(bytes, num, sizeof num),
           unit[u]);
  return buf;
}

const char *lab_fmt_bytes_iec(double bytes, char *buf, size_t n) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  char num[32];
  size_t u = 0;
  if (!(bytes >= 0)) {
    snprintf(buf, n, "unknown");
    return buf;
  }
  while (u + 1 < sizeof unit / sizeof unit[0] && bytes >= 1024) bytes /= 1024, u++;
  if (u == 0) snprintf(num, sizeof num, "%.0f", bytes);
  else lab_fmt_num(bytes, num, sizeof num);
  snprintf(buf, n, "%s %s", num, unit[u]);
  return buf;
}
