/* Renders GET /api/device (or the simulated device envelope's views) for a
 * beginner: every field has a plain label, a missing value says "not
 * reported", and state is given in words and icons, not colour alone. */
#include "gpu_panel.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"

static const char ICON_OK[] =
    "<svg class=\"icon\" viewBox=\"0 0 20 20\" aria-hidden=\"true\" focusable=\"false\">"
    "<circle cx=\"10\" cy=\"10\" r=\"9\"/><path d=\"M5.5 10.5l3 3 6-7\"/></svg>";
/* Neutral: an example from a profile is neither a pass nor a failure. */
static const char ICON_INFO[] =
    "<svg class=\"icon\" viewBox=\"0 0 20 20\" aria-hidden=\"true\" focusable=\"false\">"
    "<circle cx=\"10\" cy=\"10\" r=\"9\"/><path d=\"M10 9v5.5M10 5.5v.5\"/></svg>";
static const char ICON_NO[] =
    "<svg class=\"icon\" viewBox=\"0 0 20 20\" aria-hidden=\"true\" focusable=\"false\">"
    "<circle cx=\"10\" cy=\"10\" r=\"9\"/><path d=\"M6.5 6.5l7 7M13.5 6.5l-7 7\"/></svg>";

const char *ui_profile_short_label(const char *label, char *out, int n) {
  if (n <= 0) return out;
  if (!label) label = "";
  if (strncmp(label, "NVIDIA ", 7) == 0) label += 7;
  const char *paren = strstr(label, " (");
  int len = paren ? (int)(paren - label) : (int)strlen(label);
  snprintf(out, (size_t)n, "%.*s", len, label);
  return out;
}

void ui_render_device_badge(ui_buf *b, const ui_device_state *s) {
  if (!s->views) {
    ui_buf_raw(b, "<span class=\"badge badge-wait\">checking…</span>");
  } else if (s->simulated) {
    ui_buf_raw(b, "<span class=\"badge badge-sim\" title=\"These figures come from a device profile, not from a real GPU\">");
    ui_buf_textf(b, "simulated (profile: %s)", s->profile_label ? s->profile_label : "default");
    ui_buf_raw(b, "</span>");
  } else {
    /* The server answers a view up to 10 s old at once while it checks
     * again, and the last one when a check hangs: both with age_s. */
    double age = 0;
    bool aged = ui_json_num(s->views, "age_s", &age) && age >= 1;
    bool stale = ui_json_bool(s->views, "stale") == 1;
    if (!aged && !stale) {
      ui_buf_raw(b, "<span class=\"badge badge-live\" title=\"These figures were just read from the machine running the gpulab server\">"
                    "<span class=\"dot\" aria-hidden=\"true\"></span>live check</span>");
      return;
    }
    ui_buf_rawf(b, "<span class=\"badge badge-live\" title=\"Read from the machine running the gpulab server %.0f s ago%s\">"
                   "<span class=\"dot\" aria-hidden=\"true\"></span>",
                age, stale ? "; the check since then has not answered yet" : "; it is checking again now");
    ui_buf_textf(b, "%s, %.0f s ago", stale ? "last check" : "live check", age);
    ui_buf_raw(b, "</span>");
  }
}

void ui_render_device_line(const ui_device_state *s, char *out, size_t n) {
  const cJSON *v = ui_json_obj(s->views, "verdict");
  const char *summary = ui_json_str(v, "summary");
  bool usable = ui_json_bool(v, "usable") == 1 && ui_json_bool(v, "simulate") != 1;
  if (!s->views) snprintf(out, n, "asking the gpulab server…");
  else if (s->offline && s->timed_out_s > 0)
    snprintf(out, n, "the server did not answer in %d s — everything is simulated in your browser", s->timed_out_s);
  else if (s->offline) snprintf(out, n, "offline — everything is simulated in your browser");
  else if (s->simulated && s->checking)
    snprintf(out, n, "the server is still checking its GPU — simulated meanwhile");
  else if (s->simulated) snprintf(out, n, "the server could not check its GPU, so everything is simulated");
  else if (usable) snprintf(out, n, "%s — experiments run on it", summary ? summary : "a usable GPU");
  else {
    const char *why = summary ? summary : "no usable GPU";
    if (strncmp(why, "no usable GPU: ", 15) == 0) why += 15; /* the line already says so */
    snprintf(out, n, "no GPU here (%s) — everything is simulated", why);
  }
}

/* One <dt>/<dd> pair; a NULL value reads "not reported". */
static void field(ui_buf *b, const char *label, const char *value) {
  ui_buf_raw(b, "<div class=\"field\"><dt>");
  ui_buf_text(b, label);
  ui_buf_raw(b, "</dt><dd>");
  if (value && value[0]) ui_buf_text(b, value);
  else ui_buf_raw(b, "<span class=\"muted\">not reported</span>");
  ui_buf_raw(b, "</dd></div>");
}

static void field_count(ui_buf *b, const char *label, const cJSON *o, const char *key) {
  double v;
  char text[32];
  if (ui_json_num(o, key, &v) && v >= 0 && v < 1e6) snprintf(text, sizeof text, "%.0f", v);
  else text[0] = '\0';
  field(b, label, text);
}

/* example: the views come from a profile, so the chip is neutral, never a green pass. */
static void state_chip(ui_buf *b, bool ok, bool example, const char *text) {
  if (example) ui_buf_rawf(b, "<p class=\"chip chip-example\">%s<span>", ICON_INFO);
  else ui_buf_rawf(b, "<p class=\"chip %s\">%s<span>", ok ? "chip-ok" : "chip-no", ok ? ICON_OK : ICON_NO);
  ui_buf_text(b, text);
  ui_buf_raw(b, "</span></p>");
}

/* The GPUs a view lists; `full` adds what only the runtime reports. */
static void device_list(ui_buf *b, const cJSON *devices, bool full) {
  const cJSON *d;
  int shown = 0;
  if (!devices || cJSON_GetArraySize(devices) == 0) return;
  ui_buf_raw(b, "<ul class=\"gpu-list\">");
  cJSON_ArrayForEach(d, devices) {
    char mem[32];
    double v;
    if (!cJSON_IsObject(d) || shown >= 16) continue;
    shown++;
    ui_buf_raw(b, "<li><span class=\"gpu-name\">");
    ui_buf_text(b, ui_json_str(d, "name") ? ui_json_str(d, "name") : "unnamed GPU");
    ui_buf_raw(b, "</span><span class=\"gpu-facts\">");
    if (ui_json_num(d, "memory_total_bytes", &v) && v > 0) ui_buf_textf(b, "%s memory", ui_fmt_bytes(v, mem));
    if (full && ui_json_num(d, "memory_free_bytes", &v) && v > 0) ui_buf_textf(b, " (%s free)", ui_fmt_bytes(v, mem));
    if (full && ui_json_str(d, "compute_capability"))
      ui_buf_textf(b, " · compute capability %s", ui_json_str(d, "compute_capability"));
    if (full && ui_json_num(d, "sm_count", &v) && v > 0) ui_buf_textf(b, " · %.0f SMs", v);
    if (!full && ui_json_str(d, "bus_id")) ui_buf_textf(b, " · bus %s", ui_json_str(d, "bus_id"));
    ui_buf_raw(b, "</span></li>");
  }
  ui_buf_raw(b, "</ul>");
}

static const char *driver_source_text(const char *source) {
  if (!source) return NULL;
  if (strcmp(source, "nvml") == 0) return "NVML (the library nvidia-smi uses)";
  if (strcmp(source, "nvidia-smi") == 0) return "the nvidia-smi command";
  if (strcmp(source, "simulated") == 0) return "nothing: an example from a simulated device profile";
  if (strcmp(source, "none") == 0) return "nothing answered (no NVML, no nvidia-smi)";
  return source;
}

static void driver_card(ui_buf *b, const cJSON *drv, bool example) {
  int present = ui_json_bool(drv, "present");
  /* No ids here: the panel is drawn twice on lesson 1 (the page's and the
   * device experiment's), and ids must be unique. */
  ui_buf_rawf(b, "<article class=\"view-card\"><h3>Driver view%s</h3>"
                 "<p class=\"view-sub\">What <code>nvidia-smi</code> and NVML %s</p>",
              example ? " (example)" : "", example ? "would show" : "see");
  state_chip(b, present == 1, example,
             example ? "Example: no driver was asked"
                     : present == 1 ? "The NVIDIA driver answered" : "No NVIDIA driver answered");
  ui_buf_raw(b, "<dl class=\"fields\">");
  field(b, "Asked", driver_source_text(ui_json_str(drv, "source")));
  field(b, "Driver version", ui_json_str(drv, "driver_version"));
  field(b, "Newest CUDA it supports", ui_json_str(drv, "cuda_version"));
  field_count(b, "GPUs it sees", drv, "device_count");
  ui_buf_raw(b, "</dl>");
  device_list(b, ui_json_arr(drv, "devices"), false);
  if (ui_json_str(drv, "error")) {
    ui_buf_raw(b, "<p class=\"card-error\"><span class=\"label\">Why:</span> ");
    ui_buf_text(b, ui_json_str(drv, "error"));
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "</article>");
}

static const char *runtime_status_text(const char *status) {
  if (!status) return "The runtime did not report a status";
  if (strcmp(status, "ok") == 0) return "The CUDA runtime is ready";
  if (strcmp(status, "not_built") == 0) return "This gpulab has no CUDA runtime";
  if (strcmp(status, "insufficient_driver") == 0) return "The runtime needs a (newer) driver";
  if (strcmp(status, "no_device") == 0) return "The runtime found no GPU";
  return "The runtime reported an error";
}

static void runtime_card(ui_buf *b, const cJSON *rt, bool example) {
  const char *status = ui_json_str(rt, "status");
  double count = 0;
  bool ok = status && strcmp(status, "ok") == 0 && ui_json_num(rt, "device_count", &count) && count > 0;
  int built = ui_json_bool(rt, "built_with_cuda");
  ui_buf_rawf(b, "<article class=\"view-card\"><h3>Runtime view%s</h3>"
                 "<p class=\"view-sub\">What a CUDA program %s</p>",
              example ? " (example)" : "", example ? "would be able to use" : "can use");
  state_chip(b, ok, example, example ? "Example: no CUDA runtime was asked" : runtime_status_text(status));
  ui_buf_raw(b, "<dl class=\"fields\">");
  field(b, "Built with CUDA", built == 1 ? "yes" : built == 0 ? "no" : NULL);
  field(b, "Runtime version", ui_json_str(rt, "runtime_version"));
  field(b, "Driver API version",
        ui_json_str(rt, "driver_api_version") ? ui_json_str(rt, "driver_api_version")
                                              : (built == 1 ? "none (no driver answered)" : NULL));
  field_count(b, "GPUs it can use", rt, "device_count");
  ui_buf_raw(b, "</dl>");
  device_list(b, ui_json_arr(rt, "devices"), true);
  if (ui_json_str(rt, "error_name") || ui_json_str(rt, "error_message")) {
    ui_buf_raw(b, "<p class=\"card-error\"><span class=\"label\">Error:</span> ");
    if (ui_json_str(rt, "error_name")) {
      ui_buf_raw(b, "<code>");
      ui_buf_text(b, ui_json_str(rt, "error_name"));
      ui_buf_raw(b, "</code> ");
    }
    ui_buf_text(b, ui_json_str(rt, "error_message"));
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "</article>");
}

static void verdict_banner(ui_buf *b, const ui_device_state *s, const cJSON *v) {
  int usable = ui_json_bool(v, "usable");
  int simulate = ui_json_bool(v, "simulate");
  bool ok = usable == 1;
  const char *summary = ui_json_str(v, "summary");
  ui_buf_rawf(b, "<div class=\"verdict %s\" data-verdict=\"", s->simulated ? "verdict-sim" : ok ? "verdict-ok" : "verdict-no");
  ui_buf_text(b, ui_json_str(v, "code") ? ui_json_str(v, "code") : "unknown");
  ui_buf_rawf(b, "\"><div class=\"verdict-icon\">%s</div><div class=\"verdict-text\"><p class=\"verdict-summary\">",
              s->simulated ? ICON_INFO : ok ? ICON_OK : ICON_NO);
  if (s->simulated) {
    /* what the modelled machine would show, never its "usable" verdict as if checked */
    const cJSON *rt_devs = ui_json_arr(ui_json_obj(s->views, "runtime"), "devices");
    const char *gpu = ui_json_str(cJSON_GetArrayItem(rt_devs, 0), "name");
    ui_buf_raw(b, "<span class=\"sim-prefix\">Simulated example: </span>what a machine with ");
    ui_buf_text(b, gpu ? gpu : "this profile's GPU");
    ui_buf_raw(b, " and a working driver would show");
  } else {
    ui_buf_text(b, summary ? summary : "The server did not say whether the GPU is usable.");
  }
  ui_buf_raw(b, "</p><p class=\"verdict-consequence\">");
  if (s->simulated) ui_buf_raw(b, "No real GPU was asked. The lab will simulate every experiment on this profile.");
  else if (ok && simulate != 1) ui_buf_raw(b, "Experiments run on this GPU for real.");
  else ui_buf_raw(b, "The lab will simulate every experiment.");
  ui_buf_raw(b, "</p>");
  /* A simulated verdict's explanation and advice describe the modelled
   * machine ("nothing to fix"), which would mislead here; the line above says it all. */
  if (s->simulated) {
    ui_buf_raw(b, "</div></div>");
    return;
  }
  if (ui_json_str(v, "explanation")) {
    ui_buf_raw(b, "<p class=\"verdict-explanation\">");
    ui_buf_text(b, ui_json_str(v, "explanation"));
    ui_buf_raw(b, "</p>");
  }
  if (ui_json_str(v, "advice")) {
    ui_buf_raw(b, "<p class=\"verdict-advice\"><span class=\"label\">What to do:</span> ");
    ui_buf_text(b, ui_json_str(v, "advice"));
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "</div></div>");
}

static void findings(ui_buf *b, const cJSON *list, bool simulated) {
  const cJSON *f;
  if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) return;
  ui_buf_rawf(b, "<div class=\"findings\"><h3>What the %s found</h3><ul>",
              simulated ? "simulated check" : "check of this machine");
  cJSON_ArrayForEach(f, list) {
    if (!cJSON_IsString(f)) continue;
    ui_buf_raw(b, "<li>");
    ui_buf_text(b, f->valuestring);
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul></div>");
}

/* How to run the real check on the learner's own machine. */
static void own_check(ui_buf *b) {
  ui_buf_raw(b, "<div class=\"own-check\"><h3>Check your own machine</h3><ul>"
                "<li><code>nvidia-smi</code>: the driver view (driver version, each GPU, its memory).</li>"
                "<li><code>python -c \"import torch; print(torch.cuda.is_available())\"</code>: the runtime view "
                "PyTorch uses; <code>True</code> when a CUDA program can use the GPU.</li>"
                "<li><code>gpulab device</code>: both views and a verdict, as this panel shows them.</li></ul></div>");
}

void ui_render_device_panel(ui_buf *b, const ui_device_state *s) {
  if (!s->views) {
    ui_buf_raw(b, "<p class=\"loading\"><span class=\"spinner\" aria-hidden=\"true\"></span>"
                  "Asking the gpulab server what this machine's GPU can do…</p>");
    return;
  }
  if (s->offline && s->timed_out_s > 0) { /* it took the connection and never answered: a hung server */
    ui_buf_rawf(b, "<div class=\"notice notice-offline\" role=\"note\"><p><strong>The server did not answer in %d s; "
                   "running the simulation in your browser instead.</strong></p><p>It accepted the connection but sent "
                   "nothing back, so this panel shows what a machine with the ", s->timed_out_s);
    ui_buf_text(b, s->profile_label ? s->profile_label : "NVIDIA GPU");
    ui_buf_raw(b, " would report, computed in your browser, and every experiment is simulated. Press Check again to "
                  "ask the server once more.</p></div>");
  } else if (s->offline) {
    ui_buf_raw(b, "<div class=\"notice notice-offline\" role=\"note\"><p><strong>offline — everything will be simulated"
                  "</strong></p><p>The gpulab server could not be reached, so this panel shows what a machine with the ");
    ui_buf_text(b, s->profile_label ? s->profile_label : "NVIDIA GPU");
    ui_buf_raw(b, " would report, computed in your browser.</p></div>");
  } else if (s->note) {
    ui_buf_raw(b, "<div class=\"notice\" role=\"note\"><p><strong>");
    ui_buf_raw(b, s->checking ? "The server is still checking its GPU." : "The server could not check its GPU.");
    ui_buf_raw(b, "</strong> ");
    ui_buf_text(b, s->note);
    ui_buf_raw(b, "</p><p>This panel shows a simulated device instead.</p></div>");
  }
  verdict_banner(b, s, ui_json_obj(s->views, "verdict"));
  ui_buf_raw(b, "<div class=\"views\">");
  driver_card(b, ui_json_obj(s->views, "driver"), s->simulated);
  runtime_card(b, ui_json_obj(s->views, "runtime"), s->simulated);
  ui_buf_raw(b, "</div>");
  if (s->simulated) own_check(b);
  findings(b, s->findings, s->simulated);
  ui_buf_raw(b, "<div class=\"panel-foot\"><p class=\"source\">");
  if (s->simulated) {
    ui_buf_raw(b, "Figures: computed in your browser from the ");
    ui_buf_text(b, s->profile_label ? s->profile_label : "default");
    ui_buf_raw(b, " device profile (public specifications), not measured.");
  } else {
    ui_buf_raw(b, "Figures: read just now by the gpulab server from this machine (<code>GET /api/device</code>).");
  }
  ui_buf_raw(b, "</p><button type=\"button\" class=\"button button-quiet\" data-action=\"recheck\">Check again</button></div>");
}
