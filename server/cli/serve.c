/* `gpulab serve`: CivetWeb with one flat route table (routes.c), the supervised GPU
 * worker, one log line per request, and a clean stop on SIGINT/SIGTERM. */
#include <civetweb.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include "api.h"
#include "cli.h"
#include "http.h"
#include "cjson_compat.h"
#include "conn_gate.h"
#include "conn_socket.h"
#include "hangup.h"
#include "inflight.h"
#include "reader_run.h"
#include "request_id.h"
#include "files.h"
#include "http_guard.h"
#include "json.h"
#include "profiles.h"
#include "routes.h"
/* class mode (sessions, store): */
#include "class.h"
#include "hooks.h"
#include "session.h"
/* class mode's GPU queue, metrics and the log line: */
#include "metrics.h"
#include "runs.h"
#include "settings_watch.h"
#include "tls.h"
/* a class on a shared store: its workers, and a proxy in front */
#include "client_addr.h"
#include "workers_spec.h"
/* what hangs quietly, and the stop path's deadline */
#include "watchdog.h"
#include "abstime.h"
#include "clock.h"

static volatile sig_atomic_t stop_requested;
static _Thread_local double request_started;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Whether this request's client has gone (hangup.h), for the rooms below. */
static int client_hung_up(const void *conn) { return srv_conn_hung_up(conn); }

static int begin_request(struct mg_connection *conn) {
  request_started = now_ms();
  srv_hangup_watch(client_hung_up, conn);
  srv_session_log_reset();
  srv_request_id_begin(conn);
  const struct mg_request_info *ri = mg_get_request_info(conn);
  srv_watchdog_request_begin(ri->request_method, ri->local_uri);
  /* CivetWeb resets this for every request, and after an answer it would
   * otherwise read and discard whatever body the handler left unread: a
   * client that got 401 or 413 before its body was read, dribbling a byte
   * every few seconds, would hold this thread for as long as it liked.
   * Set, the connection is closed once the answer is out. */
  mg_disable_connection_keep_alive(conn);
  return srv_request_check(conn);
}

/* One request per connection: a new one has not been answered. */
static int init_connection(const struct mg_connection *conn, void **data) {
  (void)conn;
  (void)data;
  srv_http_answer_reset();
  srv_request_id_reset();
  return 0;
}

/* An answered connection stops counting against its address as its
 * answer starts (the client may have it whole and open its next one
 * before this thread closes the socket). */
static void release_answered(const struct mg_connection *conn) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (ri) srv_conn_gate_closing(ri->remote_addr, ri->remote_port);
}

static void connection_close(const struct mg_connection *conn) {
  srv_hangup_watch(NULL, NULL); /* the connection is going: nothing of it to look at */
  srv_request_unanswered(conn);
  srv_http_answering(conn); /* closing unanswered (the client sent nothing): released all the same */
  srv_watchdog_request_end(); /* whatever path the request took, it is over */
}

static void end_request(const struct mg_connection *conn, int status) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  char when[32];
  time_t t = time(NULL);
  struct tm tm;
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  /* The query string is not logged: it may carry what a learner typed; a
   * session is named by its id, never its token. */
  char line[1200];
  char client[SRV_ADDR_MAX];
  srv_metrics_request(status);
  srv_watchdog_request_end();
  /* Health checks (HAProxy's every 2 s per server, deploy/haproxy.cfg) ask
   * with HEAD: a healthy answer to one is counted, not logged, so the log
   * holds requests, not a heartbeat. A degraded answer is logged. */
  if (status == 200 && strcmp(ri->request_method, "HEAD") == 0 && strcmp(ri->local_uri, "/api/health") == 0) return;
  srv_log_line(line, sizeof line, when, srv_request_id(), srv_client_addr(conn, client), ri->request_method,
               ri->local_uri, status, now_ms() - request_started, srv_session_log_id());
  fprintf(stderr, "%s\n", line);
}

static int log_message(const struct mg_connection *conn, const char *message) {
  (void)conn;
  fprintf(stderr, "civetweb: %s\n", message);
  return 1;
}

static int default_web_root(const char *exe, char *out, size_t n) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", exe);
  char *dir = dirname(copy);
  if ((size_t)snprintf(out, n, "%s/../web", dir) >= n) return -1;
  return 0;
}

/* CivetWeb's accept loop polls in 2 s steps and mg_stop waits for it; an
 * empty connection to our own port wakes it at once, so a stop takes
 * milliseconds instead of up to 2 s. Pokes until mg_stop has returned. */
static volatile sig_atomic_t stop_done;

static void *wake_accept_loop(void *arg) {
  int port = *(int *)arg;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 40 && !stop_done; i++) {
    usleep(20 * 1000);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    (void)connect(fd, (struct sockaddr *)&a, sizeof a);
    close(fd);
  }
  return NULL;
}

/* The stop path: mg_stop waits for every request in progress, so it runs on
 * a thread of its own and the server waits for it only until the deadline
 * (SIGTERM is answered within STOP_DEADLINE_S, whatever a request does). */
#define STOP_DEADLINE_S 4.5
#define DRAIN_S 3.0
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static int http_stopped;
int srv_serve_abandoned;

static void *stop_http_thread(void *arg) {
  mg_stop(arg);
  pthread_mutex_lock(&stop_lock);
  http_stopped = 1;
  pthread_cond_signal(&stop_cond);
  pthread_mutex_unlock(&stop_lock);
  return NULL;
}

/* 0 once CivetWeb has stopped; -1 when the deadline came first. */
static int stop_http(struct mg_context *ctx, int port, double deadline_at) {
  static int wake_port; /* the waker may outlive this call when the deadline comes first */
  wake_port = port;
  pthread_t waker, stopper;
  int have_waker = pthread_create(&waker, NULL, wake_accept_loop, &wake_port) == 0;
  if (pthread_create(&stopper, NULL, stop_http_thread, ctx) != 0) {
    mg_stop(ctx); /* no thread to spare: wait for it here */
    http_stopped = 1;
  } else {
    pthread_mutex_lock(&stop_lock);
    double left = deadline_at - lab_clock_s();
    struct timespec ts = srv_abstime_after(left > 0 ? left : 0);
    while (!http_stopped && pthread_cond_timedwait(&stop_cond, &stop_lock, &ts) == 0) {
    }
    int done = http_stopped;
    pthread_mutex_unlock(&stop_lock);
    if (!done) return -1;
    pthread_join(stopper, NULL);
  }
  stop_done = 1;
  if (have_waker) pthread_join(waker, NULL);
  return 0;
}

/* Requests wait for the device probe at most this long (then the last
 * view, marked stale); a probe running past PROBE_STUCK_S, or a request
 * running past every deadline it has, makes /api/health "degraded". */
#define PROBE_WAIT_S 2.0
#define PROBE_STUCK_S 10.0
#define STORE_CHECK_S 5.0

static double watchdog_stuck_s(const srv_runner *r) {
  const char *v = getenv("GPULAB_WATCHDOG_STUCK_S"); /* tests: a stuck request without the wait */
  long s;
  if (srv_test_hooks_enabled() && v && srv_cli_long(v, 1, 3600, &s) == 0) return (double)s;
  /* The longest a request may rightly take: waiting for the GPU, then the
   * run's own deadline, or a reader's upload and reading (reader_run.h),
   * with room for the simulator and the store. */
  double longest = r->wait_s + r->deadline_s;
  double reader = SRV_READER_DEADLINE_MAX_S + SRV_READER_LINGER_S; /* its upload, then the lingering close */
  return (longest > reader ? longest : reader) + 30;
}

/* A profile from `gpulab calibrate --out`, offered beside the built-ins. */
static int load_profile(const char *path) {
  char *text = NULL;
  size_t len = 0;
  lab_error err = {0};
  lab_profile prof;
  if (srv_read_file(path, 1 << 20, &text, &len) != 0) {
    fprintf(stderr, "gpulab: cannot read the profile file %s\n", path);
    return -1;
  }
  cJSON *json = lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL);
  free(text);
  int rc = json ? lab_profile_from_json(json, &prof, &err) : lab_fail(&err, LAB_E_INVALID_JSON, NULL, "not JSON");
  cJSON_Delete(json);
  if (rc == 0 && lab_profile_find(prof.name) && strcmp(prof.name, "calibrated") != 0)
    rc = lab_fail(&err, LAB_E_INVALID_PARAM, "name", "the name '%s' is a built-in profile's", prof.name);
  if (rc != 0) {
    fprintf(stderr, "gpulab: the profile file %s is not usable: %s\n", path, err.message);
    return -1;
  }
  snprintf(prof.name, sizeof prof.name, "calibrated");
  lab_profile_set_calibrated(&prof);
  return 0;
}

/* ---- class mode: start-up and shutdown ----------------------------------- */

/* Opens the class (store, join code, instructor token); 0, else the exit
 * status: 2 when the start contradicts the stored class (a usage error). */
static int class_start(srv_class *cls, const srv_class_config *cfg, srv_class_start how,
                       char token[SRV_TOKEN_HEX + 1], srv_token_origin *origin) {
  lab_error err = {0};
  if (srv_class_open(cls, cfg, how, token, origin, &err) != 0) {
    fprintf(stderr, "gpulab: %s\n", err.message);
    return err.code == LAB_E_USAGE ? 2 : 1;
  }
  /* Test hook: cap the database so a test sees a full disk answered. */
  const char *pages = getenv("GPULAB_TEST_STORE_EXTRA_PAGES");
  long extra;
  if (srv_test_hooks_enabled() && pages && srv_cli_long(pages, 0, 1000000, &extra) == 0 &&
      srv_store_sqlite_cap_pages(cls->store, extra, &err) != 0) {
    fprintf(stderr, "gpulab: %s\n", err.message);
    srv_class_close(cls);
    return 1;
  }
  return 0;
}

/* How to join; the token is printed here once (by the start that made it)
 * and kept only as a hash. */
static void class_announce(const srv_class *cls, const char *token, srv_token_origin origin) {
  char where[512];
  srv_store_where(cls->cfg.db, where, sizeof where);
  printf("gpulab: class \"%s\" %s in %s (%s)\n", cls->cfg.name, cls->created ? "created" : "opened", where,
         srv_store_kind(cls->store));
  if (srv_store_shared(cls->store))
    printf("gpulab: class database %s: %s\n", where, srv_store_transport(cls->store));
  printf("gpulab: class \"%s\" join code: %.4s-%.4s\n", cls->cfg.name, cls->join_code, cls->join_code + 4);
  if (origin == SRV_TOKEN_MADE) printf("gpulab: instructor token: %s\n", token);
  else if (origin == SRV_TOKEN_ENV) printf("gpulab: instructor token: (the one in GPULAB_INSTRUCTOR_TOKEN)\n");
  else
    printf("gpulab: instructor token: (the class's, printed when it was created; only its hash is stored: "
           "--new-instructor-token makes a new one)\n");
}

static srv_settings_watch *settings_watch; /* a shared store's class settings, followed */

/* The GPU queue: in-process (SQLite: one worker thread per configured GPU;
 * runs a previous server left are requeued, or failed if they were
 * running), or the shared store's with the workers --workers names. */
static int class_queue_start(srv_class *cls, srv_runner *runner, const srv_workers_spec *workers) {
  static srv_class_runs runs;
  lab_error err = {0};
  if (srv_class_runs_start(&runs, &cls->cfg, workers, cls->store, runner, &err) != 0) {
    fprintf(stderr, "gpulab: cannot start the GPU queue: %s\n", err.message);
    return -1;
  }
  cls->runs = &runs;
  /* Limits another server changes reach this one (settings_watch.h). */
  if (srv_store_shared(cls->store) && !(settings_watch = srv_settings_watch_start(cls)))
    fprintf(stderr, "gpulab: cannot follow the class's settings in the store (no memory for a thread): a limit "
            "changed by another server takes effect here at the next start\n");
  return 0;
}

static void class_queue_stop(srv_class *cls) {
  srv_settings_watch_stop(settings_watch);
  settings_watch = NULL;
  if (!cls || !cls->runs) return;
  srv_class_runs_stop(cls->runs);
  cls->runs = NULL;
}

/* ---- serve ---------------------------------------------------------------- */

int srv_cmd_serve(int argc, char **argv) {
  const char *host = "127.0.0.1", *root = NULL, *keys = NULL, *profile_file = NULL, *workers_text = NULL;
  const char *proxies = NULL;
  long port = 8080;
  double deadline_s = 60;
  int deadline_given = 0;
  /* simulated runs: the CPU one may take, how many at once, how long one waits (sim_gate.h) */
  long sim_budget_ms = (long)SRV_SIM_BUDGET_MS, sim_slots = 0, sim_wait_ms = (long)(SRV_SIM_WAIT_S * 1000);
  srv_class_start how = {0};
  srv_workers_spec workers = {0};
  srv_class_flags class_flags = {0};
  char class_msg[512];
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (srv_cli_option(argc, argv, &i, "--host", &v)) host = v;
    else if (srv_cli_option(argc, argv, &i, "--port", &v)) {
      if (srv_cli_long(v, 0, 65535, &port)) return srv_cli_usage("--port must be a number from 0 to 65535");
    } else if (srv_cli_option(argc, argv, &i, "--root", &v)) root = v;
    else if (srv_cli_option(argc, argv, &i, "--deadline", &v)) {
      long d;
      if (srv_cli_long(v, 1, 3600, &d)) return srv_cli_usage("--deadline must be 1 to 3600 seconds");
      deadline_s = (double)d;
      deadline_given = 1;
    } else if (srv_cli_option(argc, argv, &i, "--sim-cpu-budget-ms", &v)) {
      if (srv_cli_long(v, 1, 3600000, &sim_budget_ms)) return srv_cli_usage("--sim-cpu-budget-ms must be 1 to 3600000");
    } else if (srv_cli_option(argc, argv, &i, "--sim-slots", &v)) {
      if (srv_cli_long(v, 0, 1024, &sim_slots)) return srv_cli_usage("--sim-slots must be 0 (one per CPU) to 1024");
    } else if (srv_cli_option(argc, argv, &i, "--sim-wait-ms", &v)) {
      if (srv_cli_long(v, 0, 600000, &sim_wait_ms)) return srv_cli_usage("--sim-wait-ms must be 0 to 600000");
    } else if (srv_cli_option(argc, argv, &i, "--keys", &v)) keys = v;
    else if (srv_cli_option(argc, argv, &i, "--profile-file", &v)) profile_file = v;
    else if (srv_cli_option(argc, argv, &i, "--workers", &v)) workers_text = v;
    else if (srv_cli_option(argc, argv, &i, "--trusted-proxy", &v)) proxies = v;
    else if (strcmp(argv[i], "--update-class") == 0) how.update = 1, v = "";
    else if (strcmp(argv[i], "--new-instructor-token") == 0) how.new_token = 1, v = "";
    else {
      int m = srv_class_flag(argc, argv, &i, &class_flags, class_msg, sizeof class_msg);
      if (m < 0) return srv_cli_usage(class_msg);
      if (m == 0)
        return srv_cli_usage("unknown option for serve (try: --host H --port N --root DIR --keys DIR --deadline S "
                             "--profile-file F --sim-cpu-budget-ms MS --sim-slots N --sim-wait-ms MS, or --class "
                             "FILE and the class options in 'gpulab help')");
      v = "";
    }
    if (!v) return srv_cli_usage("an option of serve is missing its value");
  }
  if (!host[0] || strlen(host) > 255 || strpbrk(host, " ,/"))
    return srv_cli_usage("--host must be an address such as 127.0.0.1 or 0.0.0.0");

  if (workers_text && srv_workers_spec_parse(workers_text, &workers, class_msg, sizeof class_msg) != 0)
    return srv_cli_usage(class_msg);
  if (proxies && srv_trusted_proxies_set(proxies, class_msg, sizeof class_msg) != 0) return srv_cli_usage(class_msg);
  if (profile_file && load_profile(profile_file) != 0) return 1;

  /* class mode: the file, then the flags over it; exit 2 on a bad value */
  static srv_class_config class_cfg;
  static srv_class cls;
  int class_mode = srv_class_config_build(&class_flags, &class_cfg, class_msg, sizeof class_msg);
  if (class_mode < 0) return srv_cli_usage(class_msg);
  if (class_mode && deadline_given) {
    class_cfg.deadline_s = (long)deadline_s;
    srv_class_config_mark_given(&class_cfg, "--deadline");
  }
  if (!class_mode && (workers_text || how.update || how.new_token))
    return srv_cli_usage("--workers, --update-class and --new-instructor-token are for a class (--store, --db or "
                         "--class)");

  static srv_app app;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "gpulab: cannot find its own binary (/proc/self/exe)\n");
    return 1;
  }
  exe[n] = 0;
  if (root) snprintf(app.web_root, sizeof app.web_root, "%s", root);
  else if (default_web_root(exe, app.web_root, sizeof app.web_root)) return 1;
  /* The build puts the answer keys beside the web root, outside what it serves. */
  if (keys) snprintf(app.lesson_keys, sizeof app.lesson_keys, "%s", keys);
  else if (strlen(app.web_root) + 12 < sizeof app.lesson_keys)
    snprintf(app.lesson_keys, sizeof app.lesson_keys, "%.4000s/../lessons", app.web_root);
  char index[4200];
  snprintf(index, sizeof index, "%s/index.html", app.web_root);
  if (access(index, R_OK) != 0) {
    fprintf(stderr, "gpulab: no web root at %s (index.html missing): run 'make' first, or pass --root DIR\n",
            app.web_root);
    return 1;
  }
  app.max_body_bytes = SRV_MAX_BODY_BYTES;
  srv_supervisor *sup = srv_supervisor_for_self();
  if (!sup || srv_runner_init(&app.runner, sup) != 0) {
    fprintf(stderr, "gpulab: out of memory\n");
    srv_supervisor_free(sup);
    return 1;
  }
  app.runner.deadline_s = deadline_s;
  static srv_sim_gate sim_gate;
  if (srv_sim_gate_init(&sim_gate, (double)sim_budget_ms, (int)sim_slots, (double)sim_wait_ms / 1000.0) != 0) {
    fprintf(stderr, "gpulab: out of memory\n");
    srv_runner_free(&app.runner);
    srv_supervisor_free(sup);
    return 1;
  }
  app.runner.sim = &sim_gate; /* freed with the process: handlers may hold it until mg_stop returns */
  char class_token[SRV_TOKEN_HEX + 1] = "";
  srv_token_origin token_origin = SRV_TOKEN_STORED;
  if (class_mode) {
    int rc = class_start(&cls, &class_cfg, how, class_token, &token_origin);
    if (rc != 0) {
      srv_runner_free(&app.runner);
      srv_supervisor_free(sup);
      return rc;
    }
    app.cls = &cls;
    /* the class's settings, which the store may have given */
    app.max_body_bytes = (size_t)cls.cfg.max_body_kib * 1024;
    deadline_s = (double)cls.cfg.deadline_s;
    app.runner.deadline_s = deadline_s;
    if (class_queue_start(&cls, &app.runner, &workers) != 0) {
      srv_class_close(&cls);
      srv_runner_free(&app.runner);
      srv_supervisor_free(sup);
      return 1;
    }
  }

  /* TLS: civetweb reads the key from its certificate file, so a separate
   * key is joined with the certificate into a private temporary file that
   * is removed as soon as the server has loaded it (tls.h). */
  srv_tls tls = {0};
  int use_tls = app.cls && app.cls->cfg.tls_cert[0];
  if (use_tls && (srv_tls_library(class_msg, sizeof class_msg) ||
                  srv_tls_prepare(&tls, app.cls->cfg.tls_cert, app.cls->cfg.tls_key, class_msg, sizeof class_msg))) {
    fprintf(stderr, "gpulab: %s\n", class_msg);
    class_queue_stop(app.cls);
    srv_class_close(app.cls);
    srv_runner_free(&app.runner);
    srv_supervisor_free(sup);
    return 1;
  }
  char ports[300], threads[16], read_timeout[16], header_bytes[16];
  snprintf(ports, sizeof ports, "%s:%ld%s", host, port, use_tls ? "s" : "");
  /* Each connection holds one civetweb thread while its request arrives
   * and is served; past max_connections new ones wait in the accept queue.
   * One address may hold only its share of the threads (conn_limit.h). */
  long nthreads = app.cls ? app.cls->cfg.max_connections : 64L;
  long share = app.cls && app.cls->cfg.max_connections_per_address ? app.cls->cfg.max_connections_per_address
                                                                     : srv_conn_limit_default_share((int)nthreads);
  snprintf(threads, sizeof threads, "%ld", nthreads);
  snprintf(read_timeout, sizeof read_timeout, "%d", SRV_READ_TIMEOUT_MS);
  snprintf(header_bytes, sizeof header_bytes, "%d", SRV_MAX_HEADER_BYTES);
  /* Tracked at once: sockets serving, waiting in CivetWeb's queue (256),
   * and room for those being closed. */
  app.conns = srv_conn_limit_new((int)share, 2 * ((int)nthreads + 256));
  if (app.conns) srv_conn_limit_set_threads(app.conns, (int)nthreads);
  /* Uploads to the readers may hold a quarter of the threads, all addresses together (reader_run.h). */
  app.reader_uploads = srv_inflight_new(nthreads / 4 > 1 ? (int)(nthreads / 4) : 1);
  /* request_timeout_ms bounds the headers (from the first byte) and each
   * read of a body; http.c adds a minimum rate for the whole body. No
   * keep-alive: a connection is one request, so an idle one holds nothing.
   * The access_control_* options are emptied: CivetWeb would otherwise
   * answer every CORS preflight itself with Access-Control-Allow-Origin: *.
   * Over TLS: TLS 1.2 or later, forward-secret AEAD suites only. */
  const char *options[] = {"listening_ports", ports, "num_threads", threads, "request_timeout_ms", read_timeout,
                           "enable_keep_alive", "no", "listen_backlog", "1024", "connection_queue", "256",
                           "max_request_size", header_bytes, "enable_directory_listing", "no",
                           "access_control_allow_origin", "", "access_control_allow_methods", "",
                           "access_control_allow_headers", "",
                           use_tls ? "ssl_certificate" : NULL, tls.pem_path, "ssl_protocol_version", "4",
                           "ssl_cipher_list", SRV_TLS_CIPHERS, "strict_transport_security_max_age", "31536000", NULL};
  struct mg_callbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.begin_request = begin_request;
  cb.end_request = end_request;
  cb.log_message = log_message;
  cb.http_error = srv_http_error;
  cb.init_connection = init_connection;
  cb.connection_close = connection_close;
  srv_http_on_answer(release_answered);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  /* From here on a request never runs the device probe itself: it waits
   * for the background probe at most PROBE_WAIT_S (the class's queue has
   * taken its first views above, as long as the worker needed). */
  srv_runner_background(&app.runner, PROBE_WAIT_S);
  srv_watchdog_opts wd = {.runner = &app.runner,
                          .store = app.cls ? app.cls->store : NULL,
                          .stuck_s = watchdog_stuck_s(&app.runner),
                          .probe_stuck_s = PROBE_STUCK_S,
                          .store_every_s = STORE_CHECK_S};
  app.watchdog = srv_watchdog_start(&wd);
  mg_init_library(use_tls ? MG_FEATURES_TLS : 0);
  srv_conn_gate_set(app.conns, use_tls);
  struct mg_context *ctx = mg_start(&cb, &app, options);
  srv_tls_loaded(&tls); /* loaded (or refused): the joined key file goes now */
  if (!ctx) {
    fprintf(stderr, "gpulab: cannot listen on %s (in use, not an address of this machine%s)\n", ports,
            use_tls ? ", or the TLS certificate and key are not usable: see the civetweb line above" : "");
    srv_watchdog_stop(app.watchdog);
    class_queue_stop(app.cls);
    if (app.cls) srv_class_close(app.cls);
    srv_runner_quiesce(&app.runner);
    srv_supervisor_free(sup);
    srv_runner_free(&app.runner);
    srv_conn_gate_set(NULL, 0);
    srv_conn_limit_free(app.conns);
  srv_inflight_free(app.reader_uploads);
    mg_exit_library();
    return 1;
  }
  for (int i = 0; i < srv_route_count; i++) mg_set_request_handler(ctx, srv_routes[i].uri, srv_routes[i].handler, &app);
  struct mg_server_port sp[4];
  int nports = mg_get_server_ports(ctx, 4, sp);
  printf("gpulab: listening on %s://%s:%d\n", use_tls ? "https" : "http", host, nports > 0 ? sp[0].port : (int)port);
  if (app.cls) class_announce(app.cls, class_token, token_origin);
  memset(class_token, 0, sizeof class_token);
  fflush(stdout);
  while (!stop_requested) usleep(100 * 1000);
  double stop_at = lab_clock_s();
  fprintf(stderr, "gpulab: stopping\n");
  /* The GPU queue first, while the HTTP threads live (runs.h says why);
   * then a GPU run still in a handler fails at once with server_stopping. */
  if (app.cls && app.cls->runs) srv_class_runs_halt(app.cls->runs);
  srv_supervisor_stop(sup);
  srv_sim_gate_stop(&sim_gate);
  /* CivetWeb writes nothing once mg_stop has begun: the requests in
   * progress (a GPU run now failing with server_stopping) get until
   * DRAIN_S to send their answers first. */
  while (srv_watchdog_requests(NULL, NULL, 0) > 0 && lab_clock_s() - stop_at < DRAIN_S) usleep(10 * 1000);
  int wake_port = nports > 0 ? sp[0].port : (int)port;
  if (stop_http(ctx, wake_port, stop_at + STOP_DEADLINE_S) != 0) {
    /* A request is stuck where nothing can reach it (a library call that
     * does not return): the process ends without waiting for it. What it
     * was doing is not acknowledged, so nothing acknowledged is lost. */
    double oldest = 0;
    char what[96];
    int left = srv_watchdog_requests(&oldest, what, sizeof what);
    fprintf(stderr, "gpulab: stopped after %.1f s with %d request%s still running (the oldest for %.0f s: %s)\n",
            STOP_DEADLINE_S, left, left == 1 ? "" : "s", oldest, what);
    srv_serve_abandoned = 1;
    return 1;
  }
  srv_conn_gate_set(NULL, 0);
  srv_watchdog_stop(app.watchdog);
  class_queue_stop(app.cls); /* frees it; before the store closes */
  if (app.cls) srv_class_close(app.cls);
  /* The supervisor before the runner: its worker ends by EOF and resets
   * its device, rather than dying with the probe thread that started it. */
  srv_runner_quiesce(&app.runner);
  srv_supervisor_free(sup);
  srv_runner_free(&app.runner);
  srv_conn_limit_free(app.conns);
  srv_inflight_free(app.reader_uploads);
  mg_exit_library();
  fprintf(stderr, "gpulab: stopped in %.1f s\n", lab_clock_s() - stop_at);
  return 0;
}
