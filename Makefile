# datamove's front door. Every target makes (or reuses) a local virtual environment in .venv
# and installs what it needs there; nothing is installed outside the repository.
#   make demo   run the examples of the specs (installs the package alone)
#   make test   the whole test suite (installs the test extras: openvino, hypothesis, ...)
#   make lint   ruff and mypy --strict
#   make bench  benchmarks, printed as ratios against peers run side by side

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(VENV)/.demo: pyproject.toml setup.py src/datamove/_kernels.c | $(BIN)/python
	$(PIP) install -e .
	touch $@

$(VENV)/.test: pyproject.toml setup.py src/datamove/_kernels.c | $(BIN)/python
	$(PIP) install -e '.[test,lint,backends]'
	touch $@ $(VENV)/.demo

demo: $(VENV)/.demo
	$(BIN)/datamove examples

test: $(VENV)/.test
	$(BIN)/python -m pytest -p no:cacheprovider

lint: $(VENV)/.test
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(VENV)/.test
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
