/* Class mode's shared state: the configuration, the open store, the join
 * code and the instructor token's hash (the token itself is kept nowhere).
 * srv_app.cls points at one; it is NULL when the server runs for one learner.
 * The class itself lives in the store (store.h: class_get), so every
 * server of a class, and every start of one, uses the same class. */
#ifndef SRV_CLASS_H
#define SRV_CLASS_H

#include "browser_sims.h"
#include "config.h"
#include "store.h"

/* Where the instructor token came from at this start. */
typedef enum srv_token_origin {
  SRV_TOKEN_MADE,   /* made now (a new class, or --new-instructor-token): print it, once */
  SRV_TOKEN_ENV,    /* GPULAB_INSTRUCTOR_TOKEN */
  SRV_TOKEN_STORED, /* the class's, made when it was created: only its hash is known */
} srv_token_origin;

typedef struct srv_class {
  srv_class_config cfg;
  srv_store *store;
  char join_code[SRV_JOIN_CODE_LEN + 1];        /* normalised, e.g. "ABCDEFGH" */
  unsigned char instructor_hash[SRV_HASH_BYTES]; /* SHA-256 of the instructor token */
  int created;                 /* this start created the class in its store */
  struct srv_class_runs *runs; /* the GPU queue (runs.h), once started; NULL before */
  /* Runs learners' browsers simulated and reported (POST /api/class/simulated)
   * since this server started, per learner: counted for the instructor, never
   * stored as a run, never charged. */
  srv_browser_sims browser_sims;
} srv_class;

/* How a start treats a class its store already holds. */
typedef struct srv_class_start {
  int update;    /* --update-class: the settings given replace the stored ones */
  int new_token; /* --new-instructor-token: a new token (or GPULAB_INSTRUCTOR_TOKEN's) replaces the stored one */
} srv_class_start;

/* Opens the store cfg names and settles the class: a store without one gets
 * this configuration, its join code (the configured one, else a random one)
 * and an instructor token (GPULAB_INSTRUCTOR_TOKEN, else a random one,
 * written to token_out); a store with one gives its settings to every
 * setting cfg was not given, and a given one that contradicts it refuses
 * the start (usage, with what to do) unless `how` allows the change.
 * Returns 0 (cls->cfg is the class's), or -1 with err (nothing open). */
int srv_class_open(srv_class *cls, const srv_class_config *cfg, srv_class_start how, char token_out[65],
                   srv_token_origin *origin, lab_error *err);
void srv_class_close(srv_class *cls);

/* The class a store holds, as a configuration over the defaults (a GPU
 * worker reads its deadline there); *exists 0 while it holds none. */
int srv_class_read(srv_store *st, srv_class_config *cfg, int *exists, lab_error *err);

#endif
