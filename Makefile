# Concord: `make build` builds the warehouse from the embedded seeds; `make test` runs
# every check the project has. Both create .venv and install the pinned dependencies: the
# warehouse's only for `make build` (no torch), everything for `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
export CONCORD_DB_PATH ?= warehouse/concord.duckdb

.PHONY: install warehouse-install semantic-install inspect-install notebook-install probe-install \
	install-spark \
	build land \
	dbt-build quality publish report chromium java summary test test-fast test-spark lint \
	sql-fix bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs the locked versions in seconds where pip takes minutes; pip only installs uv
# itself, at the version in requirements.lock. uv reads no pip configuration: the machine's
# pip find-links (PIP_FIND_LINKS or pip's config, where a local CPU build of torch may lie)
# are handed on.
UV := $(BIN)/uv
PIP_LINKS := $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
ifneq ($(PIP_LINKS),)
export UV_FIND_LINKS ?= $(PIP_LINKS)
endif
# --compile-bytecode: every module's bytecode written at install, so no process compiles it
# again (where PYTHONDONTWRITEBYTECODE is set, Python never caches it: dbt --version took
# 6.5-7.2 s instead of 3.9-4.5 s, importing pandas 2.2 s instead of 0.8 s)
UV_INSTALL = $(UV) pip install --quiet --compile-bytecode --python $(BIN)/python -c requirements.lock

$(UV): requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock uv
	touch $@

# One stamp per set of extras: the warehouse alone (make build), with the probe's torch and
# transformers (make probe-install), and everything for development and tests (make install).
$(VENV)/.installed-warehouse: pyproject.toml requirements.lock | $(UV)
	$(UV_INSTALL) -e .
	touch $@

$(VENV)/.installed-probe: pyproject.toml requirements.lock | $(UV)
	$(UV_INSTALL) -e '.[probe]'
	touch $@ $(VENV)/.installed-warehouse

# The DuckDB release that BI drivers bundle, in a venv of its own: the serving tests open the
# published file with it (its pin: tests/readers/duckdb.txt); and a BI tool's SQLAlchemy
# environment of today over it (tests/readers/sqlalchemy.txt).
READER_VENV := $(VENV)/readers/duckdb
SQLALCHEMY_VENV := $(VENV)/readers/sqlalchemy
$(VENV)/.installed: pyproject.toml requirements.lock tests/readers/duckdb.txt \
		tests/readers/sqlalchemy.txt | $(UV)
	$(UV_INSTALL) -e '.[probe,dev]'
	# irrCAC, a peer of the rater coefficients, pins scipy 1.12: installed without its
	# dependencies at the version in the lock, it can never move the environment
	$(UV_INSTALL) --no-deps irrcac
	# inspect-ai caps fsspec below the lock's: installed without its dependencies (the
	# inspect extra holds them, fsspec at the lock's version)
	$(UV_INSTALL) --no-deps inspect-ai
	$(UV) venv --quiet --allow-existing --python $(BIN)/python $(READER_VENV)
	$(UV) pip install --quiet --compile-bytecode --python $(READER_VENV)/bin/python -r tests/readers/duckdb.txt
	$(UV) venv --quiet --allow-existing --python $(BIN)/python $(SQLALCHEMY_VENV)
	$(UV) pip install --quiet --compile-bytecode --python $(SQLALCHEMY_VENV)/bin/python \
		-r tests/readers/sqlalchemy.txt
	touch $@ $(VENV)/.installed-warehouse $(VENV)/.installed-probe

install: $(VENV)/.installed

# The spark extra (dbt-spark with a local pyspark) for the Spark target: the warehouse and
# Spark, no torch (the probe's extra is not needed to build on Spark). Its tests need the
# test tools and the probe's fake runs, so make test-spark and make test install everything.
$(VENV)/.installed-spark: pyproject.toml requirements.lock | $(UV)
	$(UV_INSTALL) -e '.[spark]'
	touch $@ $(VENV)/.installed-warehouse

warehouse-install: $(VENV)/.installed-warehouse

# The warehouse and the Inspect AI log reader (registry format inspect, docs/landing.md).
inspect-install: $(VENV)/.installed-warehouse
	$(UV_INSTALL) -e '.[inspect]'
	$(UV_INSTALL) --no-deps inspect-ai

# The warehouse and MetricFlow (`mf query`, docs/serving.md), without the test tools.
semantic-install: $(VENV)/.installed-warehouse
	$(UV_INSTALL) -e '.[semantic]'

# The starter notebook's kernel (ipykernel) beside the warehouse, without the test tools.
notebook-install: $(VENV)/.installed-warehouse
	$(UV_INSTALL) -e '.[notebook]'

probe-install: $(VENV)/.installed-probe

install-spark: $(VENV)/.installed-spark

# `concord build` (concord_io/cli/__init__.py) runs the stages in order and stops at the first that
# fails: land (the cross-lingual inputs checked and landed as Parquet, docs/landing.md); dbt
# build; the Great Expectations checkpoint (read-only; a failed expectation stops here and
# the data docs say why); publish (only reached when everything before passed: readers use
# serving/concord.duckdb beside the build database, never the build file); the report and
# dbt docs; the summary. Each stage alone:
# make land|dbt-build|quality|publish|report|summary.
build: warehouse-install
	$(BIN)/concord build

land dbt-build quality publish report summary: warehouse-install
	$(BIN)/concord build --stage $@

# The report's browser tests render pages in Debian's chromium; without it they fail, naming this.
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } \
		|| echo "chromium could not be installed: the report's browser tests will fail"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy  # the packages named in pyproject.toml's [tool.mypy]
	$(BIN)/lint-imports  # the packages one way: the contracts in pyproject.toml's [tool.importlinter]
	# the dbt templater compiles the project: point it at a throw-away database
	CONCORD_DB_PATH=$$(mktemp -d)/lint.duckdb $(BIN)/sqlfluff lint models tests/dbt --processes 2

# sqlfluff's mechanical fixes of every SQL file (layout, case, trailing commas); what it
# cannot fix (a comma a Jinja loop leaves after the last column, a long line) `make lint`
# then names.
sql-fix: install
	CONCORD_DB_PATH=$$(mktemp -d)/lint.duckdb $(BIN)/sqlfluff fix models tests/dbt --processes 2 \
		|| echo "sqlfluff fixed what it could: make lint names what is left"

# Every test: one pytest session over tests/python, tests/probe and tests/spark on both
# cores (pytest-xdist; a module's tests stay on one worker, see tests/conftest.py). The
# budget is 8 minutes on a fresh 2-core machine, installs included
# (bench/results/tests.md); a change that breaks it is not done. CI (.ci/run) runs
# `make lint` first.
TEST_PATHS := tests/python tests/probe tests/spark
test: install install-spark chromium java
	$(call in_memory,$(BIN)/pytest -n 2 --dist loadgroup $(TEST_PATHS) -m "not cluster")

# The tests' folders (pytest's --basetemp) in memory where the machine has a tmpfs with room
# (/dev/shm, 4 GiB free; a run writes about 1.5 GB), removed after the run: the builds'
# fsyncs and checkpoints then wait for no disk (make test 474 s there against about 505 s
# on this project's disk, bench/results/tests.md). Elsewhere pytest's own temporary folder.
TEST_TMPFS := $(shell df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 && $$4 > 4194304 {print "/dev/shm"}')
in_memory = $(if $(TEST_TMPFS),tmp=$$(mktemp -d -p $(TEST_TMPFS) concord-tests.XXXXXX) \
	&& trap 'rm -rf "$$tmp"' EXIT && $(1) --basetemp="$$tmp/run",$(1))

# `concord build --target spark` on a standalone Spark cluster (a master and two workers
# started from the pip-installed Spark), compared with the DuckDB build, and every dbt unit
# test on Spark there: about six minutes, beyond make test's budget, so CI (.ci/run) runs it
# after make test.
test-cluster: install install-spark java
	$(call in_memory,$(BIN)/pytest tests/spark -m cluster)

java:
	@command -v java >/dev/null || { echo "Spark needs Java 17: apt-get install openjdk-17-jre-headless"; exit 2; }

# The same SQL models and tests on a local Spark, compared value by value with DuckDB's, and
# the Python models called with Spark DataFrames (tests/spark/; one SparkSession, small data).
test-spark: install install-spark java
	$(call in_memory,$(BIN)/pytest tests/spark -m "not cluster")

# The statistics and the unit tests, in under a minute: no dbt, no probe model, no browser
# (markers in pyproject.toml; tests/conftest.py marks what uses a warehouse or the probe, and
# fails a test that starts one of them without its marker).
test-fast: install
	$(BIN)/pytest -n 2 tests/python -m "not warehouse and not probe and not browser and not slow"

bench: install
	$(BIN)/python bench/bench_mcq.py
	$(BIN)/python bench/bench_mcq.py --long  # about 30 minutes and 5 GB of disk (10^8 rows)
	$(BIN)/python bench/bench_start.py
	$(BIN)/python bench/bench_kendall.py
	$(BIN)/python bench/bench_rater.py
	$(BIN)/python bench/bench_probe.py
	$(BIN)/python bench/bench_probe_scale.py
	$(BIN)/python bench/bench_probe_imports.py
	$(BIN)/python bench/bench_constraints.py
	$(BIN)/python bench/bench_mcq_languages.py

clean:
	rm -rf target logs warehouse
