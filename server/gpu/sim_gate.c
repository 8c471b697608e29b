/* Runs that spend the server's CPU, under a budget and a bounded number of
 * slots (see sim_gate.h), and what each run is charged.
 *
 * Charging: a simulation's CPU is not only its handler thread's: crossover
 * multiplies on all of OpenBLAS's threads. So each run is charged its
 * share of the whole process's CPU (CLOCK_PROCESS_CPUTIME_ID) while it
 * held a slot: whenever a run takes or gives back a slot, the process CPU
 * spent since the previous such moment is divided equally among the runs
 * that held a slot through it (share_ms), and a run is charged how much
 * share_ms grew while it held its slot. Alone, a run is charged the
 * process's CPU over its run; with others, the sum of the charges is still
 * the process's CPU while any ran. It is an approximation, said plainly in
 * docs/api.md: runs sharing an interval are charged equally whatever each
 * really took, and the interval also holds the CPU of the server's other
 * threads (a few ms for requests answered meanwhile) and OpenBLAS's threads
 * spinning after a previous run. A run is never charged less than its own
 * thread's CPU.
 *
 * Waiting: a waiter wakes when a slot is given back and at least every
 * HANGUP_LOOK_S to look at its client (srv_hung_up): one that hung up
 * leaves the line at once, so abandoned requests free the waiting room
 * for the next learners instead of running for nobody. */
#include "sim_gate.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abstime.h"
#include "clock.h"
#include "cutoff.h"
#include "hangup.h"

#define HANGUP_LOOK_S 0.1 /* a waiter looks at its client this often */

static double cpu_ms(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *srv_run_kind_name(srv_run_kind k) { return k == SRV_RUN_READER ? "reader" : "simulated"; }

int srv_sim_gate_init(srv_sim_gate *g, double budget_ms, int slots, double wait_s) {
  memset(g, 0, sizeof *g);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  g->budget_ms = budget_ms;
  g->slots = slots > 0 ? slots : ncpu > 0 ? (int)ncpu : 1;
  g->reader_slots = g->slots / 2 > 1 ? g->slots / 2 : 1;
  g->wait_s = wait_s;
  if (pthread_cond_init(&g->freed, NULL) != 0) return -1;
  if (pthread_mutex_init(&g->lock, NULL) != 0) {
    pthread_cond_destroy(&g->freed);
    return -1;
  }
  return 0;
}

void srv_sim_gate_free(srv_sim_gate *g) {
  pthread_cond_destroy(&g->freed);
  pthread_mutex_destroy(&g->lock);
}

int srv_sim_budget_check(const lab_experiment *e, const lab_params *p, double budget_ms, lab_error *err) {
  const char *param = NULL;
  double est = lab_experiment_cpu_ms(e, p, &param);
  if (est <= budget_ms) return 0;
  return lab_fail(err, LAB_E_OVER_CPU_BUDGET, param,
                  "%s with these parameters would take about %.1f s of this server's CPU to simulate; it runs at "
                  "most %.1f s per run: lower %s (or run it on your own machine with gpulab run)",
                  e->name, est / 1000.0, budget_ms / 1000.0, param ? param : "the sizes");
}

/* Under the lock: the process CPU since the last start or end, shared
 * among the runs that held a slot through it. */
static void settle_share(srv_sim_gate *g) {
  double now = cpu_ms(CLOCK_PROCESS_CPUTIME_ID);
  if (g->running > 0) g->share_ms += (now - g->cpu_at_ms) / g->running;
  g->cpu_at_ms = now;
}

/* Under the lock: a slot this kind may take now. */
static int slot_free(const srv_sim_gate *g, srv_run_kind kind) {
  int cap = kind == SRV_RUN_READER ? g->reader_slots : g->slots;
  return g->running < g->slots && g->kind_running[kind] < cap;
}

/* Under the lock: whether one more of this kind may wait. Readers are
 * bounded before the gate (reader_run.h: per address, per learner and
 * in all), simulated runs here, each waiter holding an HTTP thread. */
static int room_to_wait(const srv_sim_gate *g, srv_run_kind kind) {
  return kind == SRV_RUN_READER || g->kind_waiting[kind] < SRV_SIM_WAITING_PER_SLOT * g->slots;
}

int srv_gate_enter(srv_sim_gate *g, srv_run_kind kind, double est_ms, double wait_s, srv_gate_slot *slot,
                   double *retry_s, lab_error *err) {
  double until = lab_clock_s() + (wait_s < g->wait_s ? wait_s : g->wait_s);
  int gone = 0;
  *retry_s = 0;
  pthread_mutex_lock(&g->lock);
  if (!slot_free(g, kind) && !g->stopping && room_to_wait(g, kind)) {
    g->kind_waiting[kind]++;
    for (;;) {
      double left = until - lab_clock_s();
      if (slot_free(g, kind) || g->stopping || left <= 0) break;
      struct timespec ts = srv_abstime_after(left < HANGUP_LOOK_S ? left : HANGUP_LOOK_S);
      pthread_cond_timedwait(&g->freed, &g->lock, &ts);
      if (!slot_free(g, kind) && (gone = srv_hung_up())) break;
    }
    g->kind_waiting[kind]--;
  }
  if (g->stopping) {
    pthread_mutex_unlock(&g->lock);
    return lab_fail(err, LAB_E_SERVER_STOPPING, NULL, "the server is stopping; run it again in a moment");
  }
  /* Looked at once more before the slot is taken: a request whose client
   * left while it waited (or before it reached the gate) runs for nobody. */
  if (gone || (slot_free(g, kind) && srv_hung_up())) {
    g->abandoned[kind]++;
    pthread_cond_broadcast(&g->freed); /* the slot this waiter was woken for goes to another */
    pthread_mutex_unlock(&g->lock);
    return lab_fail(err, LAB_E_CLIENT_GONE, NULL, "the client closed the connection before the run started");
  }
  if (!slot_free(g, kind)) {
    g->busy[kind]++;
    /* Those running should be done in about their estimates shared over the slots. */
    *retry_s = ceil(g->est_running_ms / g->slots / 1000.0);
    int held = g->kind_running[kind];
    pthread_mutex_unlock(&g->lock);
    return kind == SRV_RUN_READER
               ? lab_fail(err, LAB_E_BUSY, NULL,
                          "this server is already reading %d uploads, as many as it reads at once; retry in a few "
                          "seconds",
                          held)
               : lab_fail(err, LAB_E_BUSY, NULL,
                          "this server is already simulating %d runs, as many as it runs at once; retry in a few "
                          "seconds",
                          held);
  }
  settle_share(g);
  g->running++;
  g->kind_running[kind]++;
  g->est_running_ms += est_ms;
  slot->kind = kind;
  slot->est_ms = est_ms;
  slot->share0 = g->share_ms;
  pthread_mutex_unlock(&g->lock);
  slot->thread0_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
  return 0;
}

double srv_gate_leave(srv_sim_gate *g, srv_gate_slot *slot, double *thread_ms) {
  double own = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - slot->thread0_ms;
  pthread_mutex_lock(&g->lock);
  settle_share(g);
  double charged = g->share_ms - slot->share0;
  g->running--;
  g->kind_running[slot->kind]--;
  g->est_running_ms -= slot->est_ms;
  if (g->running == 0) g->est_running_ms = 0; /* no rounding drift */
  pthread_cond_broadcast(&g->freed); /* waiters of either kind: one of them may take it */
  pthread_mutex_unlock(&g->lock);
  if (thread_ms) *thread_ms = own;
  return charged > own ? charged : own;
}

/* A simulation's cutoff (lab/base/cutoff.h): stop between steps once the
 * client has hung up, looked at most every HANGUP_LOOK_S. */
typedef struct sim_watch {
  double next_look_s;
  srv_sim_gate *g;
} sim_watch;

void srv_gate_abandon(srv_sim_gate *g, srv_run_kind kind) {
  pthread_mutex_lock(&g->lock);
  g->abandoned[kind]++;
  pthread_mutex_unlock(&g->lock);
}

static int client_left(void *ctx, lab_error *err) {
  sim_watch *w = ctx;
  double now = lab_clock_s();
  if (now < w->next_look_s) return 0;
  w->next_look_s = now + HANGUP_LOOK_S;
  if (!srv_hung_up()) return 0;
  srv_gate_abandon(w->g, SRV_RUN_SIMULATED);
  return lab_fail(err, LAB_E_CLIENT_GONE, NULL, "the client closed the connection; the run was stopped");
}

int srv_sim_gate_run(srv_sim_gate *g, const lab_experiment *e, const lab_params *p, const char *profile,
                     cJSON **out, srv_sim_cost *cost, lab_error *err) {
  srv_sim_cost none;
  if (!cost) cost = &none;
  memset(cost, 0, sizeof *cost);
  *out = NULL;
  if (srv_sim_budget_check(e, p, g->budget_ms, err)) return -1;
  const char *param = NULL;
  double est = lab_experiment_cpu_ms(e, p, &param);
  srv_gate_slot slot;
  if (srv_gate_enter(g, SRV_RUN_SIMULATED, est, g->wait_s, &slot, &cost->retry_after_s, err)) return -1;
  sim_watch watch = {lab_clock_s() + HANGUP_LOOK_S, g};
  lab_cutoff_fn old_fn;
  void *old_ctx;
  lab_cutoff_set(client_left, &watch, &old_fn, &old_ctx);
  int rc = lab_simulate_checked(e, p, profile, out, err);
  lab_cutoff_set(old_fn, old_ctx, NULL, NULL);
  cost->cpu_ms = srv_gate_leave(g, &slot, &cost->thread_ms);
  return rc;
}

void srv_sim_gate_stop(srv_sim_gate *g) {
  pthread_mutex_lock(&g->lock);
  g->stopping = 1;
  pthread_cond_broadcast(&g->freed);
  pthread_mutex_unlock(&g->lock);
}

void srv_sim_gate_counts(srv_sim_gate *g, srv_gate_counts *out) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&g->lock);
  out->slots = g->slots;
  out->reader_slots = g->reader_slots;
  for (int k = 0; k < SRV_RUN_KINDS; k++) {
    out->running[k] = g->kind_running[k];
    out->waiting[k] = g->kind_waiting[k];
    out->busy[k] = g->busy[k];
    out->abandoned[k] = g->abandoned[k];
  }
  pthread_mutex_unlock(&g->lock);
}
