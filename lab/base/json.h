/* Strict JSON parsing for input that comes from outside: a request body, a
 * config file, a profile file, a lesson's quiz. cJSON parses recursively, so
 * a body of a thousand '[' overflows a 100 KiB CivetWeb thread stack (or a
 * 64 KiB wasm stack) before cJSON's own limit of 1000 is reached: the
 * nesting is measured first, without recursion, and bounded. */
#ifndef LAB_JSON_H
#define LAB_JSON_H

#include <stddef.h>

#include "cjson_compat.h"

/* Our bodies and files nest a handful of levels; 64 leaves ample room. */
#define LAB_JSON_MAX_DEPTH 64

/* The deepest nesting of arrays and objects in text[0..len), brackets in
 * strings (and escaped quotes) not counted; stops counting once past
 * `limit` and returns limit + 1. Never recursive. */
int lab_json_depth(const char *text, size_t len, int limit);

/* Where the first string of text[0..len) (a key or a value) holds the
 * escape \u0000, or len when none does. cJSON keeps strings as C strings,
 * so "timing\u0000x" would read as "timing": a NUL is refused instead. */
size_t lab_json_nul_escape(const char *text, size_t len);

/* Parses text[0..len) as exactly one JSON value: nesting deeper than
 * max_depth, bytes that are not well-formed UTF-8, a string holding
 * \u0000 (lab_json_nul_escape), or bytes after the value other than
 * whitespace, make it invalid. Returns the value (caller owns, cJSON_Delete), or NULL; when
 * `where` is not NULL it receives the byte offset of the problem. */
cJSON *lab_json_parse(const char *text, size_t len, int max_depth, size_t *where);

#endif
