/* Draws the join form and the session bar (see class.h), and the checks the
 * form makes before it asks the server: the same rules the server applies,
 * so most mistakes are explained without a round trip. */
#include "class_session.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"

/* ---- checks ------------------------------------------------------------------ */

bool ui_class_name_ok(const char *name, char *msg, size_t n) {
  size_t chars = 0;
  bool visible = false;
  const unsigned char *p = (const unsigned char *)(name ? name : "");
  for (; *p; p++) {
    if (*p < 0x20 || *p == 0x7f) {
      snprintf(msg, n, "Your name cannot contain tabs, line breaks or other control characters.");
      return false;
    }
    if ((*p & 0xc0) != 0x80) chars++; /* count code points, not bytes */
    if (*p != ' ') visible = true;
  }
  if (!visible) {
    snprintf(msg, n, "Enter the name your instructor will see, e.g. Ada L.");
    return false;
  }
  if (chars > UI_CLASS_NAME_MAX) {
    snprintf(msg, n, "Your name is %zu characters long; use at most %d.", chars, UI_CLASS_NAME_MAX);
    return false;
  }
  if (msg && n) msg[0] = '\0';
  return true;
}

bool ui_class_code_normalise(const char *typed, char *out, size_t n, char *msg, size_t msg_n) {
  char raw[UI_CLASS_CODE_MAX + 1];
  size_t len = 0, alnum = 0;
  if (n) out[0] = '\0';
  for (const char *p = typed ? typed : ""; *p; p++) {
    char c = *p;
    if (c == ' ' || c == '\t') continue;
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) {
      snprintf(msg, msg_n, "A join code has only letters, digits and a dash, like ABCD-EFGH.");
      return false;
    }
    if (len >= UI_CLASS_CODE_MAX) {
      snprintf(msg, msg_n, "That is longer than a join code; it looks like ABCD-EFGH.");
      return false;
    }
    raw[len++] = c;
    if (c != '-') alnum++;
  }
  raw[len] = '\0';
  if (alnum == 0) {
    snprintf(msg, msg_n, "Enter the join code your instructor gave you, like ABCD-EFGH.");
    return false;
  }
  if (len == 8 && alnum == 8) snprintf(out, n, "%.4s-%.4s", raw, raw + 4);
  else snprintf(out, n, "%s", raw);
  if (msg && msg_n) msg[0] = '\0';
  return true;
}

const char *ui_class_wait_words(double seconds, char *buf, size_t n) {
  if (!(seconds >= 0) || seconds < 5) {
    snprintf(buf, n, "a few seconds");
  } else if (seconds < 90) {
    snprintf(buf, n, "about %d seconds", (int)(seconds + 0.999));
  } else if (seconds < 90 * 60) {
    int m = (int)(seconds / 60 + 0.5);
    snprintf(buf, n, "about %d minute%s", m, m == 1 ? "" : "s");
  } else {
    int h = (int)(seconds / 3600 + 0.5);
    snprintf(buf, n, "about %d hour%s", h, h == 1 ? "" : "s");
  }
  return buf;
}

/* ---- joining a busy class ------------------------------------------------------ */

int ui_class_join_retry_s(int tries, int waited_s, int retry_after_s) {
  int delay = retry_after_s < 0 ? 2 : retry_after_s < 1 ? 1 : retry_after_s > 30 ? 30 : retry_after_s;
  if (tries >= UI_CLASS_JOIN_RETRIES || waited_s + delay > UI_CLASS_JOIN_WAIT_MAX_S) return -1;
  return delay;
}

void ui_class_join_wait_note(char *buf, size_t n, int delay_s) {
  snprintf(buf, n, "The class is busy letting others in; trying again in %d s.", delay_s);
}

/* ---- the join form ----------------------------------------------------------- */

/* One labelled text field with its help and (when set) its error, tied to
 * the input by aria-describedby so a screen reader reads both. */
static void field(ui_buf *b, const char *id, const char *label, const char *value, const char *help,
                  const char *error, const char *attrs) {
  bool bad = error && error[0];
  ui_buf_rawf(b, "<div class=\"class-field%s\"><label for=\"%s\">", bad ? " class-field-bad" : "", id);
  ui_buf_text(b, label);
  ui_buf_rawf(b, "</label><input type=\"text\" id=\"%s\" name=\"%s\" %s aria-describedby=\"%s-help", id, id, attrs, id);
  if (bad) ui_buf_rawf(b, " %s-error\" aria-invalid=\"true", id);
  ui_buf_raw(b, "\" value=\"");
  ui_buf_text(b, value);
  ui_buf_rawf(b, "\"><p class=\"class-help\" id=\"%s-help\">", id);
  ui_buf_text(b, help);
  ui_buf_raw(b, "</p>");
  if (bad) {
    ui_buf_rawf(b, "<p class=\"class-error\" id=\"%s-error\">", id);
    ui_buf_text(b, error);
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "</div>");
}

void ui_render_class_join(ui_buf *b, const ui_class_join *j) {
  ui_buf_raw(b, "<section class=\"panel class-panel class-join\" aria-labelledby=\"class-title\"><p class=\"kicker\">");
  if (j->class_name && j->class_name[0]) {
    ui_buf_raw(b, "Class lab · ");
    ui_buf_text(b, j->class_name);
  } else {
    ui_buf_raw(b, "Class lab");
  }
  ui_buf_raw(b, "</p><h2 id=\"class-title\">Join the class</h2>"
                "<p class=\"class-lede\">This server is shared by a class. Enter the join code your instructor gave "
                "you and the name they will see; your GPU runs and quiz answers are then kept with your session.</p>"
                /* No action or method: the Join button's click (which the browser also fires for Enter in a
                 * field) is handled by the client, so the code never ends up in the address bar. */
                "<form class=\"class-form\" id=\"class-form\" novalidate>");
  field(b, "class-code", "Join code", j->code, "Eight letters and digits, like ABCD-EFGH.", j->code_error,
        "autocomplete=\"off\" autocapitalize=\"characters\" spellcheck=\"false\" maxlength=\"24\" required");
  field(b, "class-name", "Your name", j->name, "1 to 40 characters; your instructor sees it next to your runs.",
        j->name_error, "autocomplete=\"nickname\" spellcheck=\"false\" maxlength=\"40\" required");
  ui_buf_rawf(b, "<div class=\"class-actions\"><button type=\"submit\" class=\"button\" id=\"class-join\" "
                 "data-action=\"class-join\"%s>%s</button>",
              j->busy ? " aria-disabled=\"true\"" : "", j->busy ? "Joining…" : "Join");
  ui_buf_raw(b, "<p class=\"class-form-status\" id=\"class-join-status\" role=\"status\" aria-live=\"polite\">");
  if (j->form_error[0]) {
    ui_buf_raw(b, "<span class=\"class-error\">");
    ui_buf_text(b, j->form_error);
    ui_buf_raw(b, "</span>");
  } else if (j->note && j->note[0]) {
    ui_buf_text(b, j->note);
  }
  ui_buf_raw(b, "</p></div></form><p class=\"class-help\">Without joining you can still read every lesson and run "
                "the experiments simulated in your browser; runs on the class GPU need a session.</p></section>");
}

/* ---- the session bar ----------------------------------------------------------- */

static void seconds_text(ui_buf *b, double s) {
  if (s < 10) ui_buf_rawf(b, "%.1f s", s);
  else if (s < 600) ui_buf_rawf(b, "%.0f s", s);
  else ui_buf_rawf(b, "%.0f min", s / 60);
}

void ui_render_class_bar(ui_buf *b, const cJSON *session, const char *class_name) {
  double used = 0, limit = 0;
  int runs = cJSON_GetArraySize(ui_json_arr(session, "runs"));
  bool have_used = ui_json_num(session, "gpu_seconds_used", &used) && used >= 0;
  bool have_limit = ui_json_num(session, "gpu_seconds_limit", &limit) && limit > 0;
  ui_buf_raw(b, "<section class=\"panel class-panel class-bar\" id=\"class-bar\" tabindex=\"-1\" "
                "aria-label=\"Your class session\">"
                "<div class=\"class-bar-who\"><span class=\"badge badge-live badge-small\">class</span> ");
  if (class_name && class_name[0]) {
    ui_buf_raw(b, "<span class=\"class-bar-class\">");
    ui_buf_text(b, class_name);
    ui_buf_raw(b, "</span> · ");
  }
  ui_buf_raw(b, "<span>Signed in as <strong id=\"class-who\">");
  ui_buf_text(b, ui_json_str(session, "name") ? ui_json_str(session, "name") : "(no name)");
  ui_buf_raw(b, "</strong></span></div><div class=\"class-bar-use\">");
  /* a server with no GPU (mode "cpu", GET /api/session) has no GPU time to
   * spend: the bar says where the runs happen instead of "0.0 s of 300 s" */
  const char *mode = ui_json_str(session, "mode");
  bool no_gpu = mode && strcmp(mode, "cpu") == 0;
  double sims;
  if (no_gpu) {
    ui_buf_raw(b, "<span id=\"class-gpu-time\">Runs are simulated in your browser: this server has no GPU</span>");
    if (ui_json_num(session, "simulated_in_browser", &sims) && sims >= 0)
      ui_buf_rawf(b, "<span class=\"muted\" id=\"class-sims\">%.0f run%s simulated</span>", sims, sims == 1 ? "" : "s");
  } else if (have_used && have_limit) {
    double pct = used / limit * 100;
    if (pct > 100) pct = 100;
    ui_buf_raw(b, "<span id=\"class-gpu-time\">GPU time: ");
    seconds_text(b, used);
    ui_buf_raw(b, " of ");
    seconds_text(b, limit);
    ui_buf_rawf(b, " used</span><meter class=\"class-meter\" min=\"0\" max=\"100\" low=\"70\" high=\"90\" optimum=\"0\" "
                   "value=\"%.0f\" aria-labelledby=\"class-gpu-time\">%.0f %%</meter>",
                pct, pct);
  } else if (have_used) {
    ui_buf_raw(b, "<span id=\"class-gpu-time\">GPU time used: ");
    seconds_text(b, used);
    ui_buf_raw(b, "</span>");
  }
  if (!no_gpu || runs > 0) ui_buf_rawf(b, "<span class=\"muted\">%d run%s</span>", runs, runs == 1 ? "" : "s");
  ui_buf_raw(b, "<button type=\"button\" class=\"button button-quiet\" id=\"class-leave\" data-action=\"class-leave\">"
                "Leave</button></div></section>");
}
