DROP TABLE connector_run_refusals;
DROP TABLE connector_runs;
