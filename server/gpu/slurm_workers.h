/* `gpulab serve --workers slurm:N`: keeps N long-lived GPU workers of the
 * class running as Slurm batch jobs — `sbatch --gres=gpu:1 … gpulab worker`
 * (Slurm binds each to one GPU through CUDA_VISIBLE_DEVICES) — never one
 * job per run: a queued job costs seconds. The jobs are the class's: named
 * gpulab-worker-<a tag of the store's address>, owned by Slurm, they
 * outlive the server that submitted them. Of the servers started with
 * --workers slurm:N, the one holding the store's keeper role (store.h)
 * counts the class's live jobs (squeue) and submits what is missing, after
 * a back-off when they keep ending fast; when it dies another takes the
 * role over within a second or two. A server that stops lets the role go;
 * the last one that can keep the jobs cancels them (scancel). sbatch, squeue and
 * scancel are Slurm's stable interface; the store's URI reaches the
 * workers in their environment (GPULAB_STORE), never on a command line. */
#ifndef SRV_SLURM_WORKERS_H
#define SRV_SLURM_WORKERS_H

#include "error.h"
#include "store.h"
#include "workers_spec.h"

typedef struct srv_slurm_workers srv_slurm_workers;

/* Starts the keeper (a thread) for the class in store (at store_uri); NULL
 * with err when it cannot. */
srv_slurm_workers *srv_slurm_workers_start(const srv_workers_spec *spec, srv_store *store, const char *store_uri,
                                           lab_error *err);
/* Lets the role go — cancelling the class's jobs when no other server can
 * keep them — and frees; bounded to about 2 s. NULL is allowed. */
void srv_slurm_workers_stop(srv_slurm_workers *k);

#endif
