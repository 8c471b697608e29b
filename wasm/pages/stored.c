/* localStorage values read whole (stored.h): one try at a common size,
 * then one at the length the first try reported. */
#include "stored.h"

#include <stdlib.h>

#include "bridge.h"

char *ui_stored_read(const char *key, size_t max) {
  size_t cap = 4096;
  for (int tries = 0; tries < 2; tries++) {
    char *buf = malloc(cap);
    if (!buf) return NULL;
    int n = ui_storage_get(key, buf, cap);
    if (n < 0) {
      free(buf);
      return NULL;
    }
    if ((size_t)n < cap) return buf;
    free(buf);
    if ((size_t)n >= max) return NULL;
    cap = (size_t)n + 1;
  }
  return NULL;
}
