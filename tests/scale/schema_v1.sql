-- The class database at schema version 1 (server/store/store_pg_schema.c, v1,
-- as first released): the starting point of the upgrade test
-- (tests/scale/upgrade.test.mjs), which fills it with a class, a learner, a
-- session and its runs, and starts the current server on it. Kept as it
-- was: a later version adds a migration, never edits this file.
CREATE TABLE gpulab_schema(version int PRIMARY KEY, applied bigint NOT NULL);
INSERT INTO gpulab_schema(version, applied) VALUES (1, 0);
CREATE FUNCTION gpulab_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
CREATE TABLE class(id int PRIMARY KEY CHECK (id = 1), config_json text NOT NULL, instructor_hash bytea NOT NULL, created bigint NOT NULL);
CREATE TABLE learners(id bigserial PRIMARY KEY, token_hash bytea NOT NULL UNIQUE, name text NOT NULL, created bigint NOT NULL, gpu_ms_used double precision NOT NULL DEFAULT 0, cpu_ms_used double precision NOT NULL DEFAULT 0, last_served bigint);
CREATE TABLE sessions(id bigserial PRIMARY KEY, token_hash bytea NOT NULL UNIQUE, name text NOT NULL, created bigint NOT NULL, last_seen bigint NOT NULL, gpu_ms_used double precision NOT NULL DEFAULT 0, ended bigint, learner_id bigint REFERENCES learners(id));
CREATE INDEX sessions_by_learner ON sessions(learner_id);
CREATE TABLE workers(id serial PRIMARY KEY, kind text NOT NULL, host text NOT NULL, pid int NOT NULL, gpu int NOT NULL, cuda_visible_devices text NOT NULL, slurm_job_id text NOT NULL, device_json text, started_at bigint NOT NULL, heartbeat_at bigint NOT NULL, run_id bigint, runs_done bigint NOT NULL DEFAULT 0, restarts bigint NOT NULL DEFAULT 0, gone_at bigint);
CREATE TABLE runs(id bigserial PRIMARY KEY, session_id bigint NOT NULL REFERENCES sessions(id), learner_id bigint, experiment text NOT NULL, params_json text, backend text NOT NULL, status text NOT NULL CHECK (status IN ('queued','running','done','failed','cancelled')), error_code text, result_json text, gpu_ms double precision NOT NULL DEFAULT 0, gpu_ms_reserved double precision NOT NULL DEFAULT 0, queued_at bigint NOT NULL, started_at bigint, finished_at bigint, worker_id int, attempts int NOT NULL DEFAULT 0);
CREATE INDEX runs_by_session ON runs(session_id, id);
CREATE INDEX runs_live ON runs(status, id) WHERE status IN ('queued','running');
CREATE INDEX runs_live_by_learner ON runs(learner_id) WHERE status IN ('queued','running');
CREATE INDEX runs_answered ON runs(learner_id, id) WHERE status = 'done' AND backend <> 'cuda';
CREATE TABLE quiz_attempts(id bigserial PRIMARY KEY, session_id bigint NOT NULL REFERENCES sessions(id), lesson text NOT NULL, score double precision NOT NULL, total double precision NOT NULL, passed boolean NOT NULL, answers_json text, at bigint NOT NULL);
CREATE INDEX quiz_by_session ON quiz_attempts(session_id, id);
CREATE TABLE limit_events(id bigserial PRIMARY KEY, kind text NOT NULL, subject text NOT NULL, at bigint NOT NULL, cost double precision NOT NULL DEFAULT 0);
CREATE INDEX limit_events_by_subject ON limit_events(kind, subject, at);
CREATE INDEX limit_events_by_time ON limit_events(at);
CREATE SEQUENCE serve_seq;
