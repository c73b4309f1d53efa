# teachtorch developer commands. See README.md.

PYTHON   ?= python3
VENV     := .venv
PY       := $(VENV)/bin/python
LAB_ARGS ?=
BENCH_ARGS ?=

LESSONS_PY := $(wildcard lessons/*.py)
LESSONS_NB := $(LESSONS_PY:.py=.ipynb)

# Jupyter refuses to start as root unless told it may.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: test test-fake-cuda lab bench clean graphviz system-deps notebooks

# Run the test suite (2 xdist workers); make fails when pytest fails. The explorer's tests need the lab tools,
# Graphviz and a Chromium for the browser tests (installed with apt-get when run as root).
test: $(VENV)/.stamp-lab system-deps
	$(PY) -m pytest -n 2 tests

# The device-generic tests' [cuda] half on tests/fake_cupy.py (NumPy dressed up as CuPy) when there is no GPU:
# every cuda code path without a GPU. On a GPU machine plain `make test` runs them on the GPU.
test-fake-cuda: $(VENV)/.stamp-lab
	TEACHTORCH_TEST_CUDA=fake $(PY) -m pytest -n 2 tests -k cuda

# Start JupyterLab on the lessons (extra flags via LAB_ARGS, e.g. LAB_ARGS="--no-browser --port=8888").
lab: $(VENV)/.stamp-lab graphviz notebooks
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(CURDIR)/lessons $(ROOT_FLAG) $(LAB_ARGS)

# Print the overhead benchmark against PyTorch CPU and NumPy (BENCH_ARGS=--quick for a short run).
bench: $(VENV)/.stamp-test
	$(PY) bench/overhead.py $(BENCH_ARGS)

# Remove the virtual environment and every cache.
clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info test-artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +

# Create the virtual environment if it is missing.
$(PY):
	$(PYTHON) -m venv $(VENV)

# Install the package and test tools, again only when pyproject.toml changes.
$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[test]'
	touch $@

# Install the package with the lab and test tools, again only when pyproject.toml changes.
$(VENV)/.stamp-lab: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[lab,test]'
	touch $@

# Graphviz's dot and Chromium (the browser tests drive Debian's Chromium with Playwright; Playwright's own
# browser download does not work offline).
system-deps: graphviz
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" -eq 0 ]; then \
	    apt-get update && apt-get install -y chromium; \
	  else \
	    echo "make test: chromium is missing; install it with: sudo apt-get install -y chromium" >&2; \
	    exit 1; \
	  fi; \
	fi

# Make sure Graphviz's dot exists (installed with apt-get when running as root).
graphviz:
	@if ! command -v dot >/dev/null 2>&1; then \
	  if [ "$$(id -u)" -eq 0 ]; then \
	    apt-get update && apt-get install -y graphviz; \
	  else \
	    echo "make: Graphviz's dot is missing; install it with: sudo apt-get install -y graphviz" >&2; \
	    exit 1; \
	  fi; \
	fi

# Convert the jupytext lessons to notebooks when the .ipynb is missing or older.
notebooks: $(LESSONS_NB)

lessons/%.ipynb: lessons/%.py | $(VENV)/.stamp-lab
	$(VENV)/bin/jupytext --update --to ipynb $<
