-- How many sources an API key reports runs of is counted on every run
-- it reports (a key reports at most a bounded number of sources).
CREATE INDEX connector_runs_by_key ON connector_runs (credential_id, source, name);
