/* `gpulab serve --workers slurm:N`: keeps N long-lived GPU workers running
 * as Slurm jobs — `srun --gres=gpu:1 … gpulab worker` (Slurm binds each to
 * one GPU through CUDA_VISIBLE_DEVICES) — never one job per run: a queued
 * job costs seconds. A job that ends (it crashed, was cancelled, reached
 * its time limit) is replaced, after a back-off when they keep ending
 * fast; at shutdown every job is cancelled (scancel). srun, squeue and
 * scancel are Slurm's stable interface; the store's URI reaches the
 * workers in their environment (GPULAB_STORE), never on a command line. */
#ifndef SRV_SLURM_WORKERS_H
#define SRV_SLURM_WORKERS_H

#include "error.h"
#include "workers_spec.h"

typedef struct srv_slurm_workers srv_slurm_workers;

/* Starts the keeper (a thread); NULL with err when it cannot. */
srv_slurm_workers *srv_slurm_workers_start(const srv_workers_spec *spec, const char *store_uri, lab_error *err);
/* Cancels the jobs, waits for their sruns (bounded), frees. NULL is allowed. */
void srv_slurm_workers_stop(srv_slurm_workers *k);
/* The job name every job of this keeper carries (for squeue/scancel). */
const char *srv_slurm_workers_name(const srv_slurm_workers *k);

#endif
