# Two commands on a fresh clone: `make up` (the service on its own local Neo4j) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
# Reinstall when pyproject.toml changes; pip's own cache (~/.cache/pip) keeps it fast.
STAMP  := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: install up test bench lint neo4j-start neo4j-stop neo4j-status clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

up: install
	$(BIN)/grimoire up

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python -m bench

lint: install
	$(BIN)/ruff check .

neo4j-start: install
	$(BIN)/grimoire neo4j start

neo4j-stop: install
	$(BIN)/grimoire neo4j stop

neo4j-status: install
	$(BIN)/grimoire neo4j status

clean:
	-$(BIN)/grimoire neo4j stop
	rm -rf .neo4j $(VENV) .pytest_cache .ruff_cache
