# KruschNexus developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
NEXUS  := $(VENV)/bin/nexus
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck unit fixtures schema bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[local-embed,test]"
	touch $(STAMP)

## demo: set up, ingest the demo fixtures into workspace "demo" (embedded database), show stored spans, search
demo: $(STAMP)
	$(NEXUS) ingest tests/fixtures/sample_contract.pdf tests/fixtures/ligatures.pdf --workspace demo
	$(PY) scripts/show_spans.py --workspace demo --limit 5
	$(NEXUS) search "commercial office space Section 8.22" --workspace demo

## test: set up, lint, type-check and run the whole suite (embedded PostgreSQL, real model)
test: $(STAMP) lint typecheck
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests scripts bench
	$(VENV)/bin/ruff format --check src tests scripts bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy

unit: $(STAMP)
	$(PY) -m pytest tests/unit

fixtures: $(STAMP)
	$(PY) scripts/make_fixtures.py

docs: $(STAMP)
	$(PY) scripts/gen_docs.py

bench: $(STAMP)
	$(PY) bench/ingest.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
