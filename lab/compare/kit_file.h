/* A measurement kit file (kit/measure.py --out FILE): where it ran and one
 * result envelope per experiment with "backend": "pytorch". It comes from
 * a learner's machine, so it is read as untrusted input: its size, its
 * JSON, its shape, every envelope, every parameter and every number are
 * checked before anything uses it (docs/measure.md, "The file"). */
#ifndef LAB_KIT_FILE_H
#define LAB_KIT_FILE_H

#include <stddef.h>

#include "error.h"

#define LAB_KIT_MAX_BYTES (1024 * 1024) /* the kit keeps its file under this; a bigger one is refused */
#define LAB_KIT_MAX_STRING 4096         /* bytes in any one text of the file */
#define LAB_KIT_MAX_NAME 200            /* bytes in a device name, a version, a platform */

/* The document, checked (caller frees it); NULL with err: kit_too_large,
 * kit_not_json (not UTF-8 JSON, nested past 64, or cut short) or
 * kit_invalid (the message says which part and what was wrong). */
cJSON *lab_kit_read(const char *text, size_t len, lab_error *err);

/* The file's device: "cuda", "rocm", "mps" or "cpu" (it ran on this). */
const char *lab_kit_kind(const cJSON *kit);
/* Its result envelope for an experiment, or NULL. */
const cJSON *lab_kit_result(const cJSON *kit, const char *experiment);

#endif
