# teachtorch commands. See README.md.
#
#   make lab          a student's set-up: teachtorch with the lab tools only, Graphviz, your own copy of the
#                     lessons in work/, and JupyterLab on it
#   make course-html  the lessons as static web pages to read offline (build/course-html/index.html)
#   make slides       the talk decks as self-contained reveal.js pages (build/slides/<deck>.html)
#   make test         a contributor's set-up: the lab and test tools (PyTorch CPU as the oracle, Playwright),
#                     Graphviz and Chromium, then the whole test suite
#
# Every pip install uses requirements/constraints.txt, so a fresh machine gets exactly the versions the suite
# was run with (CONTRIBUTING.md, "Pinned packages", says how to refresh it).

PYTHON   ?= python3
VENV     := .venv
PY       := $(VENV)/bin/python
PIP      := $(PY) -m pip install -c requirements/constraints.txt
LAB_ARGS ?=
BENCH_ARGS ?=
SLIDES_ARGS ?=
LESSON   ?=

# Jupyter refuses to start as root unless told it may.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# The page JupyterLab opens on: the course's first lesson, in the student's copy.
LAB_START ?= lessons/index.py

.PHONY: test test-fake-cuda gpu-check lab lab-reset work course course-html slides hub hub-proxy bench clean graphviz \
        system-deps constraints

# Run the test suite (2 xdist workers); make fails when pytest fails. The explorer's tests need the lab tools,
# Graphviz and a Chromium for the browser tests (installed with apt-get when run as root).
test: $(VENV)/.stamp-test system-deps hub-proxy
	$(PY) -m pytest -n 2 tests

# The device-generic tests' [cuda] half on tests/fake_cupy.py (NumPy dressed up as CuPy) when there is no GPU:
# every cuda code path without a GPU. On a GPU machine plain `make test` runs them on the GPU.
test-fake-cuda: $(VENV)/.stamp-test
	TEACHTORCH_TEST_CUDA=fake $(PY) -m pytest -n 2 tests -k cuda

# On a machine with an NVIDIA GPU where CuPy and PyTorch are already installed (nothing is downloaded): the
# [cuda] half of the suite on the GPU, the failures' [cpu] twins, then bench/cuda.py; logs in
# test-artifacts/gpu/. GPU_PYTHON is the Python that has them.
GPU_PYTHON ?= python3
gpu-check:
	PYTHON=$(GPU_PYTHON) bash tests/gpu_check.sh

# Start JupyterLab on your copy of the course (work/), opened at the first lesson. Lessons open as notebooks
# straight from their .py files (jupytext); what you change is saved in work/, never in lessons/.
# Extra flags via LAB_ARGS, e.g. LAB_ARGS="--no-browser --port=8888".
lab: $(VENV)/.stamp-lab graphviz work
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(CURDIR)/work --LabApp.default_url=/lab/tree/$(LAB_START) \
	  $(ROOT_FLAG) $(LAB_ARGS)

# Your working copy: lessons/, examples/ and slides/ copied into work/ the first time; later runs add what is
# new and never overwrite a file you have (make lab-reset LESSON=03 restores one lesson). Lessons arrive in
# the student's form: each exercise's solution is a stub for you to write (teachtorch/exercises/course.py).
STUDENT_COPY := $(PYTHON) teachtorch/exercises/course.py --student
work:
	@mkdir -p work
	@for f in lessons/*.py examples/*.py slides/[a-z]_*.py slides/*.md; do \
	  [ -e "$$f" ] || continue; \
	  mkdir -p "work/$$(dirname "$$f")"; \
	  [ -e "work/$$f" ] && continue; \
	  case "$$f" in lessons/*) $(STUDENT_COPY) "$$f" > "work/$$f.tmp" && mv "work/$$f.tmp" "work/$$f";; \
	                *) cp "$$f" "work/$$f";; esac; \
	done

# The course's notebooks, from each lesson's one source (teachtorch/exercises/course.py): build/course/student/
# (each solution replaced by a stub that raises NotImplementedError) and build/course/teacher/ (solutions in,
# teacher mode on), as jupytext .py and as .ipynb.
course: $(VENV)/.stamp-lab
	$(PY) -m teachtorch.exercises.course lessons build/course

# The course as static web pages, to read without running anything: every lesson run once and saved with its
# pictures, exercises shown unsolved (teachtorch/exercises/course_html.py). Open build/course-html/index.html;
# the folder works offline, from file://, in any browser. A few minutes: each lesson runs in full.
course-html: $(VENV)/.stamp-lab
	$(PY) -m teachtorch.exercises.course_html lessons build/course-html

# The talk decks (slides/<letter>_<name>.py), each run against the library now and written as one
# self-contained reveal.js page, build/slides/<deck>.html (slides/build.py, slides/README.md). SLIDES_ARGS=--pdf
# adds a PDF handout of each (printed by Chromium: `make test` installs it); SLIDES_ARGS=slides/a_tensors.py
# builds one deck.
slides: $(VENV)/.stamp-lab
	$(PY) slides/build.py $(SLIDES_ARGS)

# A class on one machine: JupyterHub, a JupyterLab per student (a process each), each student with their own
# copy of the course, made as `make work` makes it, at every login (deploy/README.md; deploy/jupyterhub/
# jupyterhub_config.py lists the TEACHTORCH_HUB_* variables: port, limits, authenticator, spawner). It listens
# on http://127.0.0.1:8000 with DummyAuthenticator (any name, any password): set TEACHTORCH_HUB_IP=0.0.0.0 and
# TEACHTORCH_HUB_AUTHENTICATOR=shared|pam|native before you let a class in. Needs node >= 18 and npm for
# configurable-http-proxy (installed in deploy/jupyterhub/node_modules).
HUB_VENV ?= .venv-hub
HUB_ARGS ?=
hub: $(HUB_VENV)/.stamp-hub hub-proxy graphviz
	$(HUB_VENV)/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py $(HUB_ARGS)

# The hub's own environment: teachtorch with the lab tools (what each student's server runs) and JupyterHub.
$(HUB_VENV)/.stamp-hub: pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(HUB_VENV)
	$(HUB_VENV)/bin/python -m pip install -c requirements/constraints.txt -e '.[lab,hub]'
	@mkdir -p $(HUB_VENV)/share/jupyter/lab/settings
	cp requirements/jupyterlab-overrides.json $(HUB_VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

# configurable-http-proxy at the version deploy/jupyterhub/package-lock.json pins, in that folder, not globally
# (`make test` needs it too: tests/test_hub.py runs three students on a hub).
hub-proxy: deploy/jupyterhub/node_modules/.package-lock.json
deploy/jupyterhub/node_modules/.package-lock.json: deploy/jupyterhub/package.json deploy/jupyterhub/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
	  if [ "$$(id -u)" -eq 0 ]; then apt-get update && apt-get install -y nodejs npm; \
	  else echo "make: node and npm are missing; install them with: sudo apt-get install -y nodejs npm" >&2; exit 1; fi; \
	fi
	npm ci --prefix deploy/jupyterhub --no-audit --no-fund

# Put one lesson of your copy back as it was shipped; your version is kept in work/.backup/.
lab-reset:
	@if [ -z "$(LESSON)" ]; then echo "usage: make lab-reset LESSON=03" >&2; exit 2; fi
	@src=$$(ls lessons/$(LESSON)_*.py 2>/dev/null | head -n 1); \
	if [ -z "$$src" ]; then echo "make lab-reset: there is no lesson $(LESSON) in lessons/" >&2; exit 2; fi; \
	dst="work/$$src"; mkdir -p "$$(dirname "$$dst")"; \
	if [ -e "$$dst" ]; then \
	  mkdir -p work/.backup; backup="work/.backup/$$(basename "$$dst" .py).$$(date +%Y%m%d-%H%M%S).py"; \
	  cp "$$dst" "$$backup"; echo "your version is saved as $$backup"; \
	fi; \
	$(STUDENT_COPY) "$$src" > "$$dst.tmp" && mv "$$dst.tmp" "$$dst"; echo "$$dst is back as shipped"

# Print every speed figure against PyTorch CPU and NumPy in one table (BENCH_ARGS=--quick for a short run;
# bench/overhead.py, autograd.py, nn.py, explorer.py and cuda.py are the detailed benchmarks).
bench: $(VENV)/.stamp-test
	$(PIP) -e '.[bench]'
	$(PY) bench/speed.py $(BENCH_ARGS)

# Remove the virtual environment and every cache (not work/: that is your copy of the lessons).
clean:
	rm -rf $(VENV) $(HUB_VENV) deploy/jupyterhub/node_modules .pytest_cache .hypothesis build dist *.egg-info test-artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +

# Re-resolve requirements/constraints.txt from today's package versions (then run make test and commit it).
constraints:
	rm -rf .venv-constraints
	$(PYTHON) -m venv .venv-constraints
	.venv-constraints/bin/python -m pip install -e '.[lab,test,hub]'
	{ sed -n '1,/^# Resolved for/p' requirements/constraints.txt; \
	  .venv-constraints/bin/python -m pip freeze --exclude-editable | sed 's/^\(torch==[^+]*\)+cpu$$/\1/'; \
	  sed -n '/^# the cuda extras/,$$p' requirements/constraints.txt; } > requirements/constraints.new
	mv requirements/constraints.new requirements/constraints.txt
	rm -rf .venv-constraints

# Create the virtual environment if it is missing.
$(PY):
	$(PYTHON) -m venv $(VENV)

# A student's install: teachtorch and the lab tools (JupyterLab, widgets, jupytext, Graphviz's Python
# binding, matplotlib); no PyTorch, no test tools. Lessons open as notebooks from their .py files.
$(VENV)/.stamp-lab: pyproject.toml requirements/constraints.txt | $(PY)
	$(PIP) -e '.[lab]'
	@mkdir -p $(VENV)/share/jupyter/lab/settings
	cp requirements/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

# A contributor's install: the lab tools and the test tools. Again only when pyproject.toml or the pins change.
$(VENV)/.stamp-test: $(VENV)/.stamp-lab
	$(PIP) -e '.[lab,test]'
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
