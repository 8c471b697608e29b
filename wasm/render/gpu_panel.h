/* The "Your GPU" panel: the driver's view beside the runtime's view, the
 * verdict as a banner, and a badge saying where the figures come from
 * (this machine, live, or a simulated device profile). */
#ifndef UI_GPU_PANEL_H
#define UI_GPU_PANEL_H

#include <stdbool.h>
#include <stddef.h>

#include "cjson_compat.h"
#include "html.h"

typedef struct ui_device_state {
  const cJSON *views;        /* {"driver","runtime","verdict"} as GET /api/device sends; NULL while loading */
  const cJSON *findings;     /* the simulated envelope's findings, or NULL */
  bool simulated;            /* views come from a device profile, not from this machine */
  bool offline;              /* the server could not be reached */
  int timed_out_s;           /* offline because the server did not answer within this many s (0: unreachable) */
  const char *profile_label; /* short profile name ("H100 SXM") when simulated */
  const char *note;          /* why the panel fell back to simulation (server error), or NULL */
  bool checking;             /* with a note: the server's check is still running, and the page asks again */
} ui_device_state;

/* The badge: "live" or "simulated (profile: H100 SXM)". */
void ui_render_device_badge(ui_buf *b, const ui_device_state *s);
/* The one calm line at the top of the page: "no GPU here (the CUDA driver
 * is missing) — everything is simulated", "GPU usable: … — experiments
 * run on it", "offline — …"; the panel is one click away. */
void ui_render_device_line(const ui_device_state *s, char *out, size_t n);
/* The panel body: notices, verdict banner, the two view cards, findings. */
void ui_render_device_panel(ui_buf *b, const ui_device_state *s);
/* "H100 SXM" from "NVIDIA H100 SXM (80 GB HBM3, PCIe Gen5)". */
const char *ui_profile_short_label(const char *label, char *out, int n);

#endif
