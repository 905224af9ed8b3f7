# Two entry points, both work on a fresh machine (Python >= 3.11 on PATH):
#   make demo   set up and run the main job (a tour of autograd_lib)
#   make test   set up and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test venv bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/pip install --quiet -e ".[test]"

demo: venv
	$(BIN)/python -m autograd_lib.demo

test: venv
	$(BIN)/python -m pytest -q

bench: venv
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) artifacts benchmarks/results
