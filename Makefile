# datamove's front door. Every target makes (or reuses) a local virtual environment in .venv
# and installs what it needs there; nothing is installed outside the repository.
#   make demo   run the examples of the specs (installs the package alone)
#   make test   the whole test suite (installs the test extras: openvino, hypothesis, ...)
#   make lint   ruff and mypy --strict
#   make bench  benchmarks, printed as ratios against peers run side by side
#   make sanitize  the tests of the compiled part under AddressSanitizer (gcc or clang); it
#               rebuilds src/datamove/_kernels.c with ASan, then again without

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench sanitize clean

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

ASAN_TESTS := tests/test_copy_engine.py tests/test_core.py tests/directml/test_execute.py

sanitize: $(VENV)/.test
	CFLAGS="-fsanitize=address -fno-omit-frame-pointer -O1" $(PIP) install --no-deps -e .
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \
	  $(BIN)/python -m pytest -p no:cacheprovider -q $(ASAN_TESTS); \
	  status=$$?; $(PIP) install --no-deps -e .; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
