/* The parts a kit run and a plan run both draw (own_parts.h). */
#include "own_parts.h"

#include <string.h>

#include "json_get.h"

void ui_own_explain_href(ui_buf *b, const char *text, size_t max_bytes) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(text);
  if (n > max_bytes) {
    n = max_bytes;
    while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--; /* not inside a UTF-8 character */
  }
  ui_buf_raw(b, "#explain?text=");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)text[i];
    char one[4] = {(char)c, 0, 0, 0};
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
          c == '.' || c == '~')) {
      one[0] = '%';
      one[1] = hex[c >> 4];
      one[2] = hex[c & 15];
    }
    ui_buf_raw(b, one);
  }
}

void ui_own_reasons(ui_buf *b, const cJSON *list, const char *name_key, const char *(*name_of)(const char *)) {
  const cJSON *x;
  ui_buf_raw(b, "<ul class=\"own-skipped\">");
  cJSON_ArrayForEach(x, list) {
    const char *name = ui_json_text(x, name_key);
    ui_buf_raw(b, "<li><strong>");
    ui_buf_text(b, name_of ? name_of(name) : name);
    ui_buf_raw(b, "</strong>: ");
    ui_buf_text(b, ui_json_text(x, "why"));
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}
