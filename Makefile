# The two commands a newcomer needs:  make run   and   make test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.jiyi-setup

.PHONY: setup run test lint typecheck check llm-server fuzz clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,postgres,eval,mcp]'
	@touch $(STAMP)

run: setup
	$(VENV)/bin/jiyi demo

test: setup
	$(PY) -m pytest -q

lint: setup
	$(VENV)/bin/ruff check src tests

typecheck: setup
	$(VENV)/bin/mypy

check: lint typecheck test

# The real LLM used by the agent-loop tests (llama.cpp + SmolLM2); a ~7.5 min build the first time.
llm-server: setup
	$(PY) -m pip install --quiet -e '.[llm-server]'

fuzz: setup
	JIYI_FUZZ_EXAMPLES=5000 $(PY) -m pytest -q tests -k fuzz

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info
