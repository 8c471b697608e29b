/* The pieces of the lab report every lesson's report shares (report.c
 * builds lesson 1's, report_generic.c every other lesson's): Markdown escaping, where
 * a figure came from, the device check, the quiz and the sources table. */
#include "report_parts.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "result.h"

/* CommonMark lets any ASCII punctuation be escaped with a backslash; these
 * are the ones that could start markup. Line breaks become spaces, so a
 * value stays inside its table cell or list item. */
void ui_report_md(ui_buf *b, const char *s) {
  char one[3] = {0};
  for (; s && *s; s++) {
    if (*s == '\n' || *s == '\r' || *s == '\t') {
      ui_buf_raw(b, " ");
    } else if (strchr("\\`*_[]<>|#!&~", *s)) {
      one[0] = '\\';
      one[1] = *s;
      ui_buf_raw(b, one);
    } else {
      one[0] = *s;
      one[1] = '\0';
      ui_buf_raw(b, one);
    }
  }
}

const cJSON *ui_report_run(const ui_report_input *in, const char *name) {
  const cJSON *env = ui_json_obj(in->runs, name);
  const char *exp = ui_json_str(env, "experiment");
  return exp && strcmp(exp, name) == 0 && ui_json_obj(env, "metrics") ? env : NULL;
}

const char *ui_report_source(const cJSON *env, char *out, int n) {
  const char *backend = ui_json_str(env, "backend");
  const cJSON *dev = ui_json_obj(env, "device"), *rec = ui_json_obj(env, "recorded");
  const char *name = ui_json_str(dev, "name"), *profile = ui_json_str(dev, "profile");
  if (!backend) snprintf(out, (size_t)n, "unknown");
  else if (strcmp(backend, "cuda") == 0) snprintf(out, (size_t)n, "live (%s)", name ? name : "this machine's GPU");
  else if (strcmp(backend, "pytorch") == 0 || (strcmp(backend, "recorded") == 0 && ui_json_obj(env, "measured_with")))
    ui_result_kit_source(env, strcmp(backend, "recorded") == 0 ? rec : NULL, out, (size_t)n);
  else if (strcmp(backend, "recorded") == 0)
    snprintf(out, (size_t)n, "recorded on %s (%s)", ui_json_str(rec, "device") ? ui_json_str(rec, "device") : name ? name : "a GPU",
             ui_json_str(rec, "date") ? ui_json_str(rec, "date") : "date unknown");
  else if (strcmp(backend, "simulated") == 0) {
    const char *where = ui_json_str(env, "ran_in"); /* stored with the run (experiment_run.c) */
    snprintf(out, (size_t)n, "simulated%s (profile: %s)",
             where && strcmp(where, "browser") == 0  ? " in your browser"
             : where && strcmp(where, "server") == 0 ? " on the gpulab server"
                                                     : "",
             profile ? profile : "default");
  } else snprintf(out, (size_t)n, "%s", backend);
  return out;
}

void ui_report_real_series(ui_buf *b, const cJSON *env) {
  const cJSON *s;
  const char *where = ui_json_str(env, "ran_in");
  bool browser = where && strcmp(where, "browser") == 0;
  cJSON_ArrayForEach(s, ui_json_arr(env, "series")) {
    const char *source = ui_json_str(s, "source"), *label = ui_json_str(s, "label");
    if (!source || (strcmp(source, "measured") && strcmp(source, "computed"))) continue;
    ui_buf_rawf(b, "; %s for real %s: ", source, browser ? "in your browser (one WebAssembly thread)" : "on a CPU");
    ui_report_md(b, label ? label : ui_json_str(s, "id"));
  }
}

/* The title of the lesson section that runs experiment `name`, or NULL. */
const char *ui_report_section_for(const cJSON *lesson, const char *name) {
  const cJSON *s, *e;
  cJSON_ArrayForEach(s, ui_json_arr(lesson, "sections")) {
    cJSON_ArrayForEach(e, ui_json_arr(s, "experiments")) {
      if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return ui_json_str(s, "title");
    }
  }
  return NULL;
}

void ui_report_run_hint(ui_buf *b, const cJSON *lesson, const char *name) {
  const char *where = ui_report_section_for(lesson, name);
  ui_buf_rawf(b, "Run the **%s** experiment", name);
  if (where) {
    ui_buf_raw(b, " (section \"");
    ui_report_md(b, where);
    ui_buf_raw(b, "\")");
  }
  ui_buf_raw(b, ", then download this report again.\n\n");
}

void ui_report_list(ui_buf *b, const char *heading, const cJSON *items) {
  const cJSON *f;
  if (cJSON_GetArraySize(items) == 0) return;
  ui_buf_raw(b, heading);
  ui_buf_raw(b, "\n\n");
  cJSON_ArrayForEach(f, items) {
    if (!cJSON_IsString(f)) continue;
    ui_buf_raw(b, "- ");
    ui_report_md(b, f->valuestring);
    ui_buf_raw(b, "\n");
  }
  ui_buf_raw(b, "\n");
}

void ui_report_findings(ui_buf *b, const cJSON *env) {
  ui_report_list(b, "What the run found:", ui_json_arr(env, "findings"));
}

/* ---- 1. the device check -------------------------------------------------- */

static void device_list(ui_buf *b, const cJSON *devices) {
  const cJSON *d;
  int n = 0;
  cJSON_ArrayForEach(d, devices) {
    ui_buf_raw(b, n++ ? "; " : "");
    ui_report_md(b, ui_json_str(d, "name") ? ui_json_str(d, "name") : "unnamed device");
    if (ui_json_str(d, "compute_capability")) {
      ui_buf_raw(b, " (compute ");
      ui_report_md(b, ui_json_str(d, "compute_capability"));
      ui_buf_raw(b, ")");
    }
  }
  if (n == 0) ui_buf_raw(b, "none");
}

static void device_source(ui_buf *b, const ui_device_state *d) {
  ui_buf_raw(b, "Source: ");
  if (!d->simulated) {
    ui_buf_raw(b, "**live** — read from the machine running the gpulab server.\n\n");
    return;
  }
  ui_buf_raw(b, "**simulated** (profile: ");
  ui_report_md(b, d->profile_label ? d->profile_label : "default");
  ui_buf_raw(b, d->offline ? ") — the gpulab server could not be reached, so the browser simulated the check.\n\n"
                           : ") — the server's device check failed, so the browser simulated it.");
  if (!d->offline && d->note) {
    ui_buf_raw(b, " ");
    ui_report_md(b, d->note);
  }
  if (!d->offline) ui_buf_raw(b, "\n\n");
}

void ui_report_device_section(ui_buf *b, const ui_device_state *d) {
  const cJSON *drv = ui_json_obj(d ? d->views : NULL, "driver"), *rt = ui_json_obj(d ? d->views : NULL, "runtime");
  const cJSON *v = ui_json_obj(d ? d->views : NULL, "verdict");
  ui_buf_raw(b, "## 1. Device check: the driver's view and the runtime's view\n\n");
  if (!d || !d->views) {
    ui_buf_raw(b, "_The device check had not finished when this report was made._ Wait for the \"Server GPU\" panel, "
                  "then download the report again.\n\n");
    return;
  }
  device_source(b, d);
  ui_buf_raw(b, "| | Driver view (nvidia-smi / NVML) | Runtime view (CUDA runtime) |\n|---|---|---|\n| Answered | ");
  if (ui_json_bool(drv, "present") == 1) {
    ui_buf_raw(b, "yes, via ");
    ui_report_md(b, ui_json_str(drv, "source") ? ui_json_str(drv, "source") : "the driver");
  } else {
    ui_buf_raw(b, "no driver answered");
  }
  ui_buf_raw(b, " | ");
  ui_report_md(b, ui_json_str(rt, "status") ? ui_json_str(rt, "status") : "unknown");
  ui_buf_raw(b, ui_json_bool(rt, "built_with_cuda") == 0 ? " (built without CUDA)" : "");
  ui_buf_raw(b, " |\n| Version | driver ");
  ui_report_md(b, ui_json_str(drv, "driver_version") ? ui_json_str(drv, "driver_version") : "none");
  ui_buf_raw(b, ", CUDA ");
  ui_report_md(b, ui_json_str(drv, "cuda_version") ? ui_json_str(drv, "cuda_version") : "none");
  ui_buf_raw(b, " | runtime ");
  ui_report_md(b, ui_json_str(rt, "runtime_version") ? ui_json_str(rt, "runtime_version") : "none");
  ui_buf_raw(b, " |\n| GPUs seen | ");
  device_list(b, ui_json_arr(drv, "devices"));
  ui_buf_raw(b, " | ");
  device_list(b, ui_json_arr(rt, "devices"));
  ui_buf_raw(b, " |\n| Error | ");
  ui_report_md(b, ui_json_str(drv, "error") ? ui_json_str(drv, "error") : "none");
  ui_buf_raw(b, " | ");
  if (ui_json_str(rt, "error_name")) {
    ui_report_md(b, ui_json_str(rt, "error_name"));
    ui_buf_raw(b, ": ");
  }
  ui_report_md(b, ui_json_str(rt, "error_message") ? ui_json_str(rt, "error_message") : ui_json_str(rt, "error_name") ? "" : "none");
  /* A simulated verdict describes the modelled machine: it never claims a
   * GPU ("**Verdict:** usable GPU: …" read as a real one), so it comes after
   * what it is, and its explanation and advice ("nothing to fix") are left out. */
  if (d->simulated) {
    ui_buf_raw(b, " |\n\n**Simulated:** no real GPU was asked; every experiment was simulated. A machine with the ");
    ui_report_md(b, d->profile_label ? d->profile_label : "default profile");
    ui_buf_raw(b, " would report: ");
    ui_report_md(b, ui_json_str(v, "summary") ? ui_json_str(v, "summary") : "no verdict");
    ui_buf_raw(b, ".\n\n");
    return;
  }
  ui_buf_raw(b, " |\n\n**Verdict:** ");
  ui_report_md(b, ui_json_str(v, "summary") ? ui_json_str(v, "summary") : "no verdict");
  ui_buf_raw(b, " (");
  ui_report_md(b, ui_json_str(v, "code") ? ui_json_str(v, "code") : "unknown");
  ui_buf_raw(b, ui_json_bool(v, "usable") == 1 && ui_json_bool(v, "simulate") != 1
                    ? "). Experiments run on this GPU for real.\n\n"
                    : "). The lab simulates the experiments.\n\n");
  if (ui_json_str(v, "explanation")) {
    ui_report_md(b, ui_json_str(v, "explanation"));
    ui_buf_raw(b, "\n\n");
  }
  if (ui_json_str(v, "advice")) {
    ui_buf_raw(b, "What to do: ");
    ui_report_md(b, ui_json_str(v, "advice"));
    ui_buf_raw(b, "\n\n");
  }
}

/* ---- 4. quiz, sources ------------------------------------------------------ */

static void attempt_line(ui_buf *b, const char *what, const ui_attempt *a) {
  ui_buf_rawf(b, "- %s: %s, %d of %d right", what, a->passed ? "passed" : "not passed", a->score, a->total);
  if (a->date[0]) {
    ui_buf_raw(b, ", ");
    ui_report_md(b, a->date);
  }
  ui_buf_raw(b, a->offline ? " (scored offline, in the browser)\n" : " (scored by the gpulab server)\n");
}

void ui_report_quiz_section(ui_buf *b, const ui_progress *p, int number) {
  ui_buf_rawf(b, "## %d. Quiz\n\n", number);
  if (!p || !p->best.set) {
    ui_buf_raw(b, "_Not taken yet._ Answer the quiz at the end of the lesson, then download this report again.\n\n");
    return;
  }
  attempt_line(b, "Best attempt", &p->best);
  attempt_line(b, "Last attempt", &p->last);
  ui_buf_rawf(b, "- Attempts: %d\n\n", p->attempts);
}

void ui_report_sources_start(ui_buf *b, const ui_device_state *d) {
  ui_buf_raw(b, "## Where every figure comes from\n\n| Figure | Source |\n|---|---|\n| Device check | ");
  if (!d || !d->views) ui_buf_raw(b, "not finished");
  else if (!d->simulated) ui_buf_raw(b, "live");
  else {
    ui_buf_raw(b, "simulated (profile: ");
    ui_report_md(b, d->profile_label ? d->profile_label : "default");
    ui_buf_raw(b, ")");
  }
  ui_buf_raw(b, " |\n");
}

void ui_report_sources_end(ui_buf *b, const ui_progress *p) {
  ui_buf_raw(b, "| Quiz | ");
  if (!p || !p->last.set) ui_buf_raw(b, "not taken yet");
  else ui_buf_raw(b, p->last.offline ? "scored offline in the browser" : "scored by the gpulab server");
  ui_buf_raw(b, " |\n\n**live**: measured just now on the machine running gpulab. **recorded**: a real GPU run saved "
                "earlier and replayed. **simulated**: computed from a device profile's model, in your browser or on "
                "the gpulab server — a teaching estimate, not a measurement; a line **measured** or **computed for "
                "real** inside a simulated run (a CPU timing, a real training loss) is named beside it.\n");
}

void ui_report_mixed_note(ui_buf *b, const cJSON *const *envs, int n) {
  char first[200] = "", src[200];
  const char *first_prof = NULL;
  bool mixed_src = false, mixed_prof = false;
  for (int i = 0; i < n; i++) {
    if (!envs[i]) continue;
    const char *prof = ui_json_str(ui_json_obj(envs[i], "device"), "profile");
    ui_report_source(envs[i], src, sizeof src);
    if (!first[0]) {
      snprintf(first, sizeof first, "%s", src);
      first_prof = prof;
      continue;
    }
    mixed_src = mixed_src || strcmp(first, src) != 0;
    mixed_prof = mixed_prof || (prof && first_prof && strcmp(prof, first_prof) != 0);
  }
  if (mixed_prof)
    ui_buf_raw(b, "\n**Note:** these sections come from different device profiles, so their numbers describe "
                  "different GPUs; compare them with care.\n");
  else if (mixed_src)
    ui_buf_raw(b, "\n**Note:** these sections mix sources (live, recorded, simulated, in the browser or on the "
                  "server); each section says which.\n");
}

