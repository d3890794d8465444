# rootward developer entry points. Every target works from a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export ROOTWARD_DATA_DIR ?= $(CURDIR)/var
PORT ?= 8080

.PHONY: install run test test-fast lint bench clean golden synapse

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: install
	mkdir -p var
	$(BIN)/rootward serve --host 127.0.0.1 --port $(PORT) --demo

# A real Matrix homeserver for the notification tests, in its own venv
# (its dependency pins are not ours).
synapse: .venv-synapse/.installed

.venv-synapse/.installed:
	test -x .venv-synapse/bin/python || $(PY) -m venv .venv-synapse
	.venv-synapse/bin/pip install -q matrix-synapse==1.163.2
	touch $@

# The tests make their own data directories: the var/ of `make run` is not theirs.
test: install synapse
	env -u ROOTWARD_DATA_DIR $(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not alone" tests
	env -u ROOTWARD_DATA_DIR $(BIN)/python -m pytest -q -m alone tests

test-fast: install
	env -u ROOTWARD_DATA_DIR $(BIN)/python -m pytest -q -x -m "not integration and not e2e and not slow" tests

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: install
	mkdir -p bench/results
	$(BIN)/python -m bench.run_all $(BENCH)

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache test-artifacts

golden: install
	$(BIN)/rootward sim golden --out golden --examples examples
