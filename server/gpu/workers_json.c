/* The workers as the API shows them (see workers_json.h). */
#include "workers_json.h"

#include "cjson_compat.h"

static int alive(const cJSON *w) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "alive")); }

/* ["name", …] of a device view's runtime devices. */
static cJSON *device_names(const cJSON *device) {
  cJSON *names = cJSON_CreateArray();
  const cJSON *rt = cJSON_GetObjectItemCaseSensitive(device, "runtime"), *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(rt, "devices")) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
    if (cJSON_IsString(name)) cJSON_AddItemToArray(names, cJSON_CreateString(name->valuestring));
  }
  return names;
}

cJSON *srv_workers_brief(const cJSON *list, int alive_only) {
  cJSON *out = cJSON_CreateArray();
  const cJSON *w;
  cJSON_ArrayForEach(w, list) {
    if (!out) break;
    if (alive_only && !alive(w)) continue;
    cJSON *b = cJSON_Duplicate(w, 1);
    if (!b) {
      cJSON_Delete(out);
      return NULL;
    }
    cJSON *device = cJSON_DetachItemFromObjectCaseSensitive(b, "device");
    cJSON_AddItemToObject(b, "devices", device_names(device));
    cJSON_Delete(device);
    cJSON_AddItemToArray(out, b);
  }
  return out;
}

cJSON *srv_workers_device(const cJSON *list) {
  const cJSON *w, *found = NULL;
  cJSON_ArrayForEach(w, list) {
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(w, "device");
    /* A worker that found its GPU unusable since it registered takes no runs: not its old view. */
    if (!alive(w) || !cJSON_IsObject(device) || cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(w, "usable")))
      continue;
    const cJSON *usable = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(device, "verdict"), "usable");
    if (!found || cJSON_IsTrue(usable)) found = device;
    if (cJSON_IsTrue(usable)) break;
  }
  return found ? cJSON_Duplicate(found, 1) : NULL;
}

const char *srv_workers_unusable_reason(const cJSON *list) {
  const cJSON *w;
  cJSON_ArrayForEach(w, list) {
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(w, "unusable_reason");
    if (alive(w) && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(w, "usable")) && cJSON_IsString(reason))
      return reason->valuestring;
  }
  return NULL;
}
