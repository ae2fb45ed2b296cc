"""Metrics for Prometheus: the runner's own while it evaluates (`runner eval --metrics-port`),
and Prometheus itself against the embedded stack (`runner prometheus`), with the scrape
configuration of the compose stand (deploy/prometheus/prometheus.yml) pointed at the
stack's ports."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import yaml
from prometheus_client import Counter, Histogram, make_wsgi_app

from runner.run.prices import Price
from runner.run.prices import cost as prices_cost
from runner.settings import REPO, service_token_file
from runner.stack.stack import StackError
from services.core.models.base import FileFormatError
from services.core.models.run import Record
from services.core.models.stack import STACK_FILE, StackFile

# Where the Prometheus configurations look for the runner, and where `runner prometheus`
# answers.
RUNNER_PORT = 9108
PROMETHEUS_PORT = 9090
COMPOSE_CONFIG = REPO / "deploy" / "prometheus" / "prometheus.yml"
# After a run, how long the runner waits for Prometheus to read its final values.
LINGER_S = 15.0
SERVICES_JOB = "services"
RUNNER_JOB = "runner"

RUN = ["harness", "model"]
TASKS_DONE = Counter("wpb_runner_tasks_done_total", "Tasks finished, by status", [*RUN, "status"])
SCORED = Counter("wpb_runner_tasks_scored_total", "Tasks scored (not infra_error/task_error)", RUN)
PASSED = Counter("wpb_runner_tasks_passed_total", "Scored tasks with EMS 1", RUN)
INFRA_ERRORS = Counter("wpb_runner_infra_errors_total", "Attempts lost to the stand", RUN)
EPISODE = Histogram(
    "wpb_runner_episode_seconds",
    "A scored task's episode, the agent's part",
    RUN,
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 180, 300, 600, 1200),
)
TOKENS = Counter("wpb_runner_tokens_total", "Model tokens, by model and kind", ["model", "kind"])
COST = Counter("wpb_runner_cost_dollars_total", "Model cost in US dollars (--prices)", ["model"])


class RunMetrics:
    """One evaluation's records as the runner's metrics; every series of the run exists, at
    0, from the start."""

    def __init__(self, harness: str, model: str | None, prices: dict[str, Price]) -> None:
        self.run = (harness, model or "none")
        self.model = self.run[1]
        self.prices = prices
        for metric in (SCORED, PASSED, INFRA_ERRORS, EPISODE):
            metric.labels(*self.run)
        for kind in ("input", "output"):
            TOKENS.labels(self.model, kind)
        COST.labels(self.model)

    def observe(self, record: Record) -> None:
        """A finished task's record (one line of records.jsonl)."""
        TASKS_DONE.labels(*self.run, record.status).inc()
        INFRA_ERRORS.labels(*self.run).inc(len(record.infra_errors))
        if not record.status.scored:
            return
        SCORED.labels(*self.run).inc()
        PASSED.labels(*self.run).inc(record.ems or 0)
        EPISODE.labels(*self.run).observe(record.seconds)
        for model, tokens in record.usage.items():
            TOKENS.labels(model, "input").inc(tokens.input_tokens)
            TOKENS.labels(model, "output").inc(tokens.output_tokens)
            COST.labels(model).inc(prices_cost(self.prices, {model: tokens})[0])
        if not record.usage:  # a harness that reports totals only: the run's model
            if record.tokens:
                TOKENS.labels(self.model, "total").inc(record.tokens)
            COST.labels(self.model).inc(record.cost)


class Scrapes:
    """The metrics as a WSGI app that notes when it was last read."""

    def __init__(self) -> None:
        self.app = make_wsgi_app()
        self.last: float | None = None
        self.read = threading.Condition()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        answer = self.app(environ, start_response)
        with self.read:
            self.last = time.monotonic()
            self.read.notify_all()
        return answer

    def wait_next(self, timeout: float) -> None:
        """Until the next read (the first, if nothing has read them yet: a run shorter than
        one scrape interval is read once too); at most `timeout`."""
        with self.read:
            since = self.last
            self.read.wait_for(lambda: self.last != since, timeout)


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *_: Any) -> None:
        pass


@contextmanager
def serving(port: int, host: str) -> Iterator[None]:
    """The process's metrics at http://host:port/metrics while the block runs. The block
    starts once Prometheus has read the starting values and the run ends once it has read
    the final ones, so that every rate() has a sample on each side of the run, however
    short (each wait at most LINGER_S: with no Prometheus, the run takes that much longer
    at each end)."""
    scrapes = Scrapes()
    try:
        server = make_server(host, port, scrapes, ThreadingWSGIServer, handler_class=_Quiet)
    except OSError as exc:
        raise StackError(f"--metrics-port {port}: {exc}") from None
    thread = threading.Thread(target=server.serve_forever, name="wpb-metrics", daemon=True)
    thread.start()
    scrapes.wait_next(LINGER_S)
    try:
        yield
    finally:
        scrapes.wait_next(LINGER_S)
        server.shutdown()
        server.server_close()
        thread.join()


def embedded_config(
    home: Path, scrape_interval: str = "5s", runner_port: int = RUNNER_PORT
) -> dict[str, Any]:
    """The compose stand's scrape configuration for the embedded stack running under `home`:
    its services at their ports, with the credential file the stack keeps; the runner on
    this machine."""
    try:
        state = StackFile.read(home / STACK_FILE)
    except (OSError, FileFormatError):
        raise StackError(f"no stack is running under {home} (runner up --detach)") from None
    config = yaml.safe_load(COMPOSE_CONFIG.read_text())
    config["global"].update(scrape_interval=scrape_interval, evaluation_interval=scrape_interval)
    targets = {
        SERVICES_JOB: [
            f"127.0.0.1:{process.port}"
            for name, process in state.processes.items()
            if name != "nats"
        ],
        RUNNER_JOB: [f"127.0.0.1:{runner_port}"],
    }
    for job in config["scrape_configs"]:
        job["static_configs"] = [{"targets": targets[job["job_name"]]}]
        if "authorization" in job:
            job["authorization"]["credentials_file"] = str(service_token_file(home))
    return dict(config)


def prometheus_argv(home: Path, config: dict[str, Any], port: int) -> list[str]:
    """Write `config` under $WPB_HOME/prometheus/ and return the command that serves it."""
    binary = shutil.which("prometheus")
    if binary is None:
        raise StackError("prometheus not found: `apt-get install prometheus` (make setup does)")
    folder = home / "prometheus"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "prometheus.yml"
    path.write_text(json.dumps(config, indent=1))  # JSON is YAML
    return [
        binary,
        f"--config.file={path}",
        f"--storage.tsdb.path={folder / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--log.level=warn",
    ]
