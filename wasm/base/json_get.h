/* Defensive readers for JSON that came over the network: a wrong type or a
 * missing key reads as "absent", never as a crash. */
#ifndef UI_JSON_GET_H
#define UI_JSON_GET_H

#include <stdbool.h>

#include "cjson_compat.h"

/* The string at key, or NULL when absent, null or not a string. */
const char *ui_json_str(const cJSON *o, const char *key);
/* The same, or "" when absent: for text that is shown as it is. */
const char *ui_json_text(const cJSON *o, const char *key);
/* The number at key into *out; false when absent or not a number. */
bool ui_json_num(const cJSON *o, const char *key, double *out);
/* 1 true, 0 false, -1 absent or not a boolean. */
int ui_json_bool(const cJSON *o, const char *key);
/* The object / array at key, or NULL. */
const cJSON *ui_json_obj(const cJSON *o, const char *key);
const cJSON *ui_json_arr(const cJSON *o, const char *key);

#endif
