# Two commands on a fresh clone: `make up` (the service on its own local Neo4j) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
# the server's and its Python client's (clients/python, a distribution of its own that the server depends on)
PYPROJECTS := pyproject.toml clients/python/pyproject.toml
DEPS   := $(shell cat $(PYPROJECTS) | sha1sum | cut -c1-12)
STAMP  := $(VENV)/.installed-$(DEPS)
# The client with its framework integrations' extras, whose tests run in `make test`
CLIENT_EXTRAS := './clients/python[langgraph,langchain,langmem]'
BENCH_STAMP := $(VENV)/.bench-installed-$(DEPS)
# Wheels are kept here once downloaded, so a fresh clone installs without the network
# (pip's own HTTP cache is not always kept, and torch alone is several GB).
WHEELHOUSE ?= $(HOME)/.cache/grimoire/wheels

.PHONY: install up test test-unit bench load lint neo4j-start neo4j-stop neo4j-status clean vendor chromium ts-client \
        graphiti-venv

$(STAMP): $(PYPROJECTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ ! -f $(WHEELHOUSE)/.complete-$(DEPS) ]; then \
	  echo "[install] downloading wheels into $(WHEELHOUSE) (once per dependency set)"; \
	  rm -rf build; \
	  $(BIN)/python -m pip wheel --find-links $(WHEELHOUSE) -w $(WHEELHOUSE) 'setuptools>=68' wheel $(CLIENT_EXTRAS) '.[dev,bench]' && \
	  touch $(WHEELHOUSE)/.complete-$(DEPS); \
	fi
	$(BIN)/python -m pip install --no-index --find-links $(WHEELHOUSE) -e $(CLIENT_EXTRAS) -e '.[dev]' \
	  || $(BIN)/python -m pip install -e $(CLIENT_EXTRAS) -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

# The benchmarks' extra (matplotlib for the charts, wordllama for bench/embedders.py, nanoranker for
# bench/reranker.py), on top of the dev install.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --no-index --find-links $(WHEELHOUSE) -e $(CLIENT_EXTRAS) -e '.[dev,bench]' \
	  || $(BIN)/python -m pip install -e $(CLIENT_EXTRAS) -e '.[dev,bench]'
	@rm -f $(VENV)/.bench-installed-*
	@touch $@

up: install
	$(BIN)/grimoire up

# Debian's Chromium for the console's browser tests and benchmark: Playwright drives /usr/bin/chromium and
# never downloads a browser of its own (no `playwright install`).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@test -x /usr/bin/chromium || { echo "[chromium] installing Debian's chromium"; \
	  $(SUDO) apt-get install -y chromium \
	  || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }; }

test: install chromium
	$(BIN)/python -m pytest

# The tests that need no database (the pure core, the Cypher contract, the architecture): seconds.
test-unit: install
	$(BIN)/python -m pytest -m "not integration"

load: install
	$(BIN)/grimoire neo4j start
	$(BIN)/grimoire load aave

bench: $(BENCH_STAMP) chromium
	$(BIN)/python -m bench

# graphiti-core (Zep's temporal knowledge graph) at a pinned version in a venv of its own, for the side-by-side
# benchmark `python -m bench graphiti` (bench/graphiti.py runs bench/graphiti_driver.py in it): its dependencies
# (openai, posthog, another neo4j driver) never touch the project's venv. Wheels are kept in their own wheelhouse,
# so the benchmark itself needs no network.
GRAPHITI_VERSION := 0.31.2
# graphiti_core/llm_client imports httpx without declaring it (the newest openai brings httpx2 instead): pinned here.
GRAPHITI_PINS := 'graphiti-core==$(GRAPHITI_VERSION)' 'httpx==0.28.1'
GRAPHITI_VENV ?= $(HOME)/.cache/grimoire/graphiti-venv
GRAPHITI_WHEELS ?= $(HOME)/.cache/grimoire/graphiti-wheels
GRAPHITI_STAMP := $(GRAPHITI_VENV)/.installed-$(shell echo $(GRAPHITI_PINS) | sha1sum | cut -c1-12)
$(GRAPHITI_STAMP):
	@test -x $(GRAPHITI_VENV)/bin/python || $(PYTHON) -m venv $(GRAPHITI_VENV)
	@if [ ! -f $(GRAPHITI_WHEELS)/.complete-$(notdir $(GRAPHITI_STAMP)) ]; then \
	  $(GRAPHITI_VENV)/bin/python -m pip download -d $(GRAPHITI_WHEELS) $(GRAPHITI_PINS) && \
	  touch $(GRAPHITI_WHEELS)/.complete-$(notdir $(GRAPHITI_STAMP)); \
	fi
	$(GRAPHITI_VENV)/bin/python -m pip install --no-index --find-links $(GRAPHITI_WHEELS) $(GRAPHITI_PINS)
	@rm -f $(GRAPHITI_VENV)/.installed-*
	@touch $@

graphiti-venv: $(GRAPHITI_STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

neo4j-start: install
	$(BIN)/grimoire neo4j start

neo4j-stop: install
	$(BIN)/grimoire neo4j stop

neo4j-status: install
	$(BIN)/grimoire neo4j status

clean:
	-$(BIN)/grimoire neo4j stop
	rm -rf .neo4j $(VENV) .pytest_cache .ruff_cache

# The console's front-end libraries (htmx, uPlot, Chart.js, Cytoscape.js) from the npm registry at their pinned
# versions into api/console/static/vendor/, with their licenses and manifest.json; committed, so `make up` needs
# neither Node nor the network (api/console/vendor.py).
vendor: install
	$(BIN)/python -m grimoire.api.console.vendor

# The TypeScript client (clients/typescript): its pinned packages from the lock file (`npm ci`, from npm's cache in
# ~/.npm once downloaded), its types checked against the committed OpenAPI document, compiled with tsc. `make test`
# needs no step of its own: tests/integration/test_typescript_client.py installs and builds it the same way, then runs
# node's test runner against a live service. After a route changes: `grimoire client openapi --write`.
TS_CLIENT := clients/typescript
$(TS_CLIENT)/node_modules/.package-lock.json: $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --prefer-offline --no-audit --no-fund

ts-client: $(TS_CLIENT)/node_modules/.package-lock.json
	cd $(TS_CLIENT) && npm run check-generated && npm run build
