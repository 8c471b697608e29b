/* The server's bound on simulated runs, which spend its own CPU: a run
 * whose estimated CPU (lab_experiment_cpu_ms) is above the budget is
 * refused before it starts (400 over_cpu_budget, naming the parameter to
 * lower), and at most `slots` simulations run at once; up to
 * SRV_SIM_WAITING_PER_SLOT × slots others wait, each up to wait_s, and the
 * rest get 503 busy with Retry-After at once: a crowd of them can neither
 * take every CPU nor hold every HTTP thread, so /api/health and the static
 * files keep answering. The CLI has no gate: its
 * runs use the user's own machine. */
#ifndef SRV_SIM_GATE_H
#define SRV_SIM_GATE_H

#include <pthread.h>

#include "registry.h"

typedef struct srv_sim_gate {
  double budget_ms; /* estimated CPU one run may take (reference-machine ms) */
  int slots;        /* simulations at once */
  double wait_s;    /* how long a run waits for a slot before busy */
  pthread_mutex_t lock;
  pthread_cond_t freed;
  int running, waiting;
  int stopping; /* srv_sim_gate_stop: waiters leave, no run starts */
  double est_running_ms; /* the estimates of the runs holding slots */
  double cpu_at_ms;      /* the process's CPU at the last start or end of a run */
  double share_ms;       /* the process's CPU per running simulation, summed over time */
} srv_sim_gate;

/* What one simulated run cost: cpu_ms is its share of the process's CPU
 * (see sim_gate.c), thread_ms the part its own thread spent. */
typedef struct srv_sim_cost {
  double cpu_ms, thread_ms;
  double retry_after_s; /* set with a busy refusal */
} srv_sim_cost;

/* Defaults: a budget that lets every experiment run with its default
 * parameters (and crossover at its largest, which its lesson suggests)
 * and refuses train_step at its largest; one slot per online CPU. */
#define SRV_SIM_BUDGET_MS 2000.0
#define SRV_SIM_WAIT_S 10.0
#define SRV_SIM_WAITING_PER_SLOT 4

/* slots 0: one per online CPU. Returns 0, or -1 when the lock cannot be made. */
int srv_sim_gate_init(srv_sim_gate *g, double budget_ms, int slots, double wait_s);
void srv_sim_gate_free(srv_sim_gate *g);
/* The server is stopping: runs waiting for a slot, and any asking later,
 * get server_stopping at once (runs already simulating finish). */
void srv_sim_gate_stop(srv_sim_gate *g);

/* over_cpu_budget (naming the parameter the estimate names) when e's
 * estimate for these checked params is above budget_ms. */
int srv_sim_budget_check(const lab_experiment *e, const lab_params *p, double budget_ms, lab_error *err);

/* For params p that lab_experiment_params checked for e (the caller
 * validated once; nothing is parsed here): checks the budget, waits for a
 * slot and simulates (lab_simulate_checked); cost (may be NULL) gets what
 * the run cost. Returns 0, or -1 with err set (busy: cost->retry_after_s
 * says when to retry). */
int srv_sim_gate_run(srv_sim_gate *g, const lab_experiment *e, const lab_params *p, const char *profile,
                     cJSON **out, srv_sim_cost *cost, lab_error *err);

#endif
