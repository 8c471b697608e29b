/* Durations written for a learner: the unit chosen so the number keeps
 * three significant digits and never rounds to zero ("41.2 µs", not
 * "0.00 ms"). Findings and reports quote times through it. */
#ifndef LAB_UNITS_H
#define LAB_UNITS_H

#include <stddef.h>

/* ms milliseconds as "1.25 s", "12.5 ms", "125 µs", "812 ns" (0: "0 ms";
 * NaN or negative: "unknown"). Returns buf. */
const char *lab_fmt_ms(double ms, char *buf, size_t n);
/* The same into a buffer of the calling block's own, like LAB_IEC. */
#define LAB_MS(ms) lab_fmt_ms((double)(ms), (char[24]){0}, 24)

/* A byte count in decimal units, as bandwidths in GB/s count them (1 GB =
 * 1e9 bytes): "512 B", "4.10 kB", "268 MB", "1.07 GB". Returns buf. */
const char *lab_fmt_bytes_si(double bytes, char *buf, size_t n);

/* A byte count in binary units, as memory is counted (1 GiB = 2^30
 * bytes): "512 B", "4.00 KiB", "12.5 MiB", "1.50 GiB". Returns buf. */
const char *lab_fmt_bytes_iec(double bytes, char *buf, size_t n);
/* The same into a buffer of the calling block's own (a compound literal),
 * so one call can format several: printf("%s of %s", LAB_IEC(a), LAB_IEC(b)). */
#define LAB_IEC(bytes) lab_fmt_bytes_iec((double)(bytes), (char[24]){0}, 24)

/* A plain number with three significant digits and no exponent: "0.0123",
 * "4.56", "78.9", "24800". Returns buf. */
const char *lab_fmt_num(double v, char *buf, size_t n);

/* A figure of unknown kind as a person reads it: a whole number whole ("3",
 * "1024"), any other as lab_fmt_num ("770", "0.000000240"), never an
 * exponent ("7.7e+02" from %g); NaN or infinite: "unknown". Returns buf. */
const char *lab_fmt_plain(double v, char *buf, size_t n);
/* The same into a buffer of the calling block's own, like LAB_IEC. */
#define LAB_PLAIN(v) lab_fmt_plain((double)(v), (char[40]){0}, 40)

#endif
