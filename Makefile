# Two commands: `make demo` and `make test`. Each sets up everything on a fresh Debian machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-fast lint typecheck unit installed system-deps browser-deps venv dev bench clean previews

demo: venv system-deps
	$(BIN)/dealer demo

test: dev system-deps browser-deps lint typecheck unit installed

lint: dev
	$(BIN)/ruff check dealer tests benchmarks

typecheck: dev
	$(BIN)/mypy

unit: dev system-deps browser-deps
	$(BIN)/pytest -n 2 --dist loadfile

# The edit loop: every test but those marked slow (pyproject.toml); `make test` runs them all.
test-fast: dev system-deps browser-deps
	$(BIN)/pytest -n 2 --dist loadfile -m "not slow"

# The package as a user gets it: the wheel, installed into a fresh environment in a temporary
# folder, runs `dealer doctor`, `dealer demo` and `dealer site` from an empty folder.
installed: dev system-deps
	PYTHON=$(PYTHON) PIP=$(BIN)/pip scripts/check_installed.sh

# Two stamps: `make demo` installs the runtime dependencies only, `make test` adds the
# development ones (`.[dev]`); after `make test`, `make demo` installs nothing again.
venv: $(RUNTIME)

dev: $(DEV)

$(RUNTIME): pyproject.toml
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3-venv; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(DEV): $(RUNTIME)
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

# WeasyPrint needs Pango; Chinese output needs a CJK font (Noto CJK, Simplified Chinese first).
system-deps:
	@if ! ldconfig -p | grep -q 'libpangoft2-1.0.so.0' || ! ldconfig -p | grep -q 'libharfbuzz-subset.so.0' \
	   || ! command -v fc-list >/dev/null \
	   || [ -z "$$(fc-list :lang=zh-cn family 2>/dev/null)" ]; then \
	  echo "installing Pango and the Noto CJK fonts with apt-get"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
	    fontconfig fonts-noto-cjk >/dev/null; \
	fi

# The results site's browser tests and README screenshots drive Debian's Chromium (Playwright is
# pointed at /usr/bin/chromium; it never downloads a browser).
browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing Debian's chromium with apt-get"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; \
	fi

bench: dev
	$(BIN)/python benchmarks/deal.py

# README previews (docs/images/*.png), rendered by the project; not part of `make test`.
previews: dev system-deps browser-deps
	$(BIN)/python scripts/previews.py
	$(BIN)/python scripts/site_screenshots.py

clean:
	rm -rf $(VENV) output build .pytest_cache .mypy_cache .ruff_cache
