# The two set-up commands of the README: `make demo` and `make test`; `make docs` builds the site.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test docs bench lint clean compat compat-examples

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[io]'
	touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/python examples/demo.py

# The suite compiles into a kernel cache folder emptied first, so it starts cold every time, and leaves the folder
# behind for `make docs` (after `make test` in .ci/run): the docs' figures run kernels the tests compile.
TEST_KERNELS := $(CURDIR)/build/test-kernel-cache

# The sources are compiled to bytecode first: with PYTHONDONTWRITEBYTECODE set, each Python process the tests start
# (MPI ranks, `brickwork run`, examples) otherwise compiled brickwork's modules from source again, ~0.7 s CPU each;
# and the test modules as pytest rewrites them, which both xdist workers otherwise did as they collected (12 s CPU
# of each worker's 18 s collection).
test: $(VENV)/.installed-dev
	rm -rf $(TEST_KERNELS)
	$(BIN)/python scripts/test_bytecode.py src tests
	BRICKWORK_CACHE_DIR=$(TEST_KERNELS) $(BIN)/python -m pytest -n 2 tests

# The documentation site (docs/_build/html/index.html); any warning fails the build. It uses the tests' kernel
# cache folder where `make test` left one (entries are keyed by source and compiler, so a stale one is not used).
docs: $(VENV)/.installed-dev
	$(if $(wildcard $(TEST_KERNELS)),BRICKWORK_CACHE_DIR=$(TEST_KERNELS)) $(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"

bench: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[bench]' || echo "bench extra not installable: peers will be skipped"
	$(BIN)/python benchmarks/run.py

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks examples docs/conf.py docs/_ext

# Warp 1.19's own kernel-language tests against brickwork (docs/compat.md). pip downloads the
# warp-lang wheel into build/compat (the only network use); its test files are never committed.
COMPAT_DIR := build/compat
compat: $(VENV)/.installed-dev
	$(BIN)/python compat/fetch_tests.py $(COMPAT_DIR)
	$(BIN)/python compat/run_compat.py $(COMPAT_DIR) --markdown $(COMPAT_DIR)/table.md
	$(BIN)/python compat/run_examples.py $(COMPAT_DIR) --markdown $(COMPAT_DIR)/examples.md

# Warp 1.19's own examples only, compared with Warp's final state (compat/example_references.json)
compat-examples: $(VENV)/.installed-dev
	$(BIN)/python compat/fetch_tests.py $(COMPAT_DIR)
	$(BIN)/python compat/run_examples.py $(COMPAT_DIR) --markdown $(COMPAT_DIR)/examples.md

clean:
	rm -rf $(VENV) build src/*.egg-info docs/_build docs/_generated
