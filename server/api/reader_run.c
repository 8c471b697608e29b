/* Reader runs (see reader_run.h): the bounds on an upload, its slots and
 * its budget, for every route that computes on a body. A failure inside
 * the stream (the body, the deadline, the budget, the slot) is kept in
 * the input and answered instead of whatever the reader made of the
 * early end (a trace cut short would otherwise read as doctor_truncated). */
#include "reader_run.h"

#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client_addr.h"
#include "clock.h"
#include "conn_socket.h"
#include "cutoff.h"
#include "hangup.h"
#include "hooks.h"
#include "http.h"
#include "inflight.h"
#include "learner.h"
#include "session.h"

#define HANGUP_LOOK_S 0.1 /* a reader looks at its client at most this often */

struct srv_reader_input {
  const srv_reader_route *route;
  srv_sim_gate *gate;
  srv_body body;
  srv_gate_slot slot;
  int in_slot;
  double deadline_s;  /* the route's, or the tests' (deadline_of) */
  double until_s;     /* the request's deadline (lab_clock_s) */
  double budget_ms;   /* CPU the request may use */
  double cpu_ms;      /* charged so far, for the slots given back */
  double next_look_s; /* when to look at the client again */
  int failed;         /* err holds why the stream ended early */
  lab_error err;
  char *whole;        /* srv_reader_whole's copy of the body */
  srv_app *app;
  const srv_store_session *sess; /* class mode's, else NULL */
};

static _Atomic unsigned long refused[SRV_READER_REFUSALS], cut[SRV_READER_CUTS], linger[SRV_READER_LINGER_ENDS];

void srv_reader_counts_read(srv_reader_counts *out) {
  for (int i = 0; i < SRV_READER_REFUSALS; i++) out->refused[i] = refused[i];
  for (int i = 0; i < SRV_READER_CUTS; i++) out->cut[i] = cut[i];
  for (int i = 0; i < SRV_READER_LINGER_ENDS; i++) out->linger[i] = linger[i];
}

static double thread_cpu_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Tests shorten every route's deadline (GPULAB_TEST_HOOKS=1 and
 * GPULAB_TEST_READER_DEADLINE_S, 1 to 600), to see one pass in seconds. */
static double deadline_of(const srv_reader_route *route) {
  const char *v = getenv("GPULAB_TEST_READER_DEADLINE_S");
  char *end = NULL;
  long s = v ? strtol(v, &end, 10) : 0;
  return srv_test_hooks_enabled() && v && *v && end && !*end && s >= 1 && s <= 600 ? (double)s : route->deadline_s;
}

/* Past the deadline, over the CPU budget, or the client gone: -1 with err. */
static int over(srv_reader_input *in, lab_error *err) {
  double now = lab_clock_s();
  if (now >= in->until_s)
    return lab_fail(err, LAB_E_DEADLINE, NULL,
                    "reading this %s passed the %.0f s one request may take, upload included", in->route->what,
                    in->deadline_s);
  double used = in->cpu_ms + (in->in_slot ? thread_cpu_ms() - in->slot.thread0_ms : 0);
  if (used > in->budget_ms)
    return lab_fail(err, LAB_E_OVER_CPU_BUDGET, NULL, "reading this %s took over %.1f s of this server's CPU, what one "
                    "request may use", in->route->what, in->budget_ms / 1000.0);
  if (now < in->next_look_s) return 0;
  in->next_look_s = now + HANGUP_LOOK_S;
  if (!srv_hung_up()) return 0;
  srv_gate_abandon(in->gate, SRV_RUN_READER);
  return lab_fail(err, LAB_E_CLIENT_GONE, NULL, "the client closed the connection; reading stopped");
}

/* lab/base/cutoff.h's check while the reader runs inside lab/ (between messages). */
static int cutoff(void *ctx, lab_error *err) { return over(ctx, err); }

static int take_slot(srv_reader_input *in, lab_error *err) {
  double retry = 0;
  if (over(in, err)) return -1;
  if (srv_gate_enter(in->gate, SRV_RUN_READER, 0, in->until_s - lab_clock_s(), &in->slot, &retry, err)) return -1;
  in->in_slot = 1;
  return 0;
}

static void give_slot(srv_reader_input *in) {
  if (!in->in_slot) return;
  in->cpu_ms += srv_gate_leave(in->gate, &in->slot, NULL);
  in->in_slot = 0;
}

size_t srv_reader_next(srv_reader_input *in, unsigned char *buf, size_t cap) {
  if (in->failed) return 0;
  give_slot(in);
  long got = -1;
  if (over(in, &in->err) == 0) got = srv_body_fill(&in->body, (char *)buf, cap, &in->err);
  if (got < 0 || take_slot(in, &in->err) != 0) {
    in->failed = 1;
    return 0;
  }
  return (size_t)got;
}

const srv_store_session *srv_reader_session(const srv_reader_input *in) { return in->sess; }

srv_app *srv_reader_app(const srv_reader_input *in) { return in->app; }

int srv_reader_whole(srv_reader_input *in, const char **text, size_t *len, lab_error *err) {
  give_slot(in);
  free(in->whole);
  in->whole = NULL;
  if (srv_body_read_all(&in->body, &in->whole, len, err) != 0 || take_slot(in, err) != 0) return -1;
  *text = in->whole;
  return 0;
}

/* The body was read to its end, or its client was told not to send it
 * (it asked "Expect: 100-continue" and was answered first). */
static int body_done(const srv_body *b) {
  const char *expect = mg_get_header(b->conn, "Expect");
  return b->ended || (b->declared >= 0 && (long long)b->used >= b->declared) ||
         (!b->asked && expect && strcasecmp(expect, "100-continue") == 0);
}

/* Content-Type is one the route takes (a prefix, case aside). */
static int type_taken(const srv_reader_route *route, const char *ct) {
  if (!ct) return !route->type_required;
  for (int i = 0; route->types[i]; i++)
    if (strncasecmp(ct, route->types[i], strlen(route->types[i])) == 0) return 1;
  return 0;
}

/* The refusals a learner can act on say where the same input is read
 * without the server: the page, in the browser, with nothing uploaded. */
static void add_page_hint(const srv_reader_route *route, lab_error *err) {
  if (err->code != LAB_E_BUSY && err->code != LAB_E_REQUEST_TIMEOUT && err->code != LAB_E_DEADLINE &&
      err->code != LAB_E_OVER_CPU_BUDGET && err->code != LAB_E_BODY_TOO_LARGE)
    return;
  size_t n = strlen(err->message);
  snprintf(err->message + n, sizeof err->message - n,
           "; gpulab's page (%s) reads the same %s in your browser, with nothing uploaded", route->page, route->what);
}

/* The in-flight bounds (inflight.h): -1 when a place was taken, else the
 * refusal's reason (0 address, 1 learner, 2 server) with err set. */
static int take_upload(struct mg_connection *conn, srv_app *app, const srv_store_session *sess,
                       char keys[2][SRV_INFLIGHT_KEY_MAX], int *nkeys, lab_error *err) {
  char addr[SRV_ADDR_MAX];
  const char *key_of[2] = {keys[0], keys[1]};
  int max[2] = {SRV_READER_UPLOADS_PER_ADDRESS, SRV_READER_UPLOADS_PER_LEARNER}, total = 0;
  snprintf(keys[0], SRV_INFLIGHT_KEY_MAX, "addr:%s", srv_client_addr(conn, addr));
  snprintf(keys[1], SRV_INFLIGHT_KEY_MAX, "learner:%lld", (long long)sess->learner_id);
  *nkeys = app->cls ? 2 : 1;
  int full = srv_inflight_take(app->reader_uploads, key_of, max, *nkeys);
  if (full < 0) return -1;
  int held = srv_inflight_count(app->reader_uploads, &total);
  if (full == 0)
    lab_fail(err, LAB_E_BUSY, NULL, "%d uploads to be read are in flight from your address already, as many as one "
             "address may send at once; retry when one is answered", SRV_READER_UPLOADS_PER_ADDRESS);
  else if (full == 1)
    lab_fail(err, LAB_E_BUSY, NULL, "you have %d uploads being read already, as many as a learner may; retry when one "
             "is answered", SRV_READER_UPLOADS_PER_LEARNER);
  else
    lab_fail(err, LAB_E_BUSY, NULL, "this server is reading %d uploads, as many as it takes at once; retry in a few "
             "seconds", held > total ? held : total);
  return full;
}

int srv_reader_run(struct mg_connection *conn, srv_app *app, const srv_reader_route *route) {
  if (!srv_method_ok(conn, "POST")) return 405;
  const char *ct = mg_get_header(conn, "Content-Type");
  if (!type_taken(route, ct))
    return srv_send_fail(conn, LAB_E_UNSUPPORTED_MEDIA, NULL, "send the %s as %s; got %.60s", route->what,
                         route->types_text, ct ? ct : "no Content-Type");
  lab_error err = {0};
  srv_store_session sess = {0};
  srv_reader_input in = {.route = route, .gate = app->runner.sim, .app = app, .sess = app->cls ? &sess : NULL};
  char keys[2][SRV_INFLIGHT_KEY_MAX];
  int nkeys = 0, have_upload = 0, why;
  int64_t ticket = 0;
  double retry = 0;
  cJSON *env = NULL;
  in.deadline_s = deadline_of(route);
  in.until_s = lab_clock_s() + in.deadline_s;
  in.budget_ms = in.gate ? in.gate->budget_ms : 0;
  if (app->cls && srv_session_require(conn, app->cls, &sess, &err) != 0) goto answer;
  /* the framing and a declared length past the limit, before anything is held */
  if (srv_body_open(&in.body, conn, route->max_body_bytes, 0, in.deadline_s, &err) != 0) goto answer;
  if (!in.gate || !app->reader_uploads) {
    lab_fail(&err, LAB_E_INTERNAL, NULL, "the server has no bound for reader runs; this is a bug");
    goto answer;
  }
  if ((why = take_upload(conn, app, &sess, keys, &nkeys, &err)) >= 0) {
    refused[why]++;
    goto answer;
  }
  have_upload = 1;
  if (app->cls && srv_learner_sim_admit(app->cls, sess.learner_id, &ticket, &retry, &err) != 0) goto answer;
  in.next_look_s = lab_clock_s() + HANGUP_LOOK_S;
  lab_cutoff_fn old_fn;
  void *old_ctx;
  lab_cutoff_set(cutoff, &in, &old_fn, &old_ctx);
  env = route->read(&in, &err);
  lab_cutoff_set(old_fn, old_ctx, NULL, NULL);
  give_slot(&in);
  if (in.failed) err = in.err; /* the stream's own end, not the reader's view of it */
  if (in.failed || !env) {
    cJSON_Delete(env);
    env = NULL;
  }
answer:;
  int rc;
  /* An upload answered before its end (a cut) lingers, holding its place
   * (the per-address and server bounds count it): a refusal before a place
   * was taken closes at once, as every early answer does. Its socket is
   * known only until the answer starts (conn_socket.h). */
  int linger_fd = have_upload && !body_done(&in.body) ? srv_conn_socket(conn) : -1;
  if (ticket) srv_learner_sim_settle(app->cls, ticket, in.cpu_ms, in.cpu_ms > 0);
  free(in.whole);
  if (env) {
    rc = srv_send_json(conn, route->ok_status ? route->ok_status : 200, env);
    cJSON_Delete(env);
  } else {
    /* the route's own word for it, with its own advice (the page has the same bound) */
    if (err.code == LAB_E_BODY_TOO_LARGE && route->too_large != LAB_E_BODY_TOO_LARGE)
      lab_fail(&err, route->too_large, NULL, NULL);
    if (err.code == LAB_E_DEADLINE) cut[0]++;
    if (err.code == LAB_E_OVER_CPU_BUDGET) cut[1]++;
    add_page_hint(route, &err);
    rc = srv_send_error_retry(conn, &err, retry);
  }
  if (have_upload) {
    srv_linger_end end;
    if (linger_fd >= 0 &&
        srv_conn_linger(conn, linger_fd, (long long)route->max_body_bytes, SRV_READER_LINGER_S, SRV_READER_LINGER_IDLE_S,
                        &end) >= 0 &&
        end < SRV_LINGER_ENDS)
      linger[end]++;
    const char *key_of[2] = {keys[0], keys[1]};
    srv_inflight_give(app->reader_uploads, key_of, nkeys);
  }
  return rc;
}
