# rootward developer entry points. Every target works from a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export ROOTWARD_DATA_DIR ?= $(CURDIR)/var

.PHONY: install run test test-fast lint bench clean golden

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: install
	mkdir -p var
	$(BIN)/rootward serve --host 127.0.0.1 --port 8080 --demo

test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup tests

test-fast: install
	$(BIN)/python -m pytest -q -x -m "not integration and not e2e and not slow" tests

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: install
	mkdir -p bench/results
	$(BIN)/python -m bench.run_all $(BENCH)

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache test-artifacts
