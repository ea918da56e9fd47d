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

.PHONY: install build dbt-build summary test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e '.[probe,dev]'
	touch $@

install: $(VENV)/.installed

build: install dbt-build summary

dbt-build:
	mkdir -p $(dir $(CONCORD_DB_PATH))
	$(DBT) build $(DBT_FLAGS)

summary:
	$(BIN)/python -m concord_io.summary --database $(CONCORD_DB_PATH)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: install lint
	$(BIN)/pytest

bench: install
	$(BIN)/python bench/bench_mcq.py
	$(BIN)/python bench/bench_kendall.py

clean:
	rm -rf target logs warehouse
