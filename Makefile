# Every target makes the virtual environment it needs; nothing else has to be installed first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test lint bench scores clean crg-env

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

demo: $(STAMP)
	$(BIN)/python examples/demo.py

test: $(TEST_STAMP)
	$(BIN)/python -m pytest

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/index_bench.py
	$(BIN)/python bench/query_bench.py

# precision and recall per language over the gold fixtures, written into README.md's table
scores: $(TEST_STAMP)
	$(BIN)/python bench/edge_scores.py --readme README.md

clean:
	rm -rf $(VENV) .projectgraph build *.egg-info

# code-review-graph for the crg provider, in an environment of its own (it needs mcp<2, projectgraph
# mcp>=2.3); the provider finds it with PROJECTGRAPH_CRG_PYTHON=.venv-crg/bin/python
crg-env:
	$(PYTHON) -m venv .venv-crg
	.venv-crg/bin/pip install -q code-review-graph==2.3.9
