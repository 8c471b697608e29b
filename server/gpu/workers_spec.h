/* Where a class's GPU runs run: `gpulab serve --workers local|none|slurm:N
 * [,partition=P][,time=T]`. local: inside the server (one worker per
 * configured GPU); none: the server only serves, `gpulab worker` processes
 * elsewhere run the queue; slurm:N: the server keeps N long-lived workers
 * running as Slurm jobs (slurm_workers.h). */
#ifndef SRV_WORKERS_SPEC_H
#define SRV_WORKERS_SPEC_H

#include <stddef.h>

typedef enum srv_workers_mode { SRV_WORKERS_LOCAL, SRV_WORKERS_NONE, SRV_WORKERS_SLURM } srv_workers_mode;

#define SRV_SLURM_MAX_WORKERS 256

typedef struct srv_workers_spec {
  srv_workers_mode mode;
  int count;           /* slurm: jobs kept running */
  char partition[64];  /* slurm: "" = the cluster's default */
  char time[32];       /* slurm: each job's time limit as srun --time takes it; "" = the partition's */
} srv_workers_spec;

/* Parses text; 0, or -1 with msg saying what is accepted. */
int srv_workers_spec_parse(const char *text, srv_workers_spec *out, char *msg, size_t n);

#endif
