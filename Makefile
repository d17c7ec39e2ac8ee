# Two entry points: `make demo` (the main job) and `make test` (the whole suite).
# Both create ./.venv on first use and install jaxlab into it (editable).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
comma := ,
# On a machine with an NVIDIA driver, install JAX's CUDA build as well.
EXTRAS := test$(shell command -v nvidia-smi >/dev/null 2>&1 && echo ,cuda)
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: demo test bench bench-text bench-grid clean install

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

demo: $(STAMP)
	$(BIN)/jaxlab-demo $(ARGS)

test: $(STAMP)  ## the whole suite, on up to 4 processes (pytest-xdist), a module per process at a time (its fixtures built once); the 25 slowest tests at the end
	$(BIN)/python -m pytest -q -n auto --maxprocesses=4 --dist loadscope --durations=25 $(ARGS)

bench: $(STAMP)  ## every family, originals side by side: make bench ARGS="--quick"
	$(BIN)/jaxlab-bench $(ARGS)

bench-text: $(STAMP)
	$(BIN)/python benchmarks/text.py $(ARGS)

bench-grid: $(STAMP)
	$(BIN)/python benchmarks/grid.py $(ARGS)

clean:
	rm -rf $(VENV) out .pytest_cache
