/* A growing string for building HTML in C, with escaping. Renderers write
 * trusted markup with ui_buf_raw and every piece of outside text (server
 * JSON, names, messages) with ui_buf_text, so no data can become markup. */
#ifndef UI_HTML_H
#define UI_HTML_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ui_buf {
  char *data; /* NUL-terminated; NULL until the first write */
  size_t len, cap;
  bool failed; /* an allocation failed: the content is incomplete */
} ui_buf;

void ui_buf_init(ui_buf *b);
void ui_buf_free(ui_buf *b);
/* The text so far; "" when empty (never NULL). Owned by b. */
const char *ui_buf_str(const ui_buf *b);

/* Trusted markup, appended as is. */
void ui_buf_raw(ui_buf *b, const char *s);
void ui_buf_rawf(ui_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Untrusted text, escaped for element content and quoted attribute values
 * (& < > " ' become entities). NULL appends nothing. */
void ui_buf_text(ui_buf *b, const char *s);
void ui_buf_textf(ui_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "84.9 GB", "313 kB" from a byte count, at most three significant figures
 * and never an exponent. 1 GB = 1e9 bytes, as every gpulab figure
 * counts (lab findings and bandwidths use the same unit). */
const char *ui_fmt_bytes(double bytes, char buf[32]);

#endif
