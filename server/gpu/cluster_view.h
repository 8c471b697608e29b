/* A server's view of a shared store's GPU queue and workers (store.h),
 * refreshed in the background every half second, so learners polling their
 * runs and health checks never cost a query each. Answers what queue.h
 * answers for the in-process queue: a run's position and estimate, the
 * queue as JSON, a learner's runs; and the workers, which of them are
 * alive, and whether the store answered at the last look. It also hands
 * back the runs of workers that died (store.h: workers_reap). */
#ifndef SRV_CLUSTER_VIEW_H
#define SRV_CLUSTER_VIEW_H

#include <stdint.h>

#include "queue.h"
#include "store.h"

typedef struct srv_cluster_view srv_cluster_view;

/* Reads the store once and starts the refresher; NULL with err on failure. */
srv_cluster_view *srv_cluster_view_start(srv_store *st, lab_error *err);
/* Stops the refresher and frees the view. NULL is allowed. */
void srv_cluster_view_stop(srv_cluster_view *v);
/* Reads the store now unless the view is younger than max_age_s. */
void srv_cluster_view_refresh(srv_cluster_view *v, double max_age_s);
/* Makes the view one read after since_s (lab_clock_s): a run queued at
 * since_s is in it, with its true place (a read in flight that began
 * earlier does not count). */
void srv_cluster_view_refresh_since(srv_cluster_view *v, double since_s);

/* As srv_queue_status_of (queue.h), from the last look. */
void srv_cluster_view_status(srv_cluster_view *v, int64_t run_id, srv_queue_status *st);
/* A run queued after the last look (not in it yet): as if it were last. */
void srv_cluster_view_status_last(srv_cluster_view *v, const char *experiment, srv_queue_status *st);
int srv_cluster_view_waiting(srv_cluster_view *v);
int srv_cluster_view_running(srv_cluster_view *v);
/* Runs of this learner queued or running. */
int srv_cluster_view_learner_runs(srv_cluster_view *v, int64_t learner_id);
/* An experiment's typical GPU run time (as srv_queue_run_estimate). */
double srv_cluster_view_estimate(srv_cluster_view *v, const char *experiment);
/* When a place is expected to free up: the soonest end of a running run
 * (of this learner when it has one), at least 1 s. */
double srv_cluster_view_soonest_end(srv_cluster_view *v, int64_t learner_id);
/* As srv_queue_json: [{"id","session_id","experiment","status","position","estimate_s"}]; with no
 * usable worker alive, a queued run's estimate_s is null and "note" says why. */
cJSON *srv_cluster_view_queue_json(srv_cluster_view *v);

/* Workers with a heartbeat at most SRV_WORKER_ALIVE_MS old and a usable
 * GPU: those that take runs. */
int srv_cluster_view_alive(srv_cluster_view *v);
/* Workers alive without a usable GPU (they take no runs). */
int srv_cluster_view_unusable(srv_cluster_view *v);
/* A copy of the last workers list (store.h: workers_list); caller owns. */
cJSON *srv_cluster_view_workers(srv_cluster_view *v);
/* GPU process restarts summed over the workers listed. */
long srv_cluster_view_restarts(srv_cluster_view *v);
/* Counts finished GPU runs in this server's run metrics (metrics.h), each
 * once across every server sharing the store (store.h: runs_count_claim):
 * run_id > 0 that run, when a poll here finds it ended; 0 every run no
 * server has counted yet, as the refresher does every second, so a run no
 * one polls, or polled on another server than queued it, counts too. */
void srv_cluster_view_count(srv_cluster_view *v, int64_t run_id);
/* Whether the store answered the last look. */
int srv_cluster_view_store_ok(srv_cluster_view *v);

#endif
