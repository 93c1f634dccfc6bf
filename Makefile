# The two commands a newcomer needs:  make run   and   make test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.jiyi-setup
# pyproject.toml declares compatible ranges; constraints.txt pins the exact tested versions.
PIP_INSTALL := $(PY) -m pip install --quiet -c constraints.txt

.PHONY: setup run test lint typecheck check llm-server fuzz clean constraints

setup: $(STAMP)

$(STAMP): pyproject.toml benchmarks/pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[dev,postgres,eval,mcp]' -e ./benchmarks
	@touch $(STAMP)

run: setup
	$(VENV)/bin/jiyi demo

test: setup
	$(PY) -m pytest -q

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks

typecheck: setup
	$(VENV)/bin/mypy

check: lint typecheck test

# The real LLM used by the agent-loop tests (llama.cpp + SmolLM2); a ~7.5 min build the first time.
# Built for a portable x86-64 (AVX2, no AVX-512, no AMX) and never from pip's wheel cache: a build
# tuned to one machine's CPU (-march=native) can die with SIGILL on another, and AMX tiles trap on
# kernels or VMs that do not grant them even where /proc/cpuinfo lists them.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
LLM_STAMP := $(VENV)/.jiyi-llm-server

llm-server: $(LLM_STAMP)

$(LLM_STAMP): $(STAMP) constraints.txt Makefile
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP_INSTALL) --no-cache-dir --force-reinstall --no-deps llama-cpp-python
	$(PIP_INSTALL) -e '.[llm-server]'
	@touch $(LLM_STAMP)

fuzz: setup
	JIYI_FUZZ_EXAMPLES=5000 $(PY) -m pytest -q tests -k fuzz

# Re-pin constraints.txt to what the venv holds now (after changing a range in pyproject.toml:
# make setup and make llm-server, then make constraints, then run the tests before committing).
constraints: setup
	{ grep '^#' constraints.txt; $(PY) -m pip freeze --exclude-editable | grep -v '^jiyi' | LC_ALL=C sort -f; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info benchmarks/*.egg-info
