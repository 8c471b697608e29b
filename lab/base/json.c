/* The nesting pre-scan and the strict parse (see json.h). The scan is a
 * two-state walk (in a string or not) that is linear in the input and uses
 * no stack, so any input is measured safely before cJSON sees it. */
#include "json.h"

#include "utf8.h"

int lab_json_depth(const char *text, size_t len, int limit) {
  int depth = 0, deepest = 0, in_string = 0;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') i++; /* the escaped character cannot end the string */
      else if (c == '"') in_string = 0;
      continue;
    }
    if (c == '"') {
      in_string = 1;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return limit + 1;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

size_t lab_json_nul_escape(const char *text, size_t len) {
  int in_string = 0;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = 0;
    } else if (c == '\\') {
      if (i + 5 < len && (text[i + 1] == 'u') && text[i + 2] == '0' && text[i + 3] == '0' && text[i + 4] == '0' &&
          text[i + 5] == '0')
        return i;
      i++; /* the escaped character (a quote or a backslash) is not read again */
    }
  }
  return len;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

cJSON *lab_json_parse(const char *text, size_t len, int max_depth, size_t *where) {
  if (where) *where = 0;
  if (!text || lab_json_depth(text, len, max_depth) > max_depth) return NULL;
  /* cJSON copies the bytes of a string as they come: invalid UTF-8 would
   * flow into keys, names and error messages, and out again as JSON. */
  size_t bad = 0;
  if (!lab_utf8_valid(text, len, &bad)) {
    if (where) *where = bad;
    return NULL;
  }
  size_t nul = lab_json_nul_escape(text, len);
  if (nul < len) {
    if (where) *where = nul;
    return NULL;
  }
  const char *end = NULL;
  cJSON *json = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!json) {
    /* cJSON_ParseWithLengthOpts sets end to where it stopped on failure. */
    if (where && end && end >= text) *where = (size_t)(end - text);
    return NULL;
  }
  while (end < text + len && is_space(*end)) end++;
  if (end != text + len) {
    if (where) *where = (size_t)(end - text);
    cJSON_Delete(json);
    return NULL;
  }
  return json;
}
