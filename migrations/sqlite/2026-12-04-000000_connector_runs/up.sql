-- The runs connectors report: what each run of a source (its kind and
-- name) read, sent, found known, did not find, had refused and failed on,
-- the error that stopped it, the API key that reported it and when it was
-- received. seq is the order of recording: "last" means the highest. Only
-- the newest runs of each source are kept (RunReport::KEPT).
CREATE TABLE connector_runs (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    source          TEXT NOT NULL,
    name            TEXT NOT NULL,
    started         TIMESTAMP NOT NULL,
    finished        TIMESTAMP NOT NULL,
    items_read      BIGINT NOT NULL,
    sent            BIGINT NOT NULL,
    known           BIGINT NOT NULL,
    not_found       BIGINT NOT NULL,
    failed          BIGINT NOT NULL,
    dry_run         BOOLEAN NOT NULL,
    error           TEXT,
    credential_id   TEXT NOT NULL,
    credential_name TEXT NOT NULL,
    received        TIMESTAMP NOT NULL
);
CREATE INDEX connector_runs_of_source ON connector_runs (source, name, seq);

-- A run's refused uploads, by the code they were refused with.
CREATE TABLE connector_run_refusals (
    run_id TEXT NOT NULL REFERENCES connector_runs (id) ON DELETE CASCADE,
    code   TEXT NOT NULL,
    items  BIGINT NOT NULL,
    PRIMARY KEY (run_id, code)
);
