# wsim developer tasks. Everything runs inside .venv, created from the system python3.
#   make run      base install, then 100,000 four-player heuristic games and their summary
#   make check    the inner loop (about a minute warm): units, rules on both engines, a small replay
#   make test     everything but the deep runs: the cold-compile count beside the kernels' compile,
#                 check's tests and the heavier ones in parallel, then the system tests
#                 (subprocesses, signals, Dask) in a serial pass
#   make verify   the deep runs (SHARD=k/n for one shard of n, DEPTH=full for the full depth);
#                 resumable: a shard run again skips what passed under the same code
PY      ?= python3
# Python keeps the bytecode of wsim and of the tests (__pycache__, ignored by git) even where the
# environment sets PYTHONDONTWRITEBYTECODE (the project machine does): otherwise every process, each of the system
# tests' wsim subprocesses and each pytest collection included, compiles them from source again
# (measured: a collection 8.4 s -> 5.6 s, `wsim simulate --games 1` 1.0 s -> 0.9 s)
unexport PYTHONDONTWRITEBYTECODE
VENV    := .venv
BIN     := $(VENV)/bin
BASE    := $(VENV)/.installed-base
FULL    := $(VENV)/.installed-full
PYTEST  := $(BIN)/python -m pytest -q
JOBS    ?= 2
SHARD   ?= 1/1
DEPTH   ?= standard

.PHONY: install run check test verify verify-clean chromium bench clean

install: $(FULL)

$(BIN)/python:
	$(PY) -m venv $(VENV)

# make run needs the base dependencies only; the test targets add every extra (their own stamp).
# pip compiles no bytecode (half the install: 49 s -> 20 s with every extra): with bytecode kept
# (above), the first process to import a module compiles it once, and most of what is installed
# (jax's, scipy's, dask's thousands of files) is never imported
PIP     := $(BIN)/pip install --quiet --no-compile

$(BASE): pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $@

$(FULL): pyproject.toml | $(BIN)/python
	$(PIP) -e '.[test,analysis,dask,rl,learn,ppo]'
	touch $@ $(BASE)

run: $(BASE)
	$(BIN)/wsim simulate --games 100000 --players 4 --policy heuristic --out results/default --overwrite

# pytest exits 5 when it collects no test: every pytest line below fails the target then
check: $(FULL)
	$(BIN)/wsim compile games step env
	$(PYTEST) -n $(JOBS) -m "not slow and not system and not deep and not cold"

# the kernels are compiled once before the parallel pass (its workers then load them); a compile
# is single-threaded, so the cold-compile count (its own empty cache, alone otherwise) runs beside
# the first; once the games family is in the cache, the learned family (which reuses it) compiles
# beside the other families, on the core the cold count has freed
test: $(FULL)
	( $(BIN)/wsim compile games && { $(BIN)/wsim compile learned env & learned=$$!; \
	  $(BIN)/wsim compile rollout step profile; rest=$$?; wait $$learned && [ $$rest = 0 ]; } ) & compiling=$$!; \
	  $(PYTEST) -p no:xdist -m cold; cold=$$?; \
	  wait $$compiling && [ $$cold = 0 ]
	$(PYTEST) -n $(JOBS) -m "not system and not deep and not cold" --durations=5
	$(PYTEST) -p no:xdist -m "system" --durations=5

verify: $(FULL) chromium
	$(BIN)/wsim compile games rollout step profile learned env
	$(PYTEST) -n $(JOBS) -m deep --shard $(SHARD) --depth $(DEPTH) --durations=10

verify-clean:
	rm -rf results/verify

# headless Chromium renders the balance report in `make verify` (Debian package; root or sudo)
chromium:
	@command -v chromium >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium; }

bench: $(BASE)
	$(BIN)/wsim bench

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . \( -name '*.nbi' -o -name '*.nbc' \) -delete
