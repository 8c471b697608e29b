/* The PostgreSQL store's schema, as numbered migrations. The first process
 * to open an empty database applies them; processes starting at the same
 * time wait on an advisory lock and then find them applied. Each migration
 * runs in its own transaction with its version recorded, so a crash leaves
 * the schema at a whole version. A database of a newer gpulab is refused. */
#include <stdio.h>
#include <stdlib.h>

#include "store_pg.h"

#define MIGRATE_LOCK 7345 /* pg_advisory_lock key: one migrator at a time */

/* Times are ms since the epoch (bigint). Runs, workers and limit events use
 * the database's clock (gpulab_now_ms), so servers and workers on several
 * machines agree; sessions keep the server's, as in SQLite. runs.learner_id
 * is the session's learner, kept on the run so the fair queue needs no join
 * through sessions; learners.last_served orders it (serve_seq). */
static const char v1[] =
    "CREATE FUNCTION gpulab_now_ms() RETURNS bigint LANGUAGE sql VOLATILE"
    " AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;"
    "CREATE TABLE class(id int PRIMARY KEY CHECK (id = 1), config_json text NOT NULL,"
    " instructor_hash bytea NOT NULL, created bigint NOT NULL);"
    "CREATE TABLE learners(id bigserial PRIMARY KEY, token_hash bytea NOT NULL UNIQUE, name text NOT NULL,"
    " created bigint NOT NULL, gpu_ms_used double precision NOT NULL DEFAULT 0,"
    " cpu_ms_used double precision NOT NULL DEFAULT 0, last_served bigint);"
    "CREATE TABLE sessions(id bigserial PRIMARY KEY, token_hash bytea NOT NULL UNIQUE, name text NOT NULL,"
    " created bigint NOT NULL, last_seen bigint NOT NULL, gpu_ms_used double precision NOT NULL DEFAULT 0,"
    " ended bigint, learner_id bigint REFERENCES learners(id));"
    "CREATE INDEX sessions_by_learner ON sessions(learner_id);"
    "CREATE TABLE workers(id serial PRIMARY KEY, kind text NOT NULL, host text NOT NULL, pid int NOT NULL,"
    " gpu int NOT NULL, cuda_visible_devices text NOT NULL, slurm_job_id text NOT NULL, device_json text,"
    " started_at bigint NOT NULL, heartbeat_at bigint NOT NULL, run_id bigint, runs_done bigint NOT NULL DEFAULT 0,"
    " restarts bigint NOT NULL DEFAULT 0, gone_at bigint);"
    "CREATE TABLE runs(id bigserial PRIMARY KEY, session_id bigint NOT NULL REFERENCES sessions(id),"
    " learner_id bigint, experiment text NOT NULL, params_json text, backend text NOT NULL,"
    " status text NOT NULL CHECK (status IN ('queued','running','done','failed','cancelled')),"
    " error_code text, result_json text, gpu_ms double precision NOT NULL DEFAULT 0,"
    " gpu_ms_reserved double precision NOT NULL DEFAULT 0, queued_at bigint NOT NULL, started_at bigint,"
    " finished_at bigint, worker_id int, attempts int NOT NULL DEFAULT 0);"
    "CREATE INDEX runs_by_session ON runs(session_id, id);"
    "CREATE INDEX runs_live ON runs(status, id) WHERE status IN ('queued','running');"
    "CREATE INDEX runs_live_by_learner ON runs(learner_id) WHERE status IN ('queued','running');"
    "CREATE INDEX runs_answered ON runs(learner_id, id) WHERE status = 'done' AND backend <> 'cuda';"
    "CREATE TABLE quiz_attempts(id bigserial PRIMARY KEY, session_id bigint NOT NULL REFERENCES sessions(id),"
    " lesson text NOT NULL, score double precision NOT NULL, total double precision NOT NULL,"
    " passed boolean NOT NULL, answers_json text, at bigint NOT NULL);"
    "CREATE INDEX quiz_by_session ON quiz_attempts(session_id, id);"
    "CREATE TABLE limit_events(id bigserial PRIMARY KEY, kind text NOT NULL, subject text NOT NULL,"
    " at bigint NOT NULL, cost double precision NOT NULL DEFAULT 0);"
    "CREATE INDEX limit_events_by_subject ON limit_events(kind, subject, at);"
    "CREATE INDEX limit_events_by_time ON limit_events(at);"
    "CREATE SEQUENCE serve_seq;";

/* v2: the request that queued a run, so the worker's log names it as the
 * server's request log does (request_id.h). */
static const char v2[] = "ALTER TABLE runs ADD COLUMN request_id text;";

/* Worker health (gpu_worker.c): what a worker's last device check found —
 * a worker without a usable GPU takes no runs —, the runs it failed or
 * handed back, its GPU's memory; and on a run, the worker that handed it
 * back, so that another one takes it. */
static const char v3[] =
    "ALTER TABLE workers ADD COLUMN usable boolean NOT NULL DEFAULT true,"
    " ADD COLUMN unusable_reason text NOT NULL DEFAULT '', ADD COLUMN runs_failed bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN gpu_mem_total_bytes double precision, ADD COLUMN gpu_mem_used_bytes double precision;"
    "ALTER TABLE runs ADD COLUMN handed_back_by int;";

/* A new version appends here and the old ones stay as they were: the
 * upgrade test (tests/scale/backup.test.mjs) migrates a database made with
 * the previous version's DDL and data (tests/scale/schema_v1.sql). */
/* v4: whether a server has counted the run in its run metrics (store.h:
 * runs_count_claim). Runs finished before the upgrade count as counted: the
 * server that served them counted them, or never will. */
static const char v4[] =
    "ALTER TABLE runs ADD COLUMN counted boolean NOT NULL DEFAULT true;"
    "ALTER TABLE runs ALTER COLUMN counted SET DEFAULT false;"
    "CREATE INDEX runs_uncounted ON runs(id) WHERE NOT counted AND backend = 'cuda'"
    " AND status IN ('done','failed','cancelled');";

/* v5: the measurement kit runs learners hand in (store.h, handin_add): the
 * file and its summary, each with its learner, kept until the class's
 * database goes. */
static const char v5[] =
    "CREATE TABLE handins(id bigserial PRIMARY KEY, learner_id bigint NOT NULL REFERENCES learners(id),"
    " session_id bigint NOT NULL REFERENCES sessions(id), at bigint NOT NULL, kit_json text NOT NULL,"
    " summary_json text NOT NULL);"
    "CREATE INDEX handins_by_learner ON handins(learner_id, id);";

static const char *const migrations[] = {v1, v2, v3, v4, v5};
#define MIGRATIONS (int)(sizeof migrations / sizeof migrations[0])

static int applied_version(pg_store *st, PGconn *c, int *version, lab_error *err) {
  PGresult *r = srv_pg_run(st, c, "SELECT coalesce(max(version), 0) FROM gpulab_schema", NULL, "reading the schema version", err);
  if (!r) return -1;
  *version = (int)srv_pg_get_i64(r, 0, 0);
  PQclear(r);
  return 0;
}

static int apply(pg_store *st, PGconn *c, int version, lab_error *err) {
  pg_args a = {0};
  srv_pg_i64(&a, version);
  if (srv_pg_do(st, c, "BEGIN", NULL, "upgrading the schema", err) != 0) return -1;
  if (srv_pg_do(st, c, migrations[version - 1], NULL, "upgrading the schema", err) != 0 ||
      srv_pg_do(st, c, "INSERT INTO gpulab_schema(version, applied) VALUES($1, (extract(epoch FROM now())*1000)::bigint)",
                &a, "upgrading the schema", err) != 0 ||
      srv_pg_do(st, c, "COMMIT", NULL, "upgrading the schema", err) != 0) {
    srv_pg_rollback(c);
    return -1;
  }
  return 0;
}

int srv_pg_migrate(pg_store *st, PGconn *c, lab_error *err) {
  pg_args key = {0};
  srv_pg_i64(&key, MIGRATE_LOCK);
  /* A first start creates every table while the others wait here. */
  if (srv_pg_do(st, c, "SET lock_timeout = '60s'", NULL, "opening the database", err) != 0 ||
      srv_pg_do(st, c, "SELECT pg_advisory_lock($1)", &key, "waiting for another server to create the tables", err))
    return -1;
  int version = 0, rc = -1;
  if (srv_pg_do(st, c,
                "CREATE TABLE IF NOT EXISTS gpulab_schema(version int PRIMARY KEY, applied bigint NOT NULL)", NULL,
                "creating the tables", err) != 0 ||
      applied_version(st, c, &version, err) != 0)
    goto done;
  if (version > MIGRATIONS) {
    lab_fail(err, LAB_E_STORE_UNAVAILABLE, "store",
             "the class database %.200s was written by a newer gpulab (schema %d, this one knows %d); use that version "
             "or another database",
             st->where, version, MIGRATIONS);
    goto done;
  }
  for (int v = version + 1; v <= MIGRATIONS; v++)
    if (apply(st, c, v, err) != 0) goto done;
  if (version < MIGRATIONS)
    fprintf(stderr, "gpulab: the class database %s: schema %d -> %d\n", st->where, version, MIGRATIONS);
  rc = 0;
done:;
  lab_error ignored;
  (void)srv_pg_do(st, c, "SELECT pg_advisory_unlock($1)", &key, "opening the database", &ignored);
  (void)srv_pg_do(st, c, "SET lock_timeout = '5s'", NULL, "opening the database", &ignored);
  return rc;
}
