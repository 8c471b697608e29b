/* The class session in the page (see class_app.h): finds out whether the
 * server runs a class, shows the join form or the session bar in #class,
 * joins and leaves. The session itself is an HttpOnly cookie the browser
 * keeps; this code never sees the token. */
#include "class_app.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "class_session.h"
#include "error.h"
#include "json.h"
#include "json_get.h"
#include "timeouts.h"

#define MOUNT "class"

static struct {
  bool active;        /* the server runs a class */
  char class_name[128];
  cJSON *session;     /* GET /api/session's answer while joined */
  ui_class_join join; /* the form's state */
  char left_note[160];
  bool focus_bar; /* just joined: the bar takes focus from the form it replaced */
  char *join_text;  /* the join request, kept to send again after a 429 */
  int join_tries, join_waited_s;
  char wait_note[160]; /* "trying again in N s" while a 429 is waited out */
  intptr_t gen; /* bumped by shutdown: answers in flight are dropped */
} st;

static void mount(const char *html) {
  ui_dom_set_html(MOUNT, html);
  ui_dom_set_attr(MOUNT, "hidden", NULL);
}

static void render(void) {
  ui_buf b;
  if (!st.active) return;
  ui_buf_init(&b);
  if (!st.session && !st.join.busy) {
    /* a re-drawn form keeps what the learner has typed so far */
    char v[sizeof st.join.name > sizeof st.join.code ? sizeof st.join.name : sizeof st.join.code];
    if (ui_dom_value("class-code", v, sizeof st.join.code) >= 0)
      snprintf(st.join.code, sizeof st.join.code, "%.*s", (int)sizeof st.join.code - 1, v);
    if (ui_dom_value("class-name", v, sizeof st.join.name) >= 0)
      snprintf(st.join.name, sizeof st.join.name, "%.*s", (int)sizeof st.join.name - 1, v);
  }
  if (st.session) {
    ui_render_class_bar(&b, st.session, st.class_name[0] ? st.class_name : NULL);
  } else {
    st.join.class_name = st.class_name[0] ? st.class_name : NULL;
    st.join.note = st.wait_note[0] ? st.wait_note : st.left_note[0] ? st.left_note : NULL;
    ui_render_class_join(&b, &st.join);
  }
  mount(b.failed ? "<p>Out of memory while drawing the class session. Reload the page.</p>" : ui_buf_str(&b));
  ui_buf_free(&b);
}

static void on_session(int status, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != st.gen) return;
  cJSON *j = status ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  const char *code = ui_json_str(ui_json_obj(j, "error"), "code");
  if (status == 200 && ui_json_str(j, "name")) {
    st.active = true;
    cJSON_Delete(st.session);
    st.session = j;
    render();
    if (st.focus_bar) ui_dom_focus("class-bar");
    st.focus_bar = false;
    return;
  }
  if (status == 401 && code && strcmp(code, "no_session") == 0) {
    /* a class server, and this browser has not joined (or its session ended);
     * a form already on the page is left alone, focus and typing included */
    bool form_shown = st.active && !st.session;
    st.active = true;
    cJSON_Delete(st.session);
    st.session = NULL;
    if (!form_shown) render();
  }
  /* 404 (no class on this server), or no answer: the page stays as it is. */
  cJSON_Delete(j);
}

void ui_class_app_refresh(void) { ui_fetch("/api/session", UI_API_TIMEOUT_MS, on_session, (void *)st.gen); }

/* Only a server that says it runs a class is asked for a session: outside
 * class mode the page sends nothing more than before (GET /api/session
 * would answer 404 there). A run answered no_session also reveals a class
 * (ui_class_app_need_session). */
void ui_class_app_health(const cJSON *health) {
  const cJSON *c = ui_json_obj(health, "class");
  const char *name = ui_json_str(c, "name");
  if (!c) return;
  if (name) snprintf(st.class_name, sizeof st.class_name, "%s", name);
  if (!st.active) {
    st.active = true;
    render(); /* the join form at once; the session answer replaces it if this browser has joined */
  }
  ui_class_app_refresh();
}

void ui_class_app_need_session(void) {
  if (!st.active && !st.session) st.active = true; /* a no_session answer proves the class */
  cJSON_Delete(st.session);
  st.session = NULL;
  render();
  ui_dom_focus("class-code");
}

bool ui_class_app_active(void) { return st.active; }

/* A refusal (rate_limited past the per-minute budget, no_session) only
 * means this one was not counted: nothing for the learner to do. Counted,
 * the session is asked again, so the bar's "N simulated" follows. */
static void on_reported(int status, const char *body, size_t len, void *ctx) {
  (void)body, (void)len, (void)ctx;
  if (status == 200) ui_class_app_refresh();
}

void ui_class_app_report_simulated(const char *experiment) {
  if (!st.active || !st.session || !experiment) return;
  cJSON *req = cJSON_CreateObject();
  char *body = req && cJSON_AddStringToObject(req, "experiment", experiment) ? cJSON_PrintUnformatted(req) : NULL;
  cJSON_Delete(req);
  if (body) ui_fetch_post("/api/class/simulated", body, UI_API_TIMEOUT_MS, on_reported, NULL);
  cJSON_free(body);
}

/* ---- join and leave ----------------------------------------------------------- */

static void forget_join(void) {
  free(st.join_text);
  st.join_text = NULL;
  st.join_tries = st.join_waited_s = 0;
  st.wait_note[0] = '\0';
}

static void on_join(int status, const char *body, size_t len, void *ctx);

static void send_join(void *ctx) {
  if ((intptr_t)ctx != st.gen || !st.join_text) return;
  ui_fetch_post("/api/class/join", st.join_text, UI_API_TIMEOUT_MS, on_join, ctx);
}

/* 429: the server is letting others in (a whole class joins in the same
 * minute). The form stays busy and says when it tries again. */
static bool wait_and_retry(void *ctx) {
  int delay = ui_class_join_retry_s(st.join_tries, st.join_waited_s, ui_fetch_retry_after_s());
  if (delay < 0) return false;
  st.join_tries++;
  st.join_waited_s += delay;
  ui_class_join_wait_note(st.wait_note, sizeof st.wait_note, delay);
  st.join.busy = true;
  render();
  ui_later(delay * 1000, send_join, ctx);
  return true;
}

static void on_join(int status, const char *body, size_t len, void *ctx) {
  if ((intptr_t)ctx != st.gen) return;
  if (status == 429 && wait_and_retry(ctx)) return;
  cJSON *j = status > 0 ? lab_json_parse(body, len, LAB_JSON_MAX_DEPTH, NULL) : NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  st.join.busy = false;
  int tries = st.join_tries;
  forget_join();
  if (status == 200) {
    cJSON_Delete(j);
    st.join.code[0] = '\0'; /* nothing typed lingers in the page */
    st.left_note[0] = '\0';
    st.focus_bar = true;
    ui_class_app_refresh(); /* draws the session bar */
    return;
  }
  if (status == 429) {
    snprintf(st.join.form_error, sizeof st.join.form_error, "The class was still busy letting others in after %d "
             "tries; press Join again in a minute.", tries + 1);
  } else if (j && lab_error_from_json(j, &err) == 0) {
    if (err.code == LAB_E_BAD_JOIN_CODE)
      snprintf(st.join.code_error, sizeof st.join.code_error, "That is not this class's join code. Check it with "
                                                              "your instructor.");
    else if (strcmp(err.param, "name") == 0)
      snprintf(st.join.name_error, sizeof st.join.name_error, "%s", err.message);
    else if (strcmp(err.param, "code") == 0)
      snprintf(st.join.code_error, sizeof st.join.code_error, "%s", err.message);
    else
      snprintf(st.join.form_error, sizeof st.join.form_error, "%s", err.message[0] ? err.message : lab_err_advice(err.code));
  } else if (status == UI_FETCH_TIMED_OUT) {
    snprintf(st.join.form_error, sizeof st.join.form_error,
             "The server did not answer in %d s. Check your connection, then press Join again.",
             UI_API_TIMEOUT_MS / 1000);
  } else if (status <= 0) {
    snprintf(st.join.form_error, sizeof st.join.form_error,
             "The server did not answer. Check your connection, then press Join again.");
  } else {
    snprintf(st.join.form_error, sizeof st.join.form_error, "The server answered HTTP %d; press Join again.", status);
  }
  cJSON_Delete(j);
  render();
  ui_dom_focus(st.join.code_error[0] ? "class-code" : st.join.name_error[0] ? "class-name" : "class-join");
}

static void join(void) {
  char code[UI_CLASS_CODE_MAX + 1];
  bool code_ok, name_ok;
  if (st.join.busy) return;
  /* keep what was typed (a value too long for the field's maxlength cannot be in it) */
  if (ui_dom_value("class-code", st.join.code, sizeof st.join.code) < 0) st.join.code[0] = '\0';
  if (ui_dom_value("class-name", st.join.name, sizeof st.join.name) < 0) st.join.name[0] = '\0';
  st.join.form_error[0] = st.left_note[0] = '\0';
  code_ok = ui_class_code_normalise(st.join.code, code, sizeof code, st.join.code_error, sizeof st.join.code_error);
  name_ok = ui_class_name_ok(st.join.name, st.join.name_error, sizeof st.join.name_error);
  if (!code_ok || !name_ok) {
    render();
    ui_dom_focus(code_ok ? "class-name" : "class-code");
    return;
  }
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "code", code);
  cJSON_AddStringToObject(req, "name", st.join.name);
  char *text = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  if (!text) {
    snprintf(st.join.form_error, sizeof st.join.form_error, "Out of memory; reload the page.");
    render();
    return;
  }
  forget_join();
  st.join_text = malloc(strlen(text) + 1);
  if (st.join_text) memcpy(st.join_text, text, strlen(text) + 1);
  cJSON_free(text);
  if (!st.join_text) {
    snprintf(st.join.form_error, sizeof st.join.form_error, "Out of memory; reload the page.");
    render();
    return;
  }
  st.join.busy = true;
  render();
  send_join((void *)st.gen);
}

static void on_leave(int status, const char *body, size_t len, void *ctx) {
  (void)body;
  (void)len;
  if ((intptr_t)ctx != st.gen) return;
  if (status == 200 || status == 204 || status == 401) { /* 401: it had already ended */
    cJSON_Delete(st.session);
    st.session = NULL;
    memset(&st.join, 0, sizeof st.join);
    snprintf(st.left_note, sizeof st.left_note, "You left the class. Join again with the code to run on its GPU.");
    render();
    ui_dom_focus("class-code");
    return;
  }
  ui_dom_set_text("class-leave", status > 0 ? "Leave (failed: press again)" : "Leave (no answer: press again)");
}

bool ui_class_app_action(const char *action, const char *arg) {
  (void)arg;
  if (strcmp(action, "class-join") == 0) join();
  else if (strcmp(action, "class-leave") == 0) ui_fetch_post("/api/class/leave", "{}", UI_API_TIMEOUT_MS, on_leave, (void *)st.gen);
  else return false;
  return true;
}

void ui_class_app_shutdown(void) {
  free(st.join_text);
  cJSON_Delete(st.session);
  intptr_t gen = st.gen;
  memset(&st, 0, sizeof st);
  st.gen = gen + 1;
}
