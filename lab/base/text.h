/* Strings built by appending, without printf: a simulation writes its
 * result's labels and method text on every run, and in WebAssembly musl's
 * snprintf (two passes over the format per call) took a third of a small
 * simulation's time. Numbers with a format (%.2f…) still go through printf. */
#ifndef LAB_TEXT_H
#define LAB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Text being written into buf[0..cap): always NUL-terminated (cap > 0);
 * once a piece does not fit it is cut there and `cut` stays true, and
 * nothing more is added, as snprintf-and-stop would leave it. */
typedef struct lab_text {
  char *buf;
  size_t cap, len;
  bool cut;
} lab_text;

void lab_text_init(lab_text *t, char *buf, size_t cap);
/* Appends s (NULL adds nothing). */
void lab_text_add(lab_text *t, const char *s);
/* Appends v in decimal, as "%ld" writes it. */
void lab_text_int(lab_text *t, long v);
/* "PREFIX" i "SUFFIX" into buf[0..n) (a timeline's "kernel 3"); returns buf. */
const char *lab_text_numbered(char *buf, size_t n, const char *prefix, long i, const char *suffix);

#endif
