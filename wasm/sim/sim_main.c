/* The simulation module's entry points: built on its own (gpulab_sim.js and
 * .wasm) and run in a Web Worker (web/sim_worker.js), so the page's first
 * screen loads without the simulators and a simulation never blocks the
 * page. One call per run, or per kit file the page imports (#yours: the
 * comparison needs the simulators); its text is read with gpulab_sim_text. */
#include <emscripten.h>
#include <stdlib.h>

#include "kit_run.h"
#include "sim_run.h"

static char *last; /* the latest run's JSON text */

EMSCRIPTEN_KEEPALIVE int gpulab_sim_run(const char *experiment, const char *params_json, const char *profile,
                                        const char *profile_json) {
  free(last);
  last = NULL;
  return ui_sim_run(experiment, params_json, profile, profile_json, &last);
}

EMSCRIPTEN_KEEPALIVE const char *gpulab_sim_text(void) { return last ? last : ""; }

/* bytes: the file's (NULL when it was not read: size past the kit's
 * bound), claims: the text of /lessons/claims.json or "". */
EMSCRIPTEN_KEEPALIVE int gpulab_kit_compare(const char *bytes, int size, const char *claims) {
  free(last);
  last = NULL;
  return ui_kit_run(bytes, size > 0 ? (size_t)size : 0, claims, &last);
}
