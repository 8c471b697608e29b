/* The claim loop of a shared queue's GPU worker (see gpu_worker.h). Two
 * threads: one checks its GPU, claims and runs, sleeping on the store's
 * notifications (LISTEN) between runs; one beats every second and now and
 * then looks for workers that died (any process may: the first to see one
 * hands its run back). A result that cannot be stored because the database
 * is down is retried for a minute: it is not thrown away for a blip. A
 * worker whose GPU is unusable only checks it, on a back-off: claiming
 * would fail runs fast and so win most claims. */
#include "gpu_worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "abstime.h"
#include "clock.h"
#include "json.h"
#include "runner.h"
#include "worker_health.h"

#define BEAT_S 1.0
#define REAP_EVERY 2        /* beats */
#define IDLE_WAIT_S 0.5     /* a claim that found nothing waits this long for a notification */
#define STORE_RETRY_S 60.0  /* a finished run's result is retried this long while the store is down */
#define SUP_WAIT_S 30.0
#define CHECK_FIRST_S 5.0   /* an unusable worker checks its GPU again after this, */
#define CHECK_MAX_S 60.0    /* doubling up to this */
#define HEALTH_EVERY_S 30.0 /* a usable worker re-reads its device between runs this often (memory, a lost driver) */
#define FAULT_STREAK 3      /* runs failed in a row because of the worker: it stops claiming */

struct srv_gpu_worker {
  srv_gpu_worker_opts o;
  int64_t id;
  pthread_t loop, beat;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* run_id went to 0, or stopping */
  _Atomic int stopping;
  _Atomic int64_t run_id; /* the run on the GPU now, 0 when none */
  _Atomic int killed;     /* stop killed the GPU process under a run */
  /* the claim loop's own (no lock): */
  srv_store_worker_health health; /* as last stored */
  double check_at_s;              /* next device check (lab_clock_s) */
  double backoff_s;               /* the next wait of an unusable worker */
  int streak;                     /* runs failed in a row because of this worker */
};

static void sleep_s(double s) {
  struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int retriable(const lab_error *err) {
  return err->code == LAB_E_STORE_UNAVAILABLE || err->code == LAB_E_STORE_BUSY;
}

/* Stores the end of a claimed run, retrying while the store is down. */
static void store_end(srv_gpu_worker *w, const srv_store_claim *c, int rc, const lab_error *fail, const cJSON *out,
                      double run_s) {
  char *text = srv_run_outcome_text(rc == 0 ? NULL : fail, rc == 0 ? out : NULL);
  const char *status = rc == 0 ? "done" : "failed";
  double until = lab_clock_s() + STORE_RETRY_S;
  lab_error err = {0};
  while (srv_store_queue_finish(w->o.store, w->id, c->run_id, status, rc == 0 ? NULL : lab_err_code(fail->code), text,
                                run_s * 1000.0, &err) != 0 &&
         retriable(&err) && lab_clock_s() < until)
    sleep_s(1.0);
  /* One line per run, with the id of the request that queued it, as the
   * server's request log names it (the server that answers its end counts
   * it in its metrics: runs.c). */
  if (err.code != LAB_OK)
    fprintf(stderr, "gpulab worker %lld: run %lld (request %s): its end was not stored: %s (%s)\n", (long long)w->id,
            (long long)c->run_id, c->request_id[0] ? c->request_id : "-", lab_err_code(err.code), err.message);
  else
    fprintf(stderr, "gpulab worker %lld: run %lld request=%s experiment=%s status=%s%s%s s=%.3f\n", (long long)w->id,
            (long long)c->run_id, c->request_id[0] ? c->request_id : "-", c->experiment, status,
            rc == 0 ? "" : " error=", rc == 0 ? "" : lab_err_code(fail->code), run_s);
  cJSON_free(text);
}

/* Stores a health (a failure to is logged: the next check stores it again)
 * and says when usability changed. */
static void set_health(srv_gpu_worker *w, const srv_store_worker_health *h) {
  lab_error err = {0};
  if (srv_store_worker_health_set(w->o.store, w->id, h, &err) != 0)
    fprintf(stderr, "gpulab worker %lld: its device check was not stored: %s\n", (long long)w->id, err.message);
  if (h->usable && !w->health.usable)
    fprintf(stderr, "gpulab worker %lld: the GPU is usable again; taking runs\n", (long long)w->id);
  else if (!h->usable && (w->health.usable || strcmp(h->reason, w->health.reason) != 0))
    fprintf(stderr, "gpulab worker %lld: not usable (%s); it takes no runs and checks again in %.0f s\n",
            (long long)w->id, h->reason, w->check_at_s - lab_clock_s());
  w->health = *h;
}

/* The worker's device check, due at check_at_s: usable, it checks again
 * in HEALTH_EVERY_S; not, after its back-off, which then doubles. */
static void check_device(srv_gpu_worker *w) {
  srv_store_worker_health h;
  srv_worker_check(w->o.runner, &h);
  if (h.usable) {
    w->streak = 0; /* the device says usable: it gets another try */
    w->check_at_s = lab_clock_s() + HEALTH_EVERY_S;
  } else {
    w->check_at_s = lab_clock_s() + w->backoff_s;
    w->backoff_s = w->backoff_s * 2 < CHECK_MAX_S ? w->backoff_s * 2 : CHECK_MAX_S;
  }
  set_health(w, &h);
}

/* FAULT_STREAK runs in a row failed because of this worker (fail the last
 * one's error): it takes itself for unusable until its back-off's check. */
static void fault_streak(srv_gpu_worker *w, const lab_error *fail) {
  srv_store_worker_health h = w->health;
  h.usable = 0;
  snprintf(h.reason, sizeof h.reason, "%d runs in a row failed because of this worker (last: %s: %.100s)", w->streak,
           lab_err_code(fail->code), fail->message);
  w->check_at_s = lab_clock_s() + w->backoff_s;
  w->backoff_s = w->backoff_s * 2 < CHECK_MAX_S ? w->backoff_s * 2 : CHECK_MAX_S;
  set_health(w, &h);
}

/* A run that failed because of this worker goes back to the queue for
 * another worker; the second time it fails with that error, uncharged. */
static void give_back(srv_gpu_worker *w, const srv_store_claim *c, const lab_error *fail) {
  lab_error why, err = {0};
  lab_fail(&why, fail->code, fail->param[0] ? fail->param : NULL,
           "%.300s (this failed because of the GPU worker, not the run's parameters, on two workers in turn; it is "
           "not charged: run it again)",
           fail->message);
  char *text = srv_run_outcome_text(&why, NULL);
  int requeued = 0;
  double until = lab_clock_s() + STORE_RETRY_S;
  while (srv_store_queue_hand_back(w->o.store, w->id, c->run_id, lab_err_code(fail->code), text, &requeued, &err) !=
             0 &&
         retriable(&err) && lab_clock_s() < until)
    sleep_s(1.0);
  fprintf(stderr, "gpulab worker %lld: run %lld failed because of this worker (%s: %.200s): %s\n", (long long)w->id,
          (long long)c->run_id, lab_err_code(fail->code), fail->message,
          err.code != LAB_OK ? "not handed back (the store did not answer)"
          : requeued         ? "handed back to the queue for another worker"
                             : "failed: it had been handed back before");
  cJSON_free(text);
}

/* The run's GPU process was killed by stop: the run goes back to the queue. */
static void hand_back(srv_gpu_worker *w, const srv_store_claim *c) {
  lab_error why, err = {0};
  lab_fail(&why, LAB_E_WORKER_CRASHED, NULL,
           "the GPU worker running this run was stopped (twice: it had been handed back once); run it again");
  char *text = srv_run_outcome_text(&why, NULL);
  int requeued = 0;
  double until = lab_clock_s() + 10;
  while (srv_store_queue_hand_back(w->o.store, w->id, c->run_id, "worker_crashed", text, &requeued, &err) != 0 &&
         retriable(&err) && lab_clock_s() < until)
    sleep_s(0.5);
  fprintf(stderr, "gpulab worker %lld: stopping: run %lld %s\n", (long long)w->id, (long long)c->run_id,
          err.code != LAB_OK ? "could not be handed back (a live server hands it back when this worker is gone)"
          : requeued         ? "handed back to the queue"
                             : "failed (worker_crashed): it had been handed back before");
  cJSON_free(text);
}

static void run_claimed(srv_gpu_worker *w, const srv_store_claim *c) {
  lab_error err = {0};
  cJSON *params = lab_json_parse(c->params_json, strlen(c->params_json), LAB_JSON_MAX_DEPTH, NULL), *out = NULL;
  double t0 = lab_clock_s();
  double deadline_s = w->o.deadline_now ? w->o.deadline_now(w->o.deadline_arg) : w->o.deadline_s;
  int rc = srv_runner_gpu_job(w->o.sup, c->experiment, params, c->run_id, SUP_WAIT_S, deadline_s, &out, &err);
  double run_s = lab_clock_s() - t0;
  cJSON_Delete(params);
  int fault = rc != 0 && !w->killed && srv_worker_fault(err.code);
  if (rc != 0 && w->killed) hand_back(w, c);
  else if (fault) give_back(w, c, &err);
  else store_end(w, c, rc, &err, out, run_s);
  cJSON_Delete(out);
  if (!fault) {
    w->streak = 0;
    if (rc == 0) w->backoff_s = CHECK_FIRST_S;
    return;
  }
  if (++w->streak >= FAULT_STREAK) fault_streak(w, &err);
  else if (err.code == LAB_E_NO_GPU || err.code == LAB_E_GPU_ARCH) w->check_at_s = 0; /* look at the device now */
}

/* Waits until the next device check (or stop). */
static void wait_for_check(srv_gpu_worker *w) {
  double left = w->check_at_s - lab_clock_s();
  if (left <= 0) return;
  pthread_mutex_lock(&w->lock);
  struct timespec until = srv_abstime_after(left < 1.0 ? left : 1.0);
  if (!w->stopping) pthread_cond_timedwait(&w->changed, &w->lock, &until);
  pthread_mutex_unlock(&w->lock);
}

static void *loop_main(void *arg) {
  srv_gpu_worker *w = arg;
  double quiet_until = 0; /* store errors are logged once a minute */
  while (!w->stopping) {
    if (lab_clock_s() >= w->check_at_s) check_device(w);
    if (!w->health.usable) {
      wait_for_check(w);
      continue;
    }
    srv_store_claim c;
    int got = 0;
    lab_error err = {0};
    if (srv_store_queue_claim(w->o.store, w->id, &c, &got, &err) != 0) {
      if (lab_clock_s() > quiet_until) {
        fprintf(stderr, "gpulab worker %lld: cannot take runs: %s (%s); retrying\n", (long long)w->id,
                lab_err_code(err.code), err.message);
        quiet_until = lab_clock_s() + 60;
      }
      srv_store_queue_wait(w->o.store, 1.0, &err);
      continue;
    }
    if (!got) {
      srv_store_queue_wait(w->o.store, IDLE_WAIT_S, &err);
      continue;
    }
    w->run_id = c.run_id;
    run_claimed(w, &c);
    free(c.params_json);
    pthread_mutex_lock(&w->lock);
    w->run_id = 0;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
  }
  return NULL;
}

static void *beat_main(void *arg) {
  srv_gpu_worker *w = arg;
  int quiet = 0;
  for (unsigned n = 0; !w->stopping; n++) {
    lab_error err = {0};
    int rc = srv_store_worker_beat(w->o.store, w->id, w->run_id, srv_supervisor_restarts(w->o.sup), &err);
    if (rc == 0 && n % REAP_EVERY == 0) {
      int back = 0, failed = 0;
      if (srv_store_workers_reap(w->o.store, &back, &failed, &err) == 0 && (back || failed))
        fprintf(stderr, "gpulab worker %lld: a worker stopped answering: %d run(s) handed back, %d failed\n",
                (long long)w->id, back, failed);
    }
    if (rc != 0 && !quiet)
      fprintf(stderr, "gpulab worker %lld: heartbeat not stored: %s (%s)\n", (long long)w->id, lab_err_code(err.code),
              err.message);
    quiet = rc != 0;
    pthread_mutex_lock(&w->lock);
    struct timespec until = srv_abstime_after(BEAT_S);
    if (!w->stopping) pthread_cond_timedwait(&w->changed, &w->lock, &until);
    pthread_mutex_unlock(&w->lock);
  }
  return NULL;
}

int srv_gpu_worker_start(const srv_gpu_worker_opts *o, srv_gpu_worker **out, lab_error *err) {
  *out = NULL;
  srv_gpu_worker *w = calloc(1, sizeof *w);
  if (!w) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  w->o = *o;
  w->o.who.device_json = NULL; /* only for the registration */
  srv_store_worker who = o->who;
  srv_worker_check(o->runner, &who.health);
  w->health = who.health;
  w->backoff_s = CHECK_FIRST_S;
  if (srv_store_worker_add(o->store, &who, &w->id, err) != 0) {
    free(w);
    return -1;
  }
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->changed, NULL);
  /* The check that registered it counts: the next one is due as after any check. */
  w->check_at_s = lab_clock_s() + (w->health.usable ? HEALTH_EVERY_S : w->backoff_s);
  if (!w->health.usable) {
    fprintf(stderr, "gpulab worker %lld: not usable (%s); it takes no runs and checks again in %.0f s\n",
            (long long)w->id, w->health.reason, w->backoff_s);
    w->backoff_s *= 2;
  }
  int beating = pthread_create(&w->beat, NULL, beat_main, w) == 0;
  if (beating && pthread_create(&w->loop, NULL, loop_main, w) == 0) {
    *out = w;
    return 0;
  }
  if (beating) {
    w->stopping = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_join(w->beat, NULL);
  }
  lab_error ignored;
  srv_store_worker_gone(o->store, w->id, &ignored);
  pthread_cond_destroy(&w->changed);
  pthread_mutex_destroy(&w->lock);
  free(w);
  return lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start a worker thread");
}

void srv_gpu_worker_stop(srv_gpu_worker *w, double grace_s) {
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->stopping = 1;
  pthread_cond_broadcast(&w->changed);
  struct timespec until = srv_abstime_after(grace_s);
  while (w->run_id && pthread_cond_timedwait(&w->changed, &w->lock, &until) == 0) {
  }
  if (w->run_id) {
    w->killed = 1; /* the run's call returns worker_crashed: the loop hands it back */
    srv_supervisor_kill(w->o.sup);
  }
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->loop, NULL);
  pthread_join(w->beat, NULL);
  lab_error err;
  if (srv_store_worker_gone(w->o.store, w->id, &err) != 0)
    fprintf(stderr, "gpulab worker %lld: could not sign off (%s); it is taken for gone when its heartbeat stops\n",
            (long long)w->id, err.message);
  pthread_cond_destroy(&w->changed);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

int64_t srv_gpu_worker_id(const srv_gpu_worker *w) { return w->id; }

int srv_gpu_visible_device(const char *cuda_visible_devices, int gpu, char *out, size_t n) {
  if (gpu < 0) return -1;
  if (!cuda_visible_devices || !*cuda_visible_devices) {
    snprintf(out, n, "%d", gpu);
    return 0;
  }
  const char *p = cuda_visible_devices;
  for (int i = 0; i < gpu; i++) {
    p = strchr(p, ',');
    if (!p) return -1;
    p++;
  }
  size_t len = strcspn(p, ",");
  if (len == 0 || len >= n) return -1;
  memcpy(out, p, len);
  out[len] = 0;
  return 0;
}
