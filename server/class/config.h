/* Class mode's configuration: a JSON file (`serve --class FILE`) and/or
 * flags that override it. Strict: an unknown key, a wrong type or a value
 * out of bounds is a usage error naming the file, the key and the bounds. */
#ifndef SRV_CONFIG_H
#define SRV_CONFIG_H

#include <stddef.h>

#define SRV_MAX_GPUS 16
#define SRV_CLASS_NAME_MAX 80
#define SRV_JOIN_CODE_LEN 8 /* A-Z and 2-9 without O, I (so no 0/O or 1/I mix-ups) */

typedef struct srv_class_config {
  char name[SRV_CLASS_NAME_MAX + 1];
  char db[4096]; /* the store: an SQLite file (relative paths in the file are from its folder) or a
                    PostgreSQL URI "postgresql://…" (store.h: srv_store_open_spec) */
  char join_code[SRV_JOIN_CODE_LEN + 1];  /* normalised; "" = generate one at start */
  long runs_per_minute;                   /* per session */
  long gpu_seconds_per_session;
  long max_gpu_mem_gib;                   /* the most GPU memory one experiment may ask for */
  long deadline_s;                        /* per GPU run */
  long queue_max;                         /* runs waiting for the GPU, whole class */
  long max_body_kib;
  long max_connections;
  long max_connections_per_address;        /* 0: all but an eighth of max_connections (conn_limit.h) */
  long queued_runs_per_learner;           /* GPU runs one learner may have waiting */
  long sim_runs_per_minute;               /* simulated runs per learner */
  long sim_cpu_seconds_per_minute;        /* CPU time those may take, per learner */
  long stored_runs_per_learner;           /* simulated results kept per learner (oldest go first) */
  long session_idle_s, session_max_s;     /* a session ends this long after its last request / its join */
  long class_size;                        /* joins admitted at once, from any address (throttle.h) */
  long join_rate;                         /* joins a second once those are in */
  char tls_cert[4096], tls_key[4096];     /* both "" = plain HTTP */
  int gpus[SRV_MAX_GPUS];
  int gpu_count;
  unsigned long given; /* a bit per setting the file or a flag set (config.c's table order) */
} srv_class_config;

/* The flags seen on the command line, kept raw until the file is read:
 * flags override the file whatever their order. */
enum { SRV_CLASS_FLAG_COUNT = 24 };
typedef struct srv_class_flags {
  const char *file;                        /* --class FILE */
  const char *store;                       /* --store URL (the same setting as --db) */
  const char *value[SRV_CLASS_FLAG_COUNT]; /* by position in config.c's table */
} srv_class_flags;

/* Matches argv[*i] against a class option ("--db F" or "--db=F"; --store
 * URL is --db's setting in the other spelling), recording
 * it in f. Returns 1 when matched, 0 when not a class option, -1 when its
 * value is missing (msg says which). --deadline is matched too: in class
 * mode it overrides limits.deadline_s, alone it does not turn class mode on. */
int srv_class_flag(int argc, char **argv, int *i, srv_class_flags *f, char *msg, size_t n);

/* Builds the configuration: defaults, then the file, then the flags.
 * Returns 1 for class mode (cfg filled), 0 when no class option was given,
 * -1 with msg ("FILE: limits.queue_max: must be an integer from 1 to 10000"). */
int srv_class_config_build(const srv_class_flags *f, srv_class_config *cfg, char *msg, size_t n);

void srv_class_config_defaults(srv_class_config *cfg);

/* Reads a config file into cfg (on top of what it holds). 0 or -1 with msg. */
int srv_class_config_load(const char *path, srv_class_config *cfg, char *msg, size_t n);
/* The same for a file's text already read: `path` names it in messages and
 * its folder is where relative paths start. */
int srv_class_config_parse(const char *path, const char *text, size_t len, srv_class_config *cfg, char *msg,
                           size_t n);

/* The class-wide settings of cfg (name, join code, limits) as the class
 * file's JSON, which is what a store keeps of its class (malloc'd; NULL when
 * out of memory). TLS, GPUs and the store itself belong to each server. */
char *srv_class_config_shared_text(const srv_class_config *cfg);
/* Settles cfg against the class a store holds (`stored`: shared_text of
 * it). Each class-wide setting cfg was not given takes the stored value;
 * one given that differs is a contradiction: -1 with msg naming the
 * setting, both values and what to do — unless update is 1, when what was
 * given wins (the caller stores the result). Returns 0, or -1. */
int srv_class_config_adopt(srv_class_config *cfg, const char *stored, const char *where, int update, char *msg,
                           size_t n);
/* Takes every class limit of `stored` (shared_text, as a store keeps it)
 * into cfg — another server changed the class — calling changed() with the
 * limit's key ("queue_max") and both values for each one that differs.
 * Returns 0, or -1 with msg when stored cannot be read (cfg unchanged). */
typedef void (*srv_class_setting_changed)(const char *key, long was, long now, void *arg);
int srv_class_config_follow(srv_class_config *cfg, const char *stored, srv_class_setting_changed changed, void *arg,
                            char *msg, size_t n);
/* Marks the setting of `flag` ("--deadline") as given. */
void srv_class_config_mark_given(srv_class_config *cfg, const char *flag);

/* Normalises a join code typed by a person ("abcd-efgh", "ABCDEFGH") to 8
 * upper-case characters; returns 0, or -1 when it cannot be one. */
int srv_join_code_normalise(const char *text, char out[SRV_JOIN_CODE_LEN + 1]);

/* The class options for `gpulab help`, with their bounds. */
extern const char srv_class_help[];

#endif
