# wsim developer tasks. Everything runs inside .venv, created from the system python3.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: install run test verify chromium bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[test,analysis,dask]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/wsim simulate --games 100000 --players 4 --out results/default --overwrite

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" --durations=5

verify: $(STAMP) chromium
	$(BIN)/python -m pytest -q -s -m slow

# headless Chromium renders the balance report in `make verify` (Debian package; root or sudo)
chromium:
	@command -v chromium >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium; }

bench: $(STAMP)
	$(BIN)/wsim bench

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . \( -name '*.nbi' -o -name '*.nbc' \) -delete
