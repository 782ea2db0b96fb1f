# The commands that build, run and check Kenning. See README.md.

CARGO ?= cargo

.PHONY: run test lint build eval-topics bench

## Build the release binary and serve on the embedded SQLite database
## (data/kenning.db); prints a first admin token on a fresh database.
run:
	$(CARGO) run --release -p kenning -- serve

## Every test: unit, storage contract, HTTP API and CLI. The PostgreSQL
## variants run when KENNING_TEST_POSTGRES_URL is set; otherwise they are
## counted as ignored, and the last line says why.
test:
	@status=0; $(CARGO) test --workspace || status=$$?; \
	if [ -z "$$KENNING_TEST_POSTGRES_URL" ]; then \
	  echo "NOT RUN: the PostgreSQL variants (the 'ignored' tests above); set KENNING_TEST_POSTGRES_URL to run them."; \
	fi; \
	exit $$status

## Formatting check and clippy with warnings as errors.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## The release binary alone: target/release/kenning.
build:
	$(CARGO) build --release -p kenning

## Topic extraction quality: macro F1@5 and F1@10 of Kenning, yake-rust and
## (when installed) Python yake on the keyphrase datasets. See docs/topics.md.
eval-topics:
	$(CARGO) run --release -p kenning-keyphrase-eval

## Topic extraction speed: Kenning and yake-rust on the Inspec abstracts.
bench:
	$(CARGO) bench -p kenning-keyphrase-eval
