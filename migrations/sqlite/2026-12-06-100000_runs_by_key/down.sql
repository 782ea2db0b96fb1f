DROP INDEX connector_runs_by_key;
