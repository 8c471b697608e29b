/* Class mode's shared state: the configuration, the open store, the join
 * code and the instructor token's hash (the token itself is kept nowhere).
 * srv_app.cls points at one; it is NULL when the server runs for one learner. */
#ifndef SRV_CLASS_H
#define SRV_CLASS_H

#include "config.h"
#include "store.h"

typedef struct srv_class {
  srv_class_config cfg;
  srv_store *store;
  char join_code[SRV_JOIN_CODE_LEN + 1];        /* normalised, e.g. "ABCDEFGH" */
  unsigned char instructor_hash[SRV_HASH_BYTES]; /* SHA-256 of the instructor token */
  struct srv_class_runs *runs; /* the GPU queue (runs.h), once started; NULL before */
} srv_class;

/* Opens the store and settles the join code (the configured one, else a
 * random one) and the instructor token (GPULAB_INSTRUCTOR_TOKEN, else a
 * random one, written to token_out; token_out is "" when it came from the
 * environment). Returns 0, or -1 with err (cls then holds nothing open). */
int srv_class_open(srv_class *cls, const srv_class_config *cfg, char token_out[65], lab_error *err);
void srv_class_close(srv_class *cls);

#endif
