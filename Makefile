# datamove's front door. Every target makes (or reuses) a local virtual environment in .venv
# and installs what it needs there; nothing is installed outside the repository.
#   make demo   run the examples of the specs (installs the package and its IR reader)
#   make test   the whole test suite (installs the test extras: openvino, hypothesis, ...)
#   make lint   ruff and mypy --strict
#   make bench  benchmarks, printed as ratios against peers run side by side
#   make sanitize  the tests of the compiled part under AddressSanitizer (gcc or clang); it
#               rebuilds the extension (csrc/) with ASan, then again without
#   make portable  the same with only the portable C compiled (what CPUs other than x86-64 run)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench sanitize portable clean

KERNELS := setup.py $(wildcard csrc/*.c csrc/*.h)

# The compiled part is optional (setup.py): say so when it was not built, since pip -q hides
# the compiler's output.
KERNELS_CHECK = $(BIN)/python -c "import datamove._kernels" 2>/dev/null || echo "make: note:\
 datamove._kernels was not built (no C compiler?); copies run on NumPy's loops. To see why:\
 $(BIN)/python -m pip install -v -e ." >&2

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "make: datamove\
	 needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1). Try PYTHON=python3.11" >&2;\
	 exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(VENV)/.demo: pyproject.toml $(KERNELS) Makefile | $(BIN)/python
	$(PIP) install -e '.[ir]'
	@$(KERNELS_CHECK)
	touch $@

$(VENV)/.test: pyproject.toml $(KERNELS) Makefile | $(BIN)/python
	$(PIP) install -e '.[test,lint,backends]'
	@$(KERNELS_CHECK)
	touch $@ $(VENV)/.demo

demo: $(VENV)/.demo
	$(BIN)/datamove examples

test: $(VENV)/.test
	$(BIN)/python -m pytest -p no:cacheprovider

lint: $(VENV)/.test
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

bench: $(VENV)/.test
	$(BIN)/python -m bench

ASAN_TESTS := tests/test_copy_engine.py tests/test_kernel_edges.py tests/test_core.py \
  tests/directml/test_execute.py
KERNEL_DEFINES :=
ASAN_ARGS :=

# The ASan build replaces the normal one in src/datamove for the run, so: the stamps go first
# (an interrupted run leaves `make test` to reinstall), the normal build comes back on any exit,
# and a build without ASan (no libasan for $(CC)) fails instead of passing unsanitized.
# libstdc++ is preloaded with ASan where $(CC) has one: ASan preloaded alone cannot intercept
# C++ exceptions of libraries loaded later, and jaxlib (the xp fixture's JAX) aborts on its
# first throw ("CHECK failed: ... real___cxa_throw").
sanitize: $(VENV)/.test
	rm -f $(VENV)/.test $(VENV)/.demo
	trap '$(PIP) install --no-deps -e . && touch $(VENV)/.test $(VENV)/.demo' EXIT; \
	asan=$$($(CC) -print-file-name=libasan.so); \
	case "$$asan" in /*) ;; *) echo "make: no libasan.so for $(CC)" >&2; exit 1;; esac; \
	CFLAGS="-fsanitize=address -fno-omit-frame-pointer -O1 $(KERNEL_DEFINES)" \
	  DATAMOVE_REQUIRE_KERNELS=1 \
	  $(PIP) install --no-deps -e . || exit 1; \
	nm -D src/datamove/_kernels*.so | grep -q __asan_init \
	  || { echo "make: the extension was built without AddressSanitizer" >&2; exit 1; }; \
	cxx=$$($(CC) -print-file-name=libstdc++.so); case "$$cxx" in /*) ;; *) cxx=;; esac; \
	LD_PRELOAD="$$asan $$cxx" ASAN_OPTIONS=detect_leaks=0 \
	  $(BIN)/python -m pytest -p no:cacheprovider -q $(ASAN_TESTS) $(ASAN_ARGS)

# The portable build has no shuffle programs, on any CPU: the test that asks for them where the
# CPU has AVX-512 VBMI is left out.
portable:
	$(MAKE) sanitize KERNEL_DEFINES=-DDM_PORTABLE ASAN_ARGS="--deselect \
	  tests/test_copy_engine.py::test_shuffle_programs_are_on_where_the_cpu_has_them"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
