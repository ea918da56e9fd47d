# Concord: `make build` builds the warehouse from the embedded seeds; `make test` runs
# every check the project has. Both create .venv and install the pinned dependencies: the
# warehouse's only for `make build` (no torch), everything for `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
export CONCORD_DB_PATH ?= warehouse/concord.duckdb
DBT := $(BIN)/dbt
DBT_FLAGS := --profiles-dir . --project-dir .
WAREHOUSE_DIR := $(patsubst %/,%,$(dir $(CONCORD_DB_PATH)))
SERVING_DIR ?= $(WAREHOUSE_DIR)/serving
REPORT_DIR ?= $(WAREHOUSE_DIR)/report
# dbt writes manifest.json there (dbt itself reads DBT_TARGET_PATH too)
DBT_TARGET := $(or $(DBT_TARGET_PATH),target)

.PHONY: install warehouse-install probe-install build dbt-build quality publish report chromium \
	summary test test-fast lint sql-fix bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# One stamp per set of extras: the warehouse alone (make build), with the probe's torch and
# transformers (make probe-install), and everything for development and tests (make install).
$(VENV)/.installed-warehouse: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e .
	touch $@

$(VENV)/.installed-probe: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e '.[probe]'
	touch $@ $(VENV)/.installed-warehouse

$(VENV)/.installed: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e '.[probe,dev]'
	touch $@ $(VENV)/.installed-warehouse $(VENV)/.installed-probe

install: $(VENV)/.installed

warehouse-install: $(VENV)/.installed-warehouse

probe-install: $(VENV)/.installed-probe

build: warehouse-install dbt-build quality publish report summary

dbt-build:
	mkdir -p $(dir $(CONCORD_DB_PATH))
	$(DBT) build $(DBT_FLAGS)

# Great Expectations suites (quality/suites/) over the built warehouse, read-only; a failed
# expectation stops make build here (nothing is published) and the data docs say why.
quality:
	$(BIN)/python -m concord_io.quality --database $(CONCORD_DB_PATH) \
		--out $(WAREHOUSE_DIR)/quality

# Only reached when dbt build (and the checks before it) passed: a failed build publishes
# nothing. Readers use $(SERVING_DIR)/concord.duckdb, never the build file.
publish:
	$(BIN)/python -m concord_io.publish --database $(CONCORD_DB_PATH) \
		--serving-dir $(SERVING_DIR) --manifest $(DBT_TARGET)/manifest.json

# The static report from the serving file, and dbt docs (--static: one file that opens
# offline; usage stats off, so the page loads no tracker) beside it.
report:
	DBT_SEND_ANONYMOUS_USAGE_STATS=false $(DBT) docs generate $(DBT_FLAGS) --static --quiet
	mkdir -p $(REPORT_DIR)/docs
	cp $(DBT_TARGET)/static_index.html $(REPORT_DIR)/docs/index.html
	$(BIN)/python -m concord_io.report --serving $(SERVING_DIR)/concord.duckdb --out $(REPORT_DIR)

# The report test renders the page in Debian's chromium; without it that test is skipped.
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } \
		|| echo "chromium could not be installed: the report's browser test will be skipped"

summary:
	$(BIN)/python -m concord_io.summary --database $(CONCORD_DB_PATH) \
		--serving-dir $(SERVING_DIR) --report-dir $(REPORT_DIR)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	# the dbt templater compiles the project: point it at a throw-away database
	CONCORD_DB_PATH=$$(mktemp -d)/lint.duckdb $(BIN)/sqlfluff lint models tests/dbt --processes 2

# sqlfluff's mechanical fixes of every SQL file (layout, case, trailing commas); what it
# cannot fix (a comma a Jinja loop leaves after the last column, a long line) `make lint`
# then names.
sql-fix: install
	CONCORD_DB_PATH=$$(mktemp -d)/lint.duckdb $(BIN)/sqlfluff fix models tests/dbt --processes 2 \
		|| echo "sqlfluff fixed what it could: make lint names what is left"

test: install lint chromium
	$(BIN)/pytest

# The statistics and the unit tests: no dbt, no probe model, no browser (markers in
# pyproject.toml; tests/conftest.py marks what uses a warehouse or the probe).
test-fast: install
	$(BIN)/pytest -m "not warehouse and not probe and not browser and not slow"

bench: install
	$(BIN)/python bench/bench_mcq.py
	$(BIN)/python bench/bench_kendall.py
	$(BIN)/python bench/bench_rater.py
	$(BIN)/python bench/bench_probe.py

clean:
	rm -rf target logs warehouse
