/* device: the driver view beside the runtime view and the verdict, the same
 * panel the page shows for the server's own GPU. */
#include <string.h>

#include "gpu_panel.h"
#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

UI_RESULT_RENDERER(device);

UI_RESULT_RENDERER(device) {
  const char *backend = ui_json_str(env, "backend");
  char label[64];
  ui_device_state s = {.views = ui_json_obj(ui_json_obj(env, "details"), "views"),
                       .findings = NULL, /* the result frame lists them below the panel */
                       .simulated = !backend || (strcmp(backend, "cuda") != 0 && strcmp(backend, "pytorch") != 0),
                       .offline = false};
  if (s.simulated) s.profile_label = ui_res_device_short(env, label, sizeof label);
  if (!s.views) {
    ui_buf_raw(b, "<p>The device check returned no driver and runtime views.</p>");
    return;
  }
  ui_render_device_panel(b, &s);
}
