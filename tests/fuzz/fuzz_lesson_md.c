/* libFuzzer: the lesson compiler's Markdown input (tools/lesson_md.c),
 * compiled into a lesson bundle. The file reader and the error printer of
 * tools/lesson_report.c are replaced here: the "file" is the fuzz input,
 * and errors are counted, not printed (they would drown the fuzzer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *input;
static size_t input_len;
static unsigned long reports;

int lesson_report(const char *file, int line, const char *fmt, ...) {
  (void)file, (void)line, (void)fmt;
  reports++;
  return -1;
}

char *lesson_read_file(const char *path, size_t *len) {
  (void)path;
  char *copy = malloc(input_len + 1);
  if (!copy) return NULL;
  memcpy(copy, input, input_len);
  copy[input_len] = 0;
  *len = input_len;
  return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input = data;
  input_len = size;
  cJSON *out = NULL;
  if (lesson_md_compile("fuzz/lesson.md", &out) == 0) {
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(out, "sections"))) abort();
    char *text = cJSON_PrintUnformatted(out);
    if (!text) abort();
    cJSON_free(text);
  } else if (out) {
    abort(); /* a failed compile hands nothing back */
  }
  cJSON_Delete(out);
  return 0;
}
