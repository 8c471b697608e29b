/* The server's bound on work that spends its own CPU: simulated runs and
 * reader runs (a body computed on: POST /api/explain, /api/doctor). A
 * simulated run whose estimated CPU (lab_experiment_cpu_ms) is above the
 * budget is refused before it starts (400 over_cpu_budget, naming the
 * parameter to lower); at most `slots` runs hold a slot at once, readers
 * at most `reader_slots` of them, so a simulated run always finds one
 * soon. Up to SRV_SIM_WAITING_PER_SLOT × slots simulated runs wait, each
 * up to wait_s, and the rest get 503 busy with Retry-After at once (a
 * reader's waiting is bounded before it gets here: reader_run.h). A run
 * whose client hung up while it waited never takes its slot, and a
 * running simulation is cut short between its steps (lab/base/cutoff.h), so a
 * burst of abandoned requests leaves no line behind it. A crowd can
 * neither take every CPU nor hold every HTTP thread: /api/health and the
 * static files keep answering. The CLI has no gate: its runs use the
 * user's own machine. */
#ifndef SRV_SIM_GATE_H
#define SRV_SIM_GATE_H

#include <pthread.h>

#include "registry.h"

typedef enum srv_run_kind { SRV_RUN_SIMULATED, SRV_RUN_READER, SRV_RUN_KINDS } srv_run_kind;

typedef struct srv_sim_gate {
  double budget_ms; /* estimated CPU one simulated run may take (reference-machine ms) */
  int slots;        /* runs holding a slot at once */
  int reader_slots; /* of those, the most reader runs at once */
  double wait_s;    /* how long a run waits for a slot before busy */
  pthread_mutex_t lock;
  pthread_cond_t freed;
  int running;                      /* slots held */
  int kind_running[SRV_RUN_KINDS];  /* slots held, by kind */
  int kind_waiting[SRV_RUN_KINDS];  /* runs waiting for one, by kind */
  unsigned long busy[SRV_RUN_KINDS];      /* refused busy (for /metrics) */
  unsigned long abandoned[SRV_RUN_KINDS]; /* clients gone before or while running */
  int stopping;          /* srv_sim_gate_stop: waiters leave, no run starts */
  double est_running_ms; /* the estimates of the runs holding slots */
  double cpu_at_ms;      /* the process's CPU at the last start or end of a run */
  double share_ms;       /* the process's CPU per running run, summed over time */
} srv_sim_gate;

/* What one run cost: cpu_ms is its share of the process's CPU (see
 * sim_gate.c), thread_ms the part its own thread spent. */
typedef struct srv_sim_cost {
  double cpu_ms, thread_ms;
  double retry_after_s; /* set with a busy refusal */
} srv_sim_cost;

/* A slot held by one run (a reader holds one for each stretch of work,
 * not while its body arrives). */
typedef struct srv_gate_slot {
  srv_run_kind kind;
  double est_ms, share0, thread0_ms;
} srv_gate_slot;

/* Defaults: a budget that lets every experiment run with its default
 * parameters (and crossover at its largest, which its lesson suggests)
 * and refuses train_step at its largest; one slot per online CPU, half of
 * them (at least one) for readers. */
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
 * slot and simulates (lab_simulate_checked), stopping between steps if
 * the client hangs up (client_gone); cost (may be NULL) gets what the run
 * cost. Returns 0, or -1 with err set (busy: cost->retry_after_s says
 * when to retry). */
int srv_sim_gate_run(srv_sim_gate *g, const lab_experiment *e, const lab_params *p, const char *profile,
                     cJSON **out, srv_sim_cost *cost, lab_error *err);

/* Takes a slot for a run of `kind` estimated at est_ms (0 when unknown),
 * waiting at most wait_s for one (and never past the gate's own wait).
 * 0 with the slot in *slot; or -1 with err set: busy (*retry_s says when
 * to retry), client_gone (the client hung up: counted in `abandoned`),
 * server_stopping. */
int srv_gate_enter(srv_sim_gate *g, srv_run_kind kind, double est_ms, double wait_s, srv_gate_slot *slot,
                   double *retry_s, lab_error *err);
/* Gives the slot back; returns the CPU the run is charged for the time it
 * held it (ms), and its own thread's in *thread_ms (may be NULL). */
double srv_gate_leave(srv_sim_gate *g, srv_gate_slot *slot, double *thread_ms);

/* A run of kind whose client hung up while it ran (counted in abandoned). */
void srv_gate_abandon(srv_sim_gate *g, srv_run_kind kind);

/* The gate's counts, read at once under its lock (for /metrics). */
typedef struct srv_gate_counts {
  int slots, reader_slots;
  int running[SRV_RUN_KINDS], waiting[SRV_RUN_KINDS];
  unsigned long busy[SRV_RUN_KINDS], abandoned[SRV_RUN_KINDS];
} srv_gate_counts;
void srv_sim_gate_counts(srv_sim_gate *g, srv_gate_counts *out);
/* "simulated", "reader": the label of kind k in /metrics. */
const char *srv_run_kind_name(srv_run_kind k);

#endif
