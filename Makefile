# KruschNexus developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
NEXUS  := $(VENV)/bin/nexus
STAMP  := $(VENV)/.installed

.PHONY: demo test test-external lint typecheck unit fixtures docs bench eval calibrate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[local-embed,api,mcp,langchain,llamaindex,test,eval]"
	touch $(STAMP)

## demo: set up, ingest the demo fixtures into workspace "demo" (embedded database; documents an older version read
##       are read again), show stored spans, search
demo: $(STAMP)
	$(NEXUS) ingest tests/fixtures/sample_contract.pdf tests/fixtures/ligatures.pdf tests/fixtures/scanned_lease.pdf \
		tests/fixtures/office_lease.docx tests/fixtures/office_rent_roll.csv tests/fixtures/html_filing.html \
		--workspace demo --create
	$(NEXUS) reingest --workspace demo
	$(PY) scripts/show_spans.py --workspace demo --limit 8
	$(NEXUS) search "commercial office space Section 8.22" --workspace demo
	$(NEXUS) search "how much is the security deposit" --workspace demo --k 3

## test: set up, lint, type-check and run the whole suite (embedded PostgreSQL, real model)
test: $(STAMP) lint typecheck
	$(PY) -m pytest

## test-external: the store, retrieval and security suites against a second, separate PostgreSQL set up as a DBA
## hands one over (loopback port, password, a database owned by a role that is no superuser; tests/external_pg.py)
EXTERNAL_SUITES := tests/integration/test_ingest_store.py tests/integration/test_search.py \
	tests/integration/test_versions.py tests/integration/test_reread.py tests/integration/test_lexical.py \
	tests/integration/test_vector_index.py tests/integration/test_line_markers.py tests/integration/test_dense_leg.py \
	tests/security/test_row_security.py tests/security/test_tokens.py
test-external: $(STAMP)
	$(PY) -m tests.external_pg -- $(PY) -m pytest $(EXTERNAL_SUITES)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests scripts bench
	$(VENV)/bin/ruff format --check src tests scripts bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy

unit: $(STAMP)
	$(PY) -m pytest tests/unit

fixtures: $(STAMP)
	$(PY) scripts/make_fixtures.py
	$(PY) scripts/make_office_fixtures.py
	$(PY) scripts/make_html_fixtures.py
	$(PY) scripts/make_table_fixtures.py

docs: $(STAMP)
	$(PY) scripts/gen_docs.py

bench: $(STAMP)
	$(PY) bench/ingest.py
	$(PY) bench/ocr.py

## eval: the project's corpus suite (its test split) over ../shared/corpus, with every baseline beside nexus
eval: $(STAMP)
	$(NEXUS) eval eval/corpus.jsonl --corpus ../shared/corpus --split test --plot eval/reliability.png

## calibrate: sweep the floor and refit the confidence calibrator of the bundled model on the suite's dev split
calibrate: $(STAMP)
	$(PY) scripts/calibrate.py eval/corpus.jsonl --corpus ../shared/corpus --split dev \
		--out src/kruschnexus/embed/assets/minilm-calibration.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
