/* The recordings a GPU lease brought back (web/recorded/NAME.json) as the
 * answer to a claim's runs, for claimcheck --recorded DIR: a run is
 * answered when a recording of its experiment was made on a GPU with the
 * same parameters (the lease records each experiment at its defaults). */
#ifndef CLAIMS_RECORDED_H
#define CLAIMS_RECORDED_H

#include <stddef.h>

#include "cjson_compat.h"

/* The recorded envelope for this experiment and these parameters (owned
 * here, valid until claims_recorded_free), or NULL with why in err. */
const cJSON *claims_recorded_env(const char *dir, const char *experiment, const cJSON *params, char *err, size_t n);
void claims_recorded_free(void);

#endif
