/* Reader runs: a route that takes a body to compute on (POST /api/explain,
 * /api/doctor, and any later one) is a run. Its upload is bounded like the
 * connections are: at most SRV_READER_UPLOADS_PER_ADDRESS in flight from
 * one client address, SRV_READER_UPLOADS_PER_LEARNER per learner in class
 * mode, and a quarter of the server's threads for all of them together,
 * so uploads never hold the threads that health, joins and runs need; its
 * body must arrive whole within the route's deadline (not only at a
 * minimum rate), and is read as it arrives (memory for what is being read,
 * not for what was promised). Its work takes the simulation gate's slots
 * (sim_gate.h: a reader at most reader_slots of them, busy past them, none
 * held while the body arrives), stops at the route's deadline and at the
 * server's CPU budget (--sim-cpu-budget-ms, measured as the work runs:
 * between chunks, and inside lab/ between messages through lab/base/cutoff.h),
 * and stops when its client hangs up. In class mode it needs a session
 * and is charged to the learner like a simulated run. Every refusal says
 * that the page reads the same input in the browser with nothing
 * uploaded. Adding a route is one srv_reader_route and one call. A reader
 * that keeps what it read for the class (a kit run handed in) stores it in
 * its slot through the request's session (srv_reader_session).
 * An upload answered before its body ended (cut over the CPU budget, the
 * deadline, too large) is closed lingering (conn_socket.h): the answer
 * with Connection: close, the write side shut, and what the client still
 * sends read and dropped for at most SRV_READER_LINGER_S seconds (or the
 * route's largest upload, or SRV_READER_LINGER_IDLE_S without a byte),
 * its place in the bounds above held meanwhile; without it the close
 * resets a connection still sending, and the client (a browser's fetch,
 * curl) reads "connection reset" instead of the answer. */
#ifndef SRV_READER_RUN_H
#define SRV_READER_RUN_H

#include <stddef.h>

#include "api.h"
#include "cjson_compat.h"

#define SRV_READER_UPLOADS_PER_ADDRESS 4
#define SRV_READER_UPLOADS_PER_LEARNER 2
/* The longest deadline of any reader route (POST /api/doctor's): the
 * watchdog counts a request as stuck only past every deadline it has. */
#define SRV_READER_DEADLINE_MAX_S 300
/* The lingering close after a cut: at most this long in all (nginx's
 * lingering_time), and this long without a byte. Measured with 16 MiB
 * uploads cut over the CPU budget, ten runs under four busy loops on this
 * 2-core machine shared with other test runs: with 10 s and 2 s the first
 * run's client got a reset, with 30 s and 5 s one run in ten (a client
 * starved of CPU for over 5 s between two writes). */
#define SRV_READER_LINGER_S 30
#define SRV_READER_LINGER_IDLE_S 10

typedef struct srv_reader_input srv_reader_input;

typedef struct srv_reader_route {
  const char *what;           /* "paste", "trace": what the body is, in messages */
  const char *page;           /* "#doctor": the page that reads the same input in the browser */
  const char *const *types;   /* Content-Type prefixes taken, NULL-terminated */
  const char *types_text;     /* how the 415 names them */
  int type_required;          /* 0: a body without Content-Type is taken too */
  size_t max_body_bytes;      /* larger: too_large (413), before a byte is read when declared */
  lab_err too_large;          /* body_too_large, or the route's own code (explain_too_large) */
  double deadline_s;          /* the whole request, from its start: upload and reading */
  int ok_status;              /* the answer's status when read gives one: 0 for 200 (201: it stored something) */
  /* Computes the answer from the body (srv_reader_next or srv_reader_whole);
   * the envelope, or NULL with err set. */
  cJSON *(*read)(srv_reader_input *in, lab_error *err);
} srv_reader_route;

/* Answers the request as a reader run of route (405, 415, 401, busy, 413,
 * 408, deadline_exceeded, over_cpu_budget, or what read answers). */
int srv_reader_run(struct mg_connection *conn, srv_app *app, const srv_reader_route *route);

/* Up to cap bytes of the body, for a reader that works in pieces (a
 * srv_doctor_read_fn): the slot is given back while the body arrives and
 * taken again before it returns, so the reader's work on the bytes runs
 * in a slot; 0 at the end of the body (with the slot taken for the work
 * that follows), and 0 too when the body, the deadline, the CPU budget or
 * the slot failed: the request then answers that failure, whatever the
 * reader makes of the early end. */
size_t srv_reader_next(srv_reader_input *in, unsigned char *buf, size_t cap);

/* The whole body (NUL-terminated, owned by in), then a slot: for a reader
 * that needs all of it at once. 0, or -1 with err set. */
int srv_reader_whole(srv_reader_input *in, const char **text, size_t *len, lab_error *err);

/* In class mode, the session the request came with (its learner), for a
 * reader that keeps what it read for the class (POST /api/handins); NULL
 * outside class mode. */
const struct srv_store_session *srv_reader_session(const srv_reader_input *in);
/* The server's state, for the same readers (the class's store). */
srv_app *srv_reader_app(const srv_reader_input *in);

/* Refusals and cuts so far (for /metrics): refused by reason (address,
 * learner, server: the in-flight bounds), cut by reason (deadline,
 * cpu_budget), in the order of SRV_READER_REFUSALS and SRV_READER_CUTS. */
#define SRV_READER_REFUSALS 3
#define SRV_READER_CUTS 2
/* Lingering closes after a cut, by how they ended (srv_linger_end's
 * order: client, idle, time, bytes). */
#define SRV_READER_LINGER_ENDS 4
typedef struct srv_reader_counts {
  unsigned long refused[SRV_READER_REFUSALS], cut[SRV_READER_CUTS], linger[SRV_READER_LINGER_ENDS];
} srv_reader_counts;
void srv_reader_counts_read(srv_reader_counts *out);

#endif
