/* Tick placement and tick labels for the charts (see chart_axis.h). */
#include "chart_axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double ui_nice_step(double span, int target) {
  if (target < 2) target = 2;
  if (!(span > 0) || !isfinite(span)) return 1;
  double raw = span / (target - 1);
  double mag = pow(10, floor(log10(raw)));
  double f = raw / mag;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * mag;
}

static bool fit_linear(ui_axis *a, double lo, double hi, int target, bool zero) {
  if (zero && lo > 0) lo = 0;
  if (zero && hi < 0) hi = 0;
  if (hi == lo && lo == 0) { /* all zero: 0 to 1 (a -1..1 % axis suggests values below zero) */
    hi = 1;
  } else if (hi == lo) { /* one value: give it some room */
    double pad = fabs(lo) * 0.5;
    lo -= pad;
    hi += pad;
    if (zero && lo < 0 && hi - pad >= 0) lo = 0;
  }
  double step = ui_nice_step(hi - lo, target);
  a->lo = floor(lo / step + 1e-9) * step;
  a->hi = ceil(hi / step - 1e-9) * step;
  a->n = 0;
  for (double t = a->lo; t <= a->hi + step * 1e-6 && a->n < UI_TICKS_MAX; t += step) {
    double r = fabs(t) < step * 1e-9 ? 0 : t; /* no "-0" or 1e-17 at zero */
    a->tick[a->n++] = r;
  }
  return true;
}

static bool fit_log(ui_axis *a, double lo, double hi, int target, double base) {
  double lb = log(base);
  int e0 = (int)floor(log(lo) / lb + 1e-9), e1 = (int)ceil(log(hi) / lb - 1e-9);
  if (e1 == e0) e1 = e0 + 1;
  /* Every k-th power, k growing (1, 2, 4, …) until the ticks fit the target. */
  int k = 1;
  while ((e1 - e0) / k + 1 > target) k *= 2;
  e0 = (int)floor((double)e0 / k) * k;
  e1 = (int)ceil((double)e1 / k) * k;
  a->lo = pow(base, e0);
  a->hi = pow(base, e1);
  a->n = 0;
  for (int e = e0; e <= e1 && a->n < UI_TICKS_MAX; e += k) a->tick[a->n++] = pow(base, e);
  return true;
}

bool ui_axis_fit(ui_axis *a, ui_scale scale, double dmin, double dmax, int target, bool zero) {
  memset(a, 0, sizeof *a);
  a->scale = scale;
  if (target < 2) target = 2;
  if (target > UI_TICKS_MAX) target = UI_TICKS_MAX;
  if (!isfinite(dmin) || !isfinite(dmax) || dmin > dmax) return false;
  if (scale == UI_SCALE_LINEAR) return fit_linear(a, dmin, dmax, target, zero);
  if (!(dmax > 0)) return false;
  if (!(dmin > 0)) dmin = dmax; /* callers pass the smallest positive value */
  return fit_log(a, dmin, dmax, target, scale == UI_SCALE_LOG2 ? 2 : 10);
}

bool ui_axis_fit_bytes(ui_axis *a, double dmin, double dmax, int target, bool zero) {
  double big = fmax(fabs(dmin), fabs(dmax)), u = 1;
  for (int k = 0; k < 4 && big >= 1024 * u; k++) u *= 1024; /* B … TiB, as fmt() names them */
  if (!ui_axis_fit(a, UI_SCALE_LINEAR, dmin / u, dmax / u, target, zero)) return false;
  a->lo *= u;
  a->hi *= u;
  for (int i = 0; i < a->n; i++) a->tick[i] *= u;
  return true;
}

double ui_axis_frac(const ui_axis *a, double v) {
  if (!isfinite(v) || !(a->hi > a->lo)) return NAN;
  if (a->scale == UI_SCALE_LINEAR) return (v - a->lo) / (a->hi - a->lo);
  if (!(v > 0)) return NAN;
  return (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
}

/* "%.*g" without trailing noise: 0.30000000000000004 prints as 0.3. */
static void num(char *buf, size_t n, double v, int digits) {
  if (fabs(v) < 1e-12) v = 0;
  /* Whole digits are never cut to an exponent: N = 1024 reads "1024", not "1.02e+03". */
  double a = fabs(v);
  if ((a > 0 && a < 1e-4) || a >= 1e15) { /* where %g would write an exponent ("2.4e-07") */
    int decimals = a >= 1 ? 0 : digits - 1 - (int)floor(log10(a));
    snprintf(buf, n, "%.*f", decimals > 15 ? 15 : decimals, v);
    char *end = strchr(buf, '.') ? buf + strlen(buf) : NULL; /* no trailing zeros, as %g writes none */
    while (end && end[-1] == '0') *--end = '\0';
    if (end && end[-1] == '.') end[-1] = '\0';
    return;
  }
  if (a >= 1 && a < 1e15) {
    int whole = (int)floor(log10(a + 0.5)) + 1;
    if (whole > digits) digits = whole;
  }
  snprintf(buf, n, "%.*g", digits, v);
}

static const char *fmt(double v, ui_unit unit, char buf[32], int digits) {
  char n[24];
  double a = fabs(v);
  if (a < 1e-12) { /* zero needs no unit: "0", not "0 µs" */
    snprintf(buf, 32, "0");
    return buf;
  }
  switch (unit) {
    case UI_UNIT_BYTES: {
      static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
      int u = 0;
      while (a >= 1024 && u < 4) {
        a /= 1024;
        v /= 1024;
        u++;
      }
      num(n, sizeof n, v, digits);
      snprintf(buf, 32, "%s %s", n, names[u]);
      return buf;
    }
    case UI_UNIT_US:
      if (a >= 1000) return fmt(v / 1000, UI_UNIT_MS, buf, digits);
      num(n, sizeof n, v, digits);
      snprintf(buf, 32, "%s µs", n);
      return buf;
    case UI_UNIT_MS:
      if (a >= 1000) {
        num(n, sizeof n, v / 1000, digits);
        snprintf(buf, 32, "%s s", n);
      } else if (a > 0 && a < 1) {
        num(n, sizeof n, v * 1000, digits);
        snprintf(buf, 32, "%s µs", n);
      } else {
        num(n, sizeof n, v, digits);
        snprintf(buf, 32, "%s ms", n);
      }
      return buf;
    case UI_UNIT_GB:
      num(n, sizeof n, v, digits);
      snprintf(buf, 32, "%s GB", n);
      return buf;
    case UI_UNIT_GIB:
      num(n, sizeof n, v, digits);
      snprintf(buf, 32, "%s GiB", n);
      return buf;
    case UI_UNIT_PLAIN:
      break;
  }
  if (a >= 1e9 && digits < 6) { /* "8G", not "8000M": at most three figures */
    num(n, sizeof n, v / 1e9, digits);
    snprintf(buf, 32, "%sG", n);
  } else if (a >= 1e6 && digits < 6) {
    num(n, sizeof n, v / 1e6, digits);
    snprintf(buf, 32, "%sM", n);
  } else if (a >= 1e4 && digits < 6) {
    num(n, sizeof n, v / 1e3, digits);
    snprintf(buf, 32, "%sk", n);
  } else {
    num(buf, 32, v, digits);
  }
  return buf;
}

/* A decade below 0.0001 on an axis is "10⁻⁷": "0.0000001" is too wide for a
 * tick and "1e-07" is the exponent notation a learner should not meet. */
static bool small_decade(double v, char buf[32]) {
  static const char *const sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  double a = fabs(v);
  if (!(a > 0 && a < 1e-4)) return false;
  int k = (int)lround(log10(a));
  if (fabs(a / pow(10, k) - 1) > 1e-6 || k < -99) return false;
  snprintf(buf, 32, "%s10⁻%s%s", v < 0 ? "−" : "", -k >= 10 ? sup[-k / 10] : "", sup[-k % 10]);
  return true;
}

const char *ui_fmt_tick(double v, ui_unit unit, char buf[32]) {
  if (unit == UI_UNIT_PLAIN && small_decade(v, buf)) return buf;
  return fmt(v, unit, buf, 3);
}
const char *ui_fmt_value(double v, ui_unit unit, char buf[32]) { return fmt(v, unit, buf, 3); }
