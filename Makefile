# radiotcp developer tasks. Needs only python3 (3.11+, with venv/pip), cargo (rustup) and gcc.
#
#   make test   - format/lint checks, Rust core tests, Python tests (what CI runs)
#   make demo   - the tour: a headline figure of each of the five systems into results/demo/tour/
#   make bench  - benchmarks (bench/run_bench.py)
#   make bench-compare [BASE=ref] - this checkout's speed against a baseline commit
#   make schema - regenerate the typed scenario classes (python/radiotcp/_schema.py) and the
#                 docs key table from the core's configuration schema
#   make lint   - formatting and lint checks only
#   make fmt    - apply cargo fmt and ruff format
#   make clean  - remove build outputs (the extension, cargo target, caches)
#   make distclean - clean, and remove .venv

PYTHON3 ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
BIN     := $(VENV)/bin
# The compiled extension as maturin develop places it (python-source = "python").
EXT     := python/radiotcp/_core.abi3.so
DEPS_STAMP := $(VENV)/.deps-stamp
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null) Cargo.toml Cargo.lock
BENCH_PY := $(wildcard bench)

export PYO3_PYTHON := $(abspath $(PY))

.PHONY: all test schema demo bench bench-compare doc-tables reproduce-check emulate-compare lint fmt clean distclean build venv

all: build

$(PY):
	$(PYTHON3) -m venv $(VENV)

# Reinstall the tools only when a requirements file changed.
$(DEPS_STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

venv: $(DEPS_STAMP)

# Release build of the extension into python/radiotcp (editable install into .venv).
$(EXT): $(DEPS_STAMP) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) PATH="$(abspath $(BIN)):$$PATH" \
		$(BIN)/maturin develop --release
	touch $@

build: $(EXT)

lint: $(DEPS_STAMP)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests $(BENCH_PY)
	$(BIN)/ruff format --check python tests
	$(BIN)/mypy

# The Rust configuration types are the one declaration of every key: the typed Python classes
# and the docs key table are generated from their schema (_core.config_schema()).
schema: build
	$(PY) -m radiotcp.schemagen
	$(PY) -m radiotcp.docsgen

test: build lint
	$(PY) -m radiotcp.schemagen --check
	$(PY) -m radiotcp.docsgen --check
	cargo test --release -p radiotcp-core
	$(BIN)/pytest -q tests

demo: build
	$(BIN)/radiotcp reproduce tour -o results/demo/tour --store results/demo/store.sqlite
	@echo "demo report: $(abspath results/demo/tour/report.md)"
	@echo "figures, CSV and each stop's report: $(abspath results/demo/tour)"

bench: build
	$(PY) bench/run_bench.py
	cargo bench -p radiotcp-core --bench wired -- --warm-up-time 1 --measurement-time 3
	$(PY) bench/compare_builds.py --base $(BASE) --allow-changed

# The baseline: the last commit before the topology redesign (0.2 wiring).
BASE ?= 4ae1f03
bench-compare: build
	$(PY) bench/compare_builds.py --base $(BASE)

doc-tables: build
	$(PY) -m radiotcp.doctables

reproduce-check: build
	$(PY) -m radiotcp.doctables --check

# Real Linux TCP (CUBIC) against the simulated `linux` profile over umts-384k (needs root).
emulate-compare: build
	$(PY) -m radiotcp emulate-compare --bytes 1000000 --emulated 5 --simulated 20

fmt: $(DEPS_STAMP)
	cargo fmt --all
	$(BIN)/ruff format python tests

clean:
	cargo clean
	rm -f python/radiotcp/_core*.so
	rm -rf .pytest_cache .ruff_cache
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
