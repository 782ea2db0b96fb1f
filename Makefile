# The commands that build, run and check Kenning. See README.md.

CARGO ?= cargo

.PHONY: run test lint build eval-topics eval-experts bench

## Build the release binary and serve on the embedded SQLite database
## (data/kenning.db); prints a first admin token on a fresh database.
run:
	$(CARGO) run --release -p kenning -- serve

## Every test: unit, storage contract, HTTP API and CLI. The PostgreSQL
## variants run when KENNING_TEST_POSTGRES_URL is set and say SKIPPED otherwise.
test:
	$(CARGO) test --workspace

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

## Expert finding: P@1, MRR and nDCG@10 of Kenning's experts, BM25 (profile
## and document models), the most active people and a random order, on the
## Q&A dump and the keyphrase datasets. See docs/expertise.md.
eval-experts:
	$(CARGO) run --release -p kenning-expertise-eval

## Topic extraction speed: Kenning and yake-rust on the Inspec abstracts.
bench:
	$(CARGO) bench -p kenning-keyphrase-eval
