/* One include for cJSON: the system header natively, cJSON's own source
 * (third_party/cjson) under emcc. The Makefile sets the include path. */
#ifndef LAB_CJSON_COMPAT_H
#define LAB_CJSON_COMPAT_H
#ifdef GPULAB_CJSON_LOCAL
#include "cJSON.h"
#else
#include <cjson/cJSON.h>
#endif
#endif
