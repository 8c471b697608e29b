/* Bounded scanning over pasted text, shared by the explain recognisers:
 * finding a phrase inside a window, reading the size or word next to it,
 * and adding what was read to an item's facts (printed text and bytes).
 * Every function takes the window's end and never reads past it, and
 * counts the bytes it looks at (lab_ex_examined). */
#ifndef LAB_EXPLAIN_SCAN_H
#define LAB_EXPLAIN_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "cjson_compat.h"

#define LAB_EX_NONE SIZE_MAX

typedef struct lab_ex_size {
  double bytes;
  char printed[32]; /* as the text has it: "20.00 MiB" */
} lab_ex_size;

/* Bytes the functions below (and lab_ex_count) have looked at on this
 * thread so far: the explainer's work, counted without a clock. */
size_t lab_ex_examined(void);
/* A recogniser's own loop over the text counts what it looks at here. */
void lab_ex_count(size_t bytes);

/* lab_explain_size (explain.h): a size as PyTorch prints it, in bytes; -1 when none. */
double lab_ex_parse_size(const char *s, size_t n, size_t *used);
/* Offset of the first `needle` in t[from..end), or LAB_EX_NONE. */
size_t lab_ex_find(const char *t, size_t from, size_t end, const char *needle);
/* lab_ex_find, where a terminal or an editor wrapped the text: up to two line breaks, each standing for
 * one of the needle's spaces or splitting a word; *mend (when given) is where the match ends. */
size_t lab_ex_find_wrapped(const char *t, size_t from, size_t end, const char *needle, size_t *mend);
/* The offset just past the end of the line holding pos (past its '\n'), at most end. */
size_t lab_ex_line_end(const char *t, size_t pos, size_t end);
/* The size right after pos (spaces skipped); 0, or -1 when none. */
int lab_ex_size_after(const char *t, size_t pos, size_t end, lab_ex_size *out);
/* lab_ex_size_after, also reading the older names of the binary units
 * ("18.13 GB", "459.07 MB", "1062 MB": KB, MB, GB, TB, PB as powers of
 * 1024, as PyTorch's MPS allocator printed them before 2.4 and
 * memory_summary() before 1.8); for those messages only. 0, or -1. */
int lab_ex_size_after_binary(const char *t, size_t pos, size_t end, lab_ex_size *out);
/* The size whose unit ends right before pos (spaces skipped, not before lo); 0 or -1. */
int lab_ex_size_before(const char *t, size_t lo, size_t pos, lab_ex_size *out);
/* Copies t[pos..) up to any byte of `stops`, a newline or end (at most cap-1
 * bytes, spaces trimmed, made valid UTF-8); returns its length (0: nothing). */
size_t lab_ex_word(const char *t, size_t pos, size_t end, const char *stops, char *out, size_t cap);
/* The same after the first `needle` in the window; 0 when the needle is absent. */
size_t lab_ex_word_after(const char *t, size_t from, size_t end, const char *needle, const char *stops, char *out,
                         size_t cap);

/* PyTorch's format_size for a size computed here: "512 bytes", "3.21 GiB". */
void lab_ex_format_size(double bytes, char *out, size_t cap);
/* A memory bar of total_bytes: {"total_bytes","total_printed"}, its parts added after. */
cJSON *lab_ex_bar_new(double total_bytes);
/* A part of a memory bar ({"id","label","bytes","printed"}) added to parts; nothing when bytes < 0. */
void lab_ex_bar_part(cJSON *parts, const char *id, const char *label, double bytes);

/* facts[key] = {"printed":"20.00 MiB","bytes":20971520}. */
void lab_ex_fact_size(cJSON *facts, const char *key, const lab_ex_size *s);
/* facts[key] = the string (made valid UTF-8 by the caller's lab_ex_word). */
void lab_ex_fact_str(cJSON *facts, const char *key, const char *s);
/* The bytes of facts[key] (a size), or -1 when absent. */
double lab_ex_fact_bytes(const cJSON *facts, const char *key);

#endif
