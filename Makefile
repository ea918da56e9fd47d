# Concord: `make build` builds the warehouse from the embedded seeds; `make test` runs
# every check the project has. Both create .venv and install the pinned dependencies.
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

.PHONY: install install-spark build dbt-build quality publish report chromium summary test test-spark \
	lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e '.[probe,dev]'
	touch $@

install: $(VENV)/.installed

# The spark extra (dbt-spark with a local pyspark) only for the Spark target and its tests.
$(VENV)/.installed-spark: $(VENV)/.installed
	$(BIN)/pip install --quiet -c requirements.lock -e '.[probe,dev,spark]'
	touch $@

install-spark: $(VENV)/.installed-spark

build: install dbt-build quality publish report summary

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

test: install lint chromium
	$(BIN)/pytest
	$(MAKE) test-spark

# The same SQL models and tests on a local Spark, compared value by value with DuckDB's, and
# the Python models called with Spark DataFrames (tests/spark/; one SparkSession, small data).
test-spark: install-spark
	@command -v java >/dev/null || { echo "test-spark: Spark needs Java 17 (apt-get install openjdk-17-jre-headless)"; exit 2; }
	$(BIN)/pytest tests/spark

bench: install
	$(BIN)/python bench/bench_mcq.py
	$(BIN)/python bench/bench_kendall.py
	$(BIN)/python bench/bench_rater.py
	$(BIN)/python bench/bench_probe.py

clean:
	rm -rf target logs warehouse
