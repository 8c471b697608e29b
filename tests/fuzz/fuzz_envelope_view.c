/* libFuzzer: the browser client's reader of a result envelope, compiled
 * natively: the bytes are parsed as the client parses a server's answer
 * (cJSON_ParseWithLength) and rendered by ui_render_result, every chart and
 * table of it. Whatever a server, a recorded file or a man in the middle
 * sends: no crash, no leak, and the HTML is a NUL-terminated string. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "html.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  cJSON *env = cJSON_ParseWithLength((const char *)data + 1, size - 1);
  if (!env) return 0;
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, data[0] & 1, data[0] & 2 ? "the server was not reachable" : NULL);
  if (strlen(ui_buf_str(&b)) != b.len && !b.failed) abort();
  char label[200];
  ui_result_source(env, data[0] & 1, label, sizeof label);
  ui_buf_free(&b);
  cJSON_Delete(env);
  return 0;
}
