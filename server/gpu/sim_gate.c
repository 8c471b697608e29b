/* Simulated runs under a CPU budget and a bounded number of slots (see
 * sim_gate.h), and what each run is charged.
 *
 * Charging: a simulation's CPU is not only its handler thread's: crossover
 * multiplies on all of OpenBLAS's threads. So each run is charged its
 * share of the whole process's CPU (CLOCK_PROCESS_CPUTIME_ID) while it
 * held a slot: whenever a run starts or ends, the process CPU spent since
 * the previous such moment is divided equally among the runs that held a
 * slot through it (share_ms), and a run is charged how much share_ms grew
 * between its start and its end. Alone, a run is charged the process's
 * CPU over its run; with others, the sum of the charges is still the
 * process's CPU while any ran. It is an approximation, said plainly in
 * docs/api.md: runs sharing an interval are charged equally whatever each
 * really took, and the interval also holds the CPU of the server's other
 * threads (a few ms for requests answered meanwhile) and OpenBLAS's threads
 * spinning after a previous run. A run is never charged less than its own
 * thread's CPU. */
#include "sim_gate.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abstime.h"

static double cpu_ms(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int srv_sim_gate_init(srv_sim_gate *g, double budget_ms, int slots, double wait_s) {
  memset(g, 0, sizeof *g);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  g->budget_ms = budget_ms;
  g->slots = slots > 0 ? slots : ncpu > 0 ? (int)ncpu : 1;
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

/* Waits for a slot until wait_s has passed; 0 with the slot taken and
 * *share0 set, -1 (busy) with *retry_s, or -2 when the server is stopping. */
static int enter(srv_sim_gate *g, double est_ms, double *share0, double *retry_s) {
  struct timespec until = srv_abstime_after(g->wait_s);
  pthread_mutex_lock(&g->lock);
  int rc = 0;
  if (g->running >= g->slots && g->waiting < SRV_SIM_WAITING_PER_SLOT * g->slots) {
    g->waiting++; /* each waiter holds an HTTP thread: so many at most */
    while (g->running >= g->slots && rc == 0 && !g->stopping)
      rc = pthread_cond_timedwait(&g->freed, &g->lock, &until);
    g->waiting--;
  }
  if (g->stopping) {
    pthread_mutex_unlock(&g->lock);
    return -2;
  }
  if (g->running >= g->slots) {
    /* Those running should be done in about their estimates shared over the slots. */
    *retry_s = ceil(g->est_running_ms / g->slots / 1000.0);
    pthread_mutex_unlock(&g->lock);
    return -1;
  }
  settle_share(g);
  g->running++;
  g->est_running_ms += est_ms;
  *share0 = g->share_ms;
  pthread_mutex_unlock(&g->lock);
  return 0;
}

static double leave(srv_sim_gate *g, double est_ms, double share0) {
  pthread_mutex_lock(&g->lock);
  settle_share(g);
  double charged = g->share_ms - share0;
  g->running--;
  g->est_running_ms -= est_ms;
  if (g->running == 0) g->est_running_ms = 0; /* no rounding drift */
  pthread_cond_signal(&g->freed);
  pthread_mutex_unlock(&g->lock);
  return charged;
}

int srv_sim_gate_run(srv_sim_gate *g, const lab_experiment *e, const lab_params *p, const char *profile,
                     cJSON **out, srv_sim_cost *cost, lab_error *err) {
  srv_sim_cost none;
  if (!cost) cost = &none;
  memset(cost, 0, sizeof *cost);
  *out = NULL;
  if (srv_sim_budget_check(e, p, g->budget_ms, err)) return -1;
  const char *param = NULL;
  double est = lab_experiment_cpu_ms(e, p, &param), share0 = 0;
  int entered = enter(g, est, &share0, &cost->retry_after_s);
  if (entered == -2)
    return lab_fail(err, LAB_E_SERVER_STOPPING, NULL, "the server is stopping; run it again in a moment");
  if (entered != 0)
    return lab_fail(err, LAB_E_BUSY, NULL,
                    "this server is already simulating %d runs, as many as it runs at once; retry in a few seconds",
                    g->slots);
  double t0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
  int rc = lab_simulate_checked(e, p, profile, out, err);
  cost->thread_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
  cost->cpu_ms = leave(g, est, share0);
  if (cost->cpu_ms < cost->thread_ms) cost->cpu_ms = cost->thread_ms;
  return rc;
}

void srv_sim_gate_stop(srv_sim_gate *g) {
  pthread_mutex_lock(&g->lock);
  g->stopping = 1;
  pthread_cond_broadcast(&g->freed);
  pthread_mutex_unlock(&g->lock);
}
