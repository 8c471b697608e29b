/* Queue status, end of a run and refusals on a class server (see
 * class_run.h). Every field comes from the network, so each is read with
 * the defensive json_get readers: a missing or odd field reads as absent. */
#include "class_run.h"

#include <stdio.h>
#include <string.h>

#include "class_session.h"
#include "envelope.h"
#include "json_get.h"

const cJSON *ui_class_run_obj(const cJSON *answer) {
  const cJSON *run = ui_json_obj(answer, "run");
  return run ? run : answer;
}

bool ui_class_run_id(const cJSON *run, char *buf, size_t n) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(ui_class_run_obj(run), "id");
  if (n) buf[0] = '\0';
  if (cJSON_IsNumber(id) && id->valuedouble >= 0 && id->valuedouble < 9e15) {
    snprintf(buf, n, "%.0f", id->valuedouble);
    return buf[0] != '\0';
  }
  if (!cJSON_IsString(id) || !id->valuestring[0] || strlen(id->valuestring) >= n || strlen(id->valuestring) > 64)
    return false;
  for (const char *p = id->valuestring; *p; p++) {
    bool ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_';
    if (!ok) return false; /* it goes into a URL: nothing that could change its meaning */
  }
  snprintf(buf, n, "%s", id->valuestring);
  return true;
}

/* "about 20 s" / "about 3 min": the queue's estimate, short enough for a status line. */
static const char *short_wait(double s, char *buf, size_t n) {
  if (s < 1) snprintf(buf, n, "less than a second");
  else if (s < 90) snprintf(buf, n, "about %d s", (int)(s + 0.5));
  else snprintf(buf, n, "about %d min", (int)(s / 60 + 0.5));
  return buf;
}

static bool is(const cJSON *run, const char *status) {
  const char *s = ui_json_str(run, "status");
  return s && strcmp(s, status) == 0;
}

const char *ui_class_run_line(const cJSON *run, char *buf, size_t n) {
  double pos = 0, est = -1, progress = -1;
  char wait[48];
  bool have_pos = ui_json_num(run, "position", &pos) && pos >= 1;
  bool have_est = ui_json_num(run, "estimate_s", &est) && est >= 0;
  if (is(run, "queued")) {
    if (have_pos && pos < 2) snprintf(buf, n, "Queued — next in line");
    else if (have_pos) snprintf(buf, n, "Queued — position %.0f", pos);
    else snprintf(buf, n, "Queued");
    if (have_est) {
      size_t len = strlen(buf);
      snprintf(buf + len, n - len, ", %s", short_wait(est, wait, sizeof wait));
    }
  } else if (is(run, "running")) {
    if (ui_json_num(run, "progress", &progress) && progress > 0 && progress <= 1)
      snprintf(buf, n, "Running on the class GPU… %.0f %%", progress * 100);
    else snprintf(buf, n, "Running on the class GPU…");
  } else if (is(run, "done")) {
    snprintf(buf, n, "Done");
  } else if (is(run, "cancelled")) {
    snprintf(buf, n, "Cancelled");
  } else if (is(run, "failed")) {
    snprintf(buf, n, "Failed");
  } else {
    snprintf(buf, n, "Waiting for the class server…");
  }
  return buf;
}

void ui_render_class_run(ui_buf *b, const cJSON *run, const char *experiment, const char *note) {
  char line[160];
  double progress = -1;
  bool queued = is(run, "queued");
  ui_class_run_line(run, line, sizeof line);
  ui_buf_rawf(b, "<div class=\"class-run class-run-%s\">", queued ? "queued" : "running");
  ui_buf_raw(b, "<p class=\"class-run-line\"><span class=\"spinner\" aria-hidden=\"true\"></span><span>");
  ui_buf_text(b, line);
  ui_buf_raw(b, "</span>");
  if (queued) {
    ui_buf_raw(b, "<button type=\"button\" class=\"button button-quiet\" data-action=\"class-cancel\" data-arg=\"");
    ui_buf_text(b, experiment);
    ui_buf_raw(b, "\">Cancel</button>");
  }
  ui_buf_raw(b, "</p>");
  if (!queued && ui_json_num(run, "progress", &progress) && progress >= 0 && progress <= 1)
    ui_buf_rawf(b, "<progress class=\"class-progress\" max=\"100\" value=\"%.0f\" aria-label=\"Progress of the run\">"
                   "%.0f %%</progress>",
                progress * 100, progress * 100);
  ui_buf_raw(b, "<p class=\"class-help\">");
  if (queued)
    ui_buf_raw(b, "The class shares one GPU, so runs take turns: one learner's runs never hold up everyone else's. "
                  "The result appears here when it is done; you can keep reading meanwhile.");
  else
    ui_buf_raw(b, "Your run has the GPU to itself now, so its timings are not disturbed by anyone else's.");
  ui_buf_raw(b, "</p>");
  if (note && note[0]) {
    ui_buf_raw(b, "<p class=\"class-run-note\">");
    ui_buf_text(b, note);
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "</div>");
}

/* The error a failed run carries: {"error":{…}} beside the status, an error
 * envelope as its result, or only an error_code. */
static void run_error(const cJSON *run, lab_error *err) {
  const char *code = ui_json_str(run, "error_code");
  if (lab_error_from_json(run, err) == 0 || lab_error_from_json(ui_json_obj(run, "result"), err) == 0) return;
  lab_err e = code ? lab_err_from_code(code) : LAB_E_INTERNAL;
  if (code && e != LAB_E_INTERNAL) lab_fail(err, e, NULL, "The run failed (%s). %s", code, lab_err_advice(e));
  else lab_fail(err, LAB_E_INTERNAL, NULL, "The run failed on the class server without saying why. Run it again.");
}

int ui_class_run_end(const cJSON *run, cJSON **env, lab_error *err) {
  *env = NULL;
  if (is(run, "done")) {
    const cJSON *result = ui_json_obj(run, "result");
    lab_error check;
    memset(&check, 0, sizeof check);
    if (result && lab_envelope_check(result, &check) == 0) {
      *env = cJSON_Duplicate(result, 1);
      if (*env) return 1;
      lab_fail(err, LAB_E_NOMEM, NULL, "Out of memory while keeping the result; reload the page.");
      return -1;
    }
    lab_fail(err, LAB_E_INTERNAL, NULL, "The class server said the run is done but sent no valid result (%s).",
             check.message[0] ? check.message : "no result");
    return -1;
  }
  if (is(run, "cancelled")) {
    lab_fail(err, LAB_E_BAD_REQUEST, NULL, "The run was cancelled before it started; press Run to queue it again.");
    return -1;
  }
  if (is(run, "failed")) {
    run_error(run, err);
    return -1;
  }
  return 0;
}

bool ui_class_refusal(int status, const cJSON *answer, lab_error *err) {
  static const char *const class_codes[] = {"no_session", "rate_limited", "quota_exceeded", "queue_full",
                                            "store_busy", "store_unavailable"};
  const cJSON *e = ui_json_obj(answer, "error");
  const char *code = ui_json_str(e, "code");
  bool known = false;
  double retry = -1;
  char wait[48], text[sizeof err->message];
  if (status < 400 || !code) return false;
  for (size_t i = 0; i < sizeof class_codes / sizeof class_codes[0]; i++) known = known || strcmp(code, class_codes[i]) == 0;
  if (!known || lab_error_from_json(answer, err) != 0) return false;
  snprintf(text, sizeof text, "%s", err->message[0] ? err->message : lab_err_advice(err->code));
  if (ui_json_num(e, "retry_after_s", &retry) || ui_json_num(e, "retry_after", &retry)) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, " Try again in %s.", ui_class_wait_words(retry, wait, sizeof wait));
  }
  if (strcmp(code, "no_session") == 0) {
    snprintf(text, sizeof text, "Join the class (at the top of the page) to run experiments on its GPU.");
  }
  if (strcmp(code, "store_busy") != 0 && strcmp(code, "store_unavailable") != 0) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, " Meanwhile you can run it simulated in your browser: pick a device "
                                            "profile under \"Run on\".");
  }
  snprintf(err->message, sizeof err->message, "%s", text);
  err->param[0] = '\0'; /* a limit is never one field's fault */
  return true;
}

int ui_class_poll_delay_ms(int polls, int failures) {
  int ms = UI_CLASS_POLL_MS;
  if (polls > 10) ms = UI_CLASS_POLL_MS + (polls - 10) * 250; /* a long queue: ask less often */
  if (ms > 5000) ms = 5000;
  for (int i = 0; i < failures && ms < 10000; i++) ms *= 2;
  return ms > 10000 ? 10000 : ms;
}
