/* The PostgreSQL class store (see store.h and store_pg.h): a small pool of
 * libpq connections, one borrowed per operation. A connection the server
 * closed (a restart, a shutdown) is noticed before it is used — PostgreSQL
 * tells idle clients as it goes, so the socket is readable — and made
 * again; a read-only statement whose connection broke under it anyway is
 * run once more on a fresh connection. While the database cannot be
 * reached one call at a time tries a fresh connection, the others waiting
 * for what it finds. Statement and lock timeouts keep a
 * request from waiting on the database for long: it answers store_busy
 * instead. */
#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "abstime.h"
#include "clock.h"
#include "store_pg.h"

#define RETRY_AFTER_DOWN_S 0.25 /* after a failed connect, calls fail at once this long unless none is trying */
#define PROBE_WAIT_S 4.0        /* a call waits this long for another's connect (libpq's connect_timeout is 3 s) */
#define STALE_READS 4           /* reads of an idle connection's news before it is taken for dead */
#define TAKE_WAIT_S 5.0        /* a call waits this long for a free connection */

/* ---- parameters ------------------------------------------------------------ */

static char *next_buf(pg_args *a) { return a->n < SRV_PG_MAX_ARGS ? a->buf[a->n] : NULL; }

void srv_pg_i64(pg_args *a, int64_t v) {
  char *b = next_buf(a);
  if (!b) return;
  snprintf(b, sizeof a->buf[0], "%lld", (long long)v);
  a->v[a->n++] = b;
}

void srv_pg_f64(pg_args *a, double v) {
  char *b = next_buf(a);
  if (!b) return;
  snprintf(b, sizeof a->buf[0], "%.17g", v == v ? v : 0.0);
  a->v[a->n++] = b;
}

void srv_pg_text(pg_args *a, const char *text) {
  if (a->n < SRV_PG_MAX_ARGS) a->v[a->n++] = text;
}

void srv_pg_hash(pg_args *a, const unsigned char hash[SRV_HASH_BYTES]) {
  char *b = next_buf(a);
  if (!b) return;
  b[0] = '\\', b[1] = 'x';
  for (int i = 0; i < SRV_HASH_BYTES; i++) snprintf(b + 2 + 2 * i, 3, "%02x", hash[i]);
  a->v[a->n++] = b;
}

/* ---- errors ------------------------------------------------------------------ */

const char *srv_pg_state(const PGresult *r) {
  const char *s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
  return s ? s : "";
}

int srv_pg_fail(pg_store *st, PGconn *c, const PGresult *r, const char *what, lab_error *err) {
  const char *state = srv_pg_state(r);
  const char *detail = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
  char text[200];
  snprintf(text, sizeof text, "%s", detail ? detail : c ? PQerrorMessage(c) : "no connection");
  char *nl = strchr(text, '\n');
  if (nl) *nl = 0;
  /* lost or refused (08…, 57P…), read-only (25006), out of disk or memory (53…, but 53300 is too many
   * connections: busy) */
  int unavailable = !c || PQstatus(c) != CONNECTION_OK || !strncmp(state, "08", 2) || !strncmp(state, "57P", 3) ||
                    !strcmp(state, "25006") || (!strncmp(state, "53", 2) && strcmp(state, "53300") != 0);
  if (unavailable)
    return lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
                    "the class database %.200s cannot be used while %s (%s); nothing was stored: retry in a few "
                    "seconds, and tell your instructor if it lasts",
                    st->where, what, text);
  if (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "55P03") || !strcmp(state, "53300") ||
      !strcmp(state, "57014"))
    return lab_fail(err, LAB_E_STORE_BUSY, NULL,
                    "the class database is busy while %s (%s); retry in a few seconds", what, text);
  return lab_fail(err, LAB_E_INTERNAL, NULL, "the class database failed while %s (%s %s)", what, state, text);
}

void srv_pg_rollback(PGconn *c) {
  if (c && PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) != PQTRANS_IDLE) PQclear(PQexec(c, "ROLLBACK"));
}

/* ---- connections ---------------------------------------------------------------- */

/* libpq would print the server's notices (a shutdown's FATAL among them) to
 * stderr; the failures they explain reach the caller as errors already. */
static void quiet(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

/* What a failed connect's TLS trouble was and what cures it; NULL when the
 * failure was not about TLS. None of them is cured by retrying. */
static const char *tls_cure(const char *why) {
  if (strstr(why, "server does not support SSL"))
    return "the PostgreSQL server has no TLS: set ssl = on there with a certificate (docs/deploy.md, "
           "PostgreSQL over TLS)";
  if (strstr(why, "root certificate file"))
    return "the sslrootcert file cannot be read: point sslrootcert= at the CA that signed the server's certificate";
  if (strstr(why, "certificate verify failed"))
    return "the server's certificate is not signed by the CA in sslrootcert: point sslrootcert= at the CA "
           "that signed it";
  if (strstr(why, "does not match host name"))
    return "the server's certificate is for another name: connect by the host name its certificate names";
  if (strstr(why, "SSL") || strstr(why, "certificate"))
    return "check sslmode, sslrootcert, sslcert and sslkey in the URI against the server's TLS settings";
  if (strstr(why, "no encryption") && strstr(why, "pg_hba.conf"))
    return "the server takes this user only over TLS (hostssl): add sslmode=verify-full&sslrootcert=CA.crt";
  return NULL;
}

PGconn *srv_pg_connect(pg_store *st, lab_error *err) {
  /* Defaults first: what the URI says overrides them (expand_dbname) —
   * sslmode, sslrootcert, sslcert and sslkey among them. */
  const char *keys[] = {"connect_timeout", "application_name", "options", "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "dbname", NULL};
  const char *vals[] = {"3", "gpulab", "-c statement_timeout=10000 -c lock_timeout=5000 -c client_min_messages=warning",
                        "10", "5", "3", st->uri, NULL};
  PGconn *c = PQconnectdbParams(keys, vals, 1);
  if (c && PQstatus(c) == CONNECTION_OK) {
    PQsetNoticeProcessor(c, quiet, NULL);
    return c;
  }
  char why[400]; /* whole, so that its end ("…, no encryption") can be read */
  snprintf(why, sizeof why, "%s", c ? PQerrorMessage(c) : "out of memory");
  for (char *p = why; *p; p++)
    if (*p == '\n') *p = ' ';
  /* A missing or refused password is not cured by retrying: say what to set. */
  int no_password = c && PQconnectionNeedsPassword(c);
  int bad_password = c && !no_password && strstr(why, "password authentication failed") != NULL;
  PQfinish(c);
  if (no_password || bad_password) {
    lab_fail(err, LAB_E_STORE_UNAVAILABLE, "store",
             "the class database %.200s %s: set PGPASSWORD (or a password in the connection string / ~/.pgpass) "
             "for this user, then start again",
             st->where, no_password ? "asks for a password and none was given" : "refused the password given");
    return NULL;
  }
  const char *cure = tls_cure(why);
  if (cure) {
    lab_fail(err, LAB_E_STORE_UNAVAILABLE, "store", "TLS to the class database %.90s failed: %s, then start again (%.80s)",
             st->where, cure, why);
    return NULL;
  }
  lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
           "cannot reach the class database %.200s (%.180s); check that PostgreSQL runs and the URI is right: "
           "nothing was stored, retry in a few seconds",
           st->where, why);
  return NULL;
}

void srv_pg_describe_tls(PGconn *c, char *out, size_t n) {
  const char *mode = "prefer"; /* libpq's default */
  PQconninfoOption *opts = PQconninfo(c);
  for (PQconninfoOption *o = opts; o && o->keyword; o++)
    if (!strcmp(o->keyword, "sslmode") && o->val && *o->val) mode = o->val;
  if (PQsslInUse(c)) {
    const char *proto = PQsslAttribute(c, "protocol"), *cipher = PQsslAttribute(c, "cipher");
    snprintf(out, n, "TLS (%s, %s, sslmode=%s)", proto ? proto : "?", cipher ? cipher : "?", mode);
  } else
    snprintf(out, n, "no TLS (sslmode=%s)", mode);
  PQconninfoFree(opts);
}

/* Whether a pooled connection still works: PostgreSQL tells idle clients
 * when it shuts down, so a readable socket before a query is that news (or
 * the connection's end); reading it updates the status. */
static int still_up(PGconn *c) {
  if (PQstatus(c) != CONNECTION_OK) return 0;
  /* A shutdown's FATAL message and the end of the connection can come in
   * two reads: libpq sees the end only at the read after the message, so
   * read while there is news (a live idle connection has none). */
  for (int i = 0; i < STALE_READS; i++) {
    struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
    if (poll(&p, 1, 0) <= 0) break;
    if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK) return 0;
    if (i == STALE_READS - 1) return 0; /* still readable: nothing a live idle connection does */
  }
  PGnotify *n;
  while ((n = PQnotifies(c)) != NULL) PQfreemem(n);
  return 1;
}

PGconn *srv_pg_take(pg_store *st, lab_error *err) {
  pthread_mutex_lock(&st->lock);
  double until = lab_clock_s() + TAKE_WAIT_S;
  int slot = -1;
  for (;;) {
    for (int i = 0; i < SRV_PG_POOL && slot < 0; i++)
      if (!st->busy[i]) slot = i;
    if (slot >= 0) break;
    struct timespec ts = srv_abstime_after(0.05);
    pthread_cond_timedwait(&st->freed, &st->lock, &ts);
    if (lab_clock_s() > until) {
      pthread_mutex_unlock(&st->lock);
      lab_fail(err, LAB_E_STORE_BUSY, NULL,
               "all %d connections to the class database are busy; retry in a few seconds", SRV_PG_POOL);
      return NULL;
    }
  }
  st->busy[slot] = 1;
  PGconn *c = st->conns[slot];
  pthread_mutex_unlock(&st->lock);
  if (c && !still_up(c)) {
    PQfinish(c);
    c = NULL;
  }
  int probe = 0, connect = 0;
  if (!c) {
    /* While the database seemed down (a connect failed in the last
     * RETRY_AFTER_DOWN_S), one call at a time tries again and the others
     * wait for what it finds: back, and they connect too; still down, and
     * they answer at once. So the calls right after a restart all get in,
     * and a dead host is not asked by every request together. */
    pthread_mutex_lock(&st->lock);
    double wait_until = lab_clock_s() + PROBE_WAIT_S;
    int waited = 0;
    while (st->probing && lab_clock_s() < st->down_until_s && lab_clock_s() < wait_until) {
      struct timespec ts = srv_abstime_after(0.05);
      pthread_cond_timedwait(&st->freed, &st->lock, &ts);
      waited = 1;
    }
    int down = lab_clock_s() < st->down_until_s;
    connect = !down || (!st->probing && !waited);
    probe = down && connect;
    if (probe) st->probing = 1;
    pthread_mutex_unlock(&st->lock);
    if (connect) c = srv_pg_connect(st, err);
    else
      lab_fail(err, LAB_E_STORE_UNAVAILABLE, NULL,
               "the class database %.200s cannot be reached just now (%s); nothing was stored: retry in a few seconds",
               st->where, st->down_why);
  }
  pthread_mutex_lock(&st->lock);
  if (probe) st->probing = 0;
  st->conns[slot] = c;
  if (!c) {
    st->busy[slot] = 0;
    if (connect && lab_clock_s() >= st->down_until_s) {
      st->down_until_s = lab_clock_s() + RETRY_AFTER_DOWN_S;
      snprintf(st->down_why, sizeof st->down_why, "%.190s", err->message);
    }
  } else {
    st->down_until_s = 0;
  }
  pthread_cond_broadcast(&st->freed); /* a slot, or a probe's outcome */
  pthread_mutex_unlock(&st->lock);
  return c;
}

void srv_pg_give(pg_store *st, PGconn *c) {
  if (!c) return;
  srv_pg_rollback(c); /* a transaction left open by a failure */
  pthread_mutex_lock(&st->lock);
  for (int i = 0; i < SRV_PG_POOL; i++)
    if (st->conns[i] == c) {
      if (PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        st->conns[i] = NULL;
      }
      st->busy[i] = 0;
    }
  pthread_cond_signal(&st->freed);
  pthread_mutex_unlock(&st->lock);
}

PGresult *srv_pg_run(pg_store *st, PGconn *c, const char *sql, const pg_args *a, const char *what, lab_error *err) {
  /* Without parameters PQexec, which also runs several statements (a migration). */
  PGresult *r = a ? PQexecParams(c, sql, a->n, NULL, a->v, NULL, NULL, 0) : PQexec(c, sql);
  ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK) return r;
  srv_pg_fail(st, c, r, what, err);
  PQclear(r);
  return NULL;
}

/* Whether running sql twice is the same as once: a plain SELECT (the
 * schema's only function, gpulab_now_ms, writes nothing). A statement that
 * writes may have committed before its connection broke, so it is not
 * repeated: its caller answers store_unavailable. */
static int repeatable(const char *sql) {
  while (isspace((unsigned char)*sql)) sql++;
  return strncmp(sql, "SELECT ", 7) == 0 && !strstr(sql, "FOR UPDATE") && !strstr(sql, "pg_advisory") &&
         !strstr(sql, "pg_notify");
}

PGresult *srv_pg_one(pg_store *st, const char *sql, const pg_args *a, const char *what, lab_error *err) {
  for (int attempt = 0;; attempt++) {
    PGconn *c = srv_pg_take(st, err);
    if (!c) return NULL;
    PGresult *r = srv_pg_run(st, c, sql, a, what, err);
    int broke = !r && PQstatus(c) != CONNECTION_OK;
    srv_pg_give(st, c); /* a broken one is closed: the next take connects afresh */
    if (r || !broke || attempt == 1 || !repeatable(sql)) return r;
  }
}

int srv_pg_do(pg_store *st, PGconn *c, const char *sql, const pg_args *a, const char *what, lab_error *err) {
  PGresult *r = srv_pg_run(st, c, sql, a, what, err);
  PQclear(r);
  return r ? 0 : -1;
}

/* ---- columns --------------------------------------------------------------------- */

int64_t srv_pg_get_i64(const PGresult *r, int row, int col) { return strtoll(PQgetvalue(r, row, col), NULL, 10); }

double srv_pg_get_f64(const PGresult *r, int row, int col) { return strtod(PQgetvalue(r, row, col), NULL); }

int srv_pg_is_null(const PGresult *r, int row, int col) { return PQgetisnull(r, row, col); }

cJSON *srv_pg_col_time(const PGresult *r, int row, int col) {
  if (PQgetisnull(r, row, col)) return cJSON_CreateNull();
  char out[32];
  srv_store_time_iso(srv_pg_get_i64(r, row, col), out);
  return cJSON_CreateString(out);
}

cJSON *srv_pg_col_text(const PGresult *r, int row, int col) {
  return PQgetisnull(r, row, col) ? cJSON_CreateNull() : cJSON_CreateString(PQgetvalue(r, row, col));
}

cJSON *srv_pg_col_json(const PGresult *r, int row, int col) {
  cJSON *j = PQgetisnull(r, row, col) ? NULL
                                      : cJSON_ParseWithLength(PQgetvalue(r, row, col), (size_t)PQgetlength(r, row, col));
  return j ? j : cJSON_CreateNull();
}

int srv_pg_add(cJSON *o, const char *key, cJSON *item) {
  if (!o || !item) {
    cJSON_Delete(item);
    return 0;
  }
  if (!cJSON_AddItemToObject(o, key, item)) {
    cJSON_Delete(item);
    return 0;
  }
  return 1;
}

cJSON *srv_pg_rows(const PGresult *r, srv_pg_row_fn row, lab_error *err) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; arr && i < PQntuples(r); i++) {
    cJSON *o = row(r, i);
    if (!o || !cJSON_AddItemToArray(arr, o)) {
      cJSON_Delete(o);
      cJSON_Delete(arr);
      arr = NULL;
    }
  }
  if (!arr) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  return arr;
}

int srv_pg_rows_of(pg_store *st, const char *sql, const pg_args *a, srv_pg_row_fn row, const char *what, cJSON **out,
                   lab_error *err) {
  PGresult *r = srv_pg_one(st, sql, a, what, err);
  if (!r) return -1;
  *out = srv_pg_rows(r, row, err);
  PQclear(r);
  return *out ? 0 : -1;
}
