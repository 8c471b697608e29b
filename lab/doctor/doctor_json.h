/* A small streaming (SAX) JSON reader for `gpulab doctor`: bytes are fed in
 * chunks of any size and each key, value and bracket is handed to callbacks
 * as it completes, so a trace of any size is read in bounded memory (one
 * token at most LAB_DJ_MAX_TOKEN bytes, nesting at most LAB_DJ_MAX_DEPTH). */
#ifndef LAB_DOCTOR_JSON_H
#define LAB_DOCTOR_JSON_H

#include <stddef.h>

#define LAB_DJ_MAX_TOKEN (64 * 1024)
#define LAB_DJ_MAX_DEPTH 64

typedef enum { LAB_DJ_OK, LAB_DJ_SYNTAX, LAB_DJ_NONFINITE, LAB_DJ_TOO_LONG, LAB_DJ_TOO_DEEP, LAB_DJ_NOMEM, LAB_DJ_STOP } lab_dj_status;

typedef struct lab_dj_sink {
  void *ctx;
  /* each returns 0 to go on, nonzero to stop the reader (LAB_DJ_STOP) */
  int (*open)(void *ctx, int is_object);
  int (*close)(void *ctx, int is_object);
  int (*key)(void *ctx, const char *s, size_t n);
  int (*string)(void *ctx, const char *s, size_t n);
  int (*number)(void *ctx, double v);
  int (*literal)(void *ctx, int which); /* 0 null, 1 true, 2 false */
} lab_dj_sink;

typedef struct lab_dj lab_dj;

lab_dj *lab_dj_new(const lab_dj_sink *sink);
void lab_dj_free(lab_dj *j);
/* Feeds the next bytes; LAB_DJ_OK or the first failure (sticky). */
lab_dj_status lab_dj_feed(lab_dj *j, const char *buf, size_t n);
/* The input ended: LAB_DJ_OK only if exactly one whole value was read. */
lab_dj_status lab_dj_end(lab_dj *j);
/* Bytes consumed so far (where a failure happened). */
size_t lab_dj_offset(const lab_dj *j);

#endif
