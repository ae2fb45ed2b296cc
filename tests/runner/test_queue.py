"""The work queue with real processes (docs/scaleout.md): a 3-node nats-server cluster on
loopback ports (storage on tmpfs), `runner worker` processes sharing the test session's
embedded stand, `runner eval --queue` and `runner gather` as a user runs them. The `sleep`
harness (tests/queue_harnesses.py, declared through the harness entry-point group) keeps
Chromium out where the browser is not the point; one test runs `dom` with the test model.

Every test uses a pool of its own, so that one test's episodes never reach another's
workers; the acknowledgement wait is 5 s and the heartbeat 1 s (WPB_QUEUE_*)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nats.js.errors
import pytest
from playwright.sync_api import Page, expect
from support.http import run_async
from support.runs import run_eval
from support.stand import TODAY, admin_client, plugins, running_stack

from runner.agents.browser import png_size
from runner.harnesses.harness import ENTRY_POINT_GROUP
from runner.queue.nats_cluster import NatsCluster
from runner.queue.queue import (
    NO_PEERS,
    STREAM,
    Queue,
    QueueSettings,
    consumer_name,
    retried,
    run_subjects,
)
from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from runner.wait import until
from services.core.models.queue import Entry
from services.core.models.run import RECORDED, AgentConfig

ACK_WAIT_S = 5
BEAT_S = 1
HARNESSES = {
    "sleep": "queue_harnesses:SleepHarness",
    "poison": "queue_harnesses:PoisonHarness",
}
# Fields a queued run's records may differ in from a local run's: its own trajectories, the
# time things took.
TIMING = {"trajectory_id", "seconds", "phases", "episode"}


@pytest.fixture(scope="module")
def cluster(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsCluster]:
    shm = Path("/dev/shm")
    store = Path(tempfile.mkdtemp(prefix="wpb-queue-", dir=shm if shm.is_dir() else None))
    started = NatsCluster(tmp_path_factory.mktemp("cluster")).start(3, store)
    try:
        yield started
    finally:
        started.stop()
        shutil.rmtree(store, ignore_errors=True)


@pytest.fixture(scope="module")
def harnesses(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with plugins(
        tmp_path_factory.mktemp("harnesses"), ENTRY_POINT_GROUP, HARNESSES, "wpbtestharnesses"
    ):
        yield


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("queue-home")


@pytest.fixture(scope="module")
def env(cluster: NatsCluster, stack: Any, harnesses: None, home: Path) -> dict[str, str]:
    """What workers and submitters are started with: the cluster's URLs and credentials, the
    test timings, the stand's admin token and today, one WPB_HOME."""
    return {
        **os.environ,
        **cluster.env(),
        "WPB_QUEUE_URLS": cluster.urls,
        "WPB_QUEUE_ACK_WAIT_S": str(ACK_WAIT_S),
        "WPB_QUEUE_BEAT_S": str(BEAT_S),
        "WPB_QUEUE_FETCH_S": "1",
        "WPB_QUEUE_ARTIFACT_BYTES": str(256 * 1024**2),
        "WPB_ADMIN_TOKEN": stack.token,
        "WPB_TODAY": TODAY,
        "WPB_HOME": str(home),
    }


class Workers:
    """`runner worker` processes on the test stand, each logging to a file of its own."""

    def __init__(self, env: dict[str, str], hub: str, logs: Path) -> None:
        self.env, self.hub, self.logs = env, hub, logs
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, pool: str, slots: int = 1, **extra: str) -> subprocess.Popen[bytes]:
        log = self.log(name)
        offset = log.stat().st_size if log.exists() else 0
        with log.open("ab") as out:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "runner",
                    "worker",
                    "--pool",
                    pool,
                    "--hub",
                    self.hub,
                    "--name",
                    name,
                    "--slots",
                    str(slots),
                ],
                env={**self.env, **extra},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.processes[name] = process

        def joined() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"worker {name} exited: {self.text(name)[-2000:]}")
            return "slot(s) on pool" in log.read_text(errors="replace")[offset:]

        until(joined, 60, f"worker {name} joined")
        return process

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def text(self, name: str) -> str:
        return self.log(name).read_text(errors="replace")

    def stop(self) -> None:
        for process in self.processes.values():
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGCONT)
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()


@pytest.fixture
def workers(env: dict[str, str], stack: Any, tmp_path: Path) -> Iterator[Workers]:
    started = Workers(env, stack.hub_url, tmp_path)
    try:
        yield started
    finally:
        started.stop()


def runner(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runner", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def submit(env: dict[str, str], pool: str, *args: str, detach: bool = False) -> str:
    """`runner eval --queue` of the sleep harness (or the harness `args` name) on `pool`;
    its run id. Without `detach` it gathers the run to its end first."""
    harness = [] if "--harness" in args else ["--harness", "sleep"]
    done = runner(
        env,
        "eval",
        "--queue",
        env["WPB_QUEUE_URLS"],
        "--pool",
        pool,
        *harness,
        "--time-limit",
        "60",
        *args,
        *(["--detach"] if detach else []),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r"^(\S+): \d+ episode\(s\) on pool", done.stdout, re.M)
    assert found, done.stdout
    return found.group(1)


def records(home: Path, run_id: str) -> list[dict[str, Any]]:
    lines = (home / "runs" / run_id / "records.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def on_queue(env: dict[str, str], work: Any) -> Any:
    """`work(queue)` on a connection of the test's own."""

    async def run() -> Any:
        settings = QueueSettings(user=env["WPB_QUEUE_USER"], password=env["WPB_QUEUE_PASSWORD"])
        queue = await Queue(env["WPB_QUEUE_URLS"].split(","), "test", settings).connect()
        try:
            return await work(queue)
        finally:
            await queue.close()

    return run_async(run())


def entries(env: dict[str, str], run_id: str) -> dict[str, Entry]:
    """Every episode entry of a run, by key."""

    async def read(queue: Queue) -> dict[str, Entry]:
        found: dict[str, Entry] = {}
        for key in await queue.keys_of(run_id):
            entry, _ = await queue.entry(key)
            if entry is not None:
                found[key] = entry
        return found

    return on_queue(env, read)


def running(env: dict[str, str], run_id: str, timeout: float = 60) -> tuple[str, Entry]:
    """The first episode of the run a worker holds with a trajectory (key, entry)."""

    def held() -> tuple[str, Entry] | None:
        for key, entry in entries(env, run_id).items():
            if entry.state == "running" and entry.trajectory_id:
                return key, entry
        return None

    return until(held, timeout, "a held episode", every=0.3)


def left_in_stream(env: dict[str, str], pool: str, run_id: str) -> int:
    async def count(queue: Queue) -> int:
        info = await queue.js.stream_info(
            STREAM, subjects_filter=run_subjects(pool, queue.build, run_id)
        )
        return sum((info.state.subjects or {}).values())

    return on_queue(env, count)


def key_of(record: dict[str, Any], run_id: str) -> str:
    return f"{run_id}.{record['task']}.r{record['repeat']}"


def comparable(record: Any) -> dict[str, Any]:
    data = record if isinstance(record, dict) else record.model_dump(mode="json")
    return {k: v for k, v in data.items() if k not in TIMING}


@pytest.mark.timeout(150)
def test_a_run_through_the_queue_equals_a_local_run(env, home, stack, workers, tmp_path):
    """24 episodes (8 tasks, 3 repeats) over 3 workers: 24 records, one per key, equal to a
    local run's of the same harness but for timing; the manifest names the queue."""
    for name in ("eq1", "eq2", "eq3"):
        workers.start(name, "equal")
    run_id = submit(
        env, "equal", "--tasks", "grocery", "--max-tasks", "8", "--repeat", "3",
        "--option", "sleep_s=0.2",
    )  # fmt: skip
    queued = records(home, run_id)
    assert len(queued) == 24 and len({key_of(r, run_id) for r in queued}) == 24
    refs = select_tasks(TASKS_DIR, "grocery", 8)
    agent = AgentConfig(options={"sleep_s": 0.2})
    local = run_eval(stack, tmp_path / "local", "sleep", refs, 3, 60, agent, repeat=3)

    def order(rows: list[Any]) -> list[dict[str, Any]]:
        return sorted((comparable(r) for r in rows), key=lambda r: (r["task"], r["repeat"]))

    assert order(queued) == order(local.records)
    out = home / "runs" / run_id
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["backend"]["kind"] == "queue"
    assert manifest["backend"]["queue"]["pool"] == "equal"
    assert manifest["today"] == TODAY and manifest["tasks"] == 8 and manifest["repeat"] == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["tasks"] == 24 and summary["overall"]["completion"] == 1.0
    done = entries(env, run_id)
    assert {e.worker.split("/")[0] for e in done.values()} == {"eq1", "eq2", "eq3"}
    assert left_in_stream(env, "equal", run_id) == 0


@pytest.mark.timeout(120)
def test_a_killed_workers_episode_is_done_by_another(env, home, stack, workers):
    """SIGKILL the worker holding an episode: after the ack wait another worker takes it
    over on a new trajectory, the lost one listed in the record's infra_errors; the killed
    worker, started again, closes the trajectory it left open."""
    workers.start("kill1", "kill")
    workers.start("kill2", "kill")
    run_id = submit(env, "kill", "--tasks", "grocery", "--max-tasks", "3",
                    "--option", "sleep_s=3", detach=True)  # fmt: skip
    key, held = running(env, run_id)
    name, pid, _ = held.worker.split("/")
    os.kill(int(pid), signal.SIGKILL)
    killed_at = time.monotonic()
    workers.processes[name].wait(10)

    def taken_over() -> Entry | None:
        entry = entries(env, run_id).get(key)
        return entry if entry and entry.delivery == 2 else None

    until(taken_over, 30, "the episode delivered again", every=0.2)
    # Delivered again because its heartbeats stopped: not before the ack wait has passed
    # since the last one (however slow the machine, never sooner).
    assert time.monotonic() - killed_at >= ACK_WAIT_S - BEAT_S
    done = runner(env, "gather", run_id)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {key_of(r, run_id): r for r in records(home, run_id)}
    assert len(rows) == 3
    record = rows[key]
    assert record["status"] == "ok" and record["attempts"] == 2
    (lost,) = record["infra_errors"]
    assert (
        lost["trajectory_id"] == held.trajectory_id
        and record["trajectory_id"] != lost["trajectory_id"]
    )
    assert "no heartbeat" in lost["error"]
    workers.start(name, "kill")  # its next incarnation sweeps what it left
    trajectory = stack_trajectory(stack, held.trajectory_id)
    assert trajectory["status"] == "closed"


def stack_trajectory(stack: Any, tid: str) -> dict[str, Any]:
    with admin_client(stack) as client:
        return client.get(f"/api/trajectories/{tid}").json()  # type: ignore[no-any-return]


@pytest.mark.timeout(150)
def test_the_consumers_leader_killed_the_run_completes(env, home, cluster, workers):
    """SIGKILL the node that leads the pool's consumer mid-run (an ack wait of 20 s, longer
    than an election): the run completes, no key lost or doubled."""
    slow = {"WPB_QUEUE_ACK_WAIT_S": "20"}
    workers.start("lead1", "leader", **slow)
    workers.start("lead2", "leader", **slow)
    leader_env = {**env, **slow}
    submitter = subprocess.Popen(
        [sys.executable, "-m", "runner", "eval", "--queue", env["WPB_QUEUE_URLS"], "--pool",
         "leader", "--harness", "sleep", "--tasks", "grocery", "--max-tasks", "6",
         "--repeat", "2", "--option", "sleep_s=1", "--time-limit", "60"],
        env=leader_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip

    async def leader(queue: Queue) -> str:
        info = await queue.js.consumer_info(STREAM, consumer_name("leader", queue.build))
        return info.cluster.leader  # type: ignore[union-attr]

    def some_records() -> bool:
        runs = list((home / "runs").glob("*-sleep-*/records.jsonl"))
        return any(
            len(p.read_text().splitlines()) >= 2
            for p in runs
            if "leader" in p.parent.joinpath("manifest.json").read_text()
        )

    until(some_records, 60, "the first records", every=0.3)
    name = on_queue(leader_env, leader)
    cluster.kill(name)
    try:
        out, _ = submitter.communicate(timeout=100)
    finally:
        cluster.restart(name)
    assert submitter.returncode == 0, out
    run_id = re.search(r"^(\S+): \d+ episode", out, re.M).group(1)  # type: ignore[union-attr]
    rows = records(home, run_id)
    keys = [key_of(r, run_id) for r in rows]
    assert len(keys) == 12 and len(set(keys)) == 12
    assert all(r["status"] == "ok" for r in rows)


@pytest.mark.timeout(120)
def test_a_stalled_worker_is_fenced(env, home, workers):
    """SIGSTOP the worker holding an episode past the ack wait, then SIGCONT: the other
    worker took it over, the stalled one is fenced (it writes nothing); one record."""
    workers.start("stop1", "stop")
    workers.start("stop2", "stop")
    run_id = submit(env, "stop", "--tasks", "grocery_showcase_tea,grocery_showcase_ryazhenka",
                    "--option", "sleep_s=3", detach=True)  # fmt: skip
    key, held = running(env, run_id)
    name, pid, _ = held.worker.split("/")
    os.kill(int(pid), signal.SIGSTOP)
    try:
        until(
            lambda: (e := entries(env, run_id).get(key)) is not None and e.delivery == 2,
            30,
            "taken over",
            every=0.3,
        )
    finally:
        os.kill(int(pid), signal.SIGCONT)
    done = runner(env, "gather", run_id)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = records(home, run_id)
    assert sorted(key_of(r, run_id) for r in rows) == sorted(entries(env, run_id))
    assert len(rows) == 2
    until(lambda: "fenced" in workers.text(name), 20, "the stalled worker fenced")
    record = next(r for r in rows if key_of(r, run_id) == key)
    assert [lost["trajectory_id"] for lost in record["infra_errors"]] == [held.trajectory_id]


@pytest.mark.timeout(150)
def test_a_poison_episode_ends_as_an_infra_error(env, home, workers):
    """An episode that kills every worker that runs it: after its deliveries an unscored
    infra_error record, the run complete, nothing left in the stream."""
    names = ("poison1", "poison2")
    for name in names:
        workers.start(name, "poison")
    run_id = submit(env, "poison", "--harness", "poison", "--tasks", "grocery_showcase_tea",
                    detach=True)  # fmt: skip
    gather = subprocess.Popen(
        [sys.executable, "-m", "runner", "gather", run_id],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while gather.poll() is None and time.monotonic() < deadline:  # as systemd restarts them
        for name in names:
            if workers.processes[name].poll() is not None:
                workers.start(name, "poison")
        time.sleep(0.5)
    out, _ = gather.communicate(timeout=10)
    assert gather.returncode == 0, out
    (record,) = records(home, run_id)
    assert record["status"] == "infra_error" and record["ems"] is None
    assert record["error"] == "no result after 3 deliveries"
    assert len(record["infra_errors"]) == 3
    assert left_in_stream(env, "poison", run_id) == 0


@pytest.mark.timeout(120)
def test_a_killed_submitter_resumes_to_the_same_records(env, home, workers):
    """SIGKILL the submitter mid-run; an episode's message lost besides (purged, as one
    never published): `--resume` publishes again that one only and gathers the same
    records as the workers wrote, one per key."""
    workers.start("res1", "resume")
    workers.start("res2", "resume")
    args = ["--tasks", "grocery", "--max-tasks", "5", "--repeat", "2", "--option", "sleep_s=1"]
    submitter = subprocess.Popen(
        [sys.executable, "-m", "runner", "eval", "--queue", env["WPB_QUEUE_URLS"], "--pool",
         "resume", "--harness", "sleep", "--time-limit", "60", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert submitter.stdout is not None
    line = submitter.stdout.readline()
    while "episode(s) on pool" not in line:
        line = submitter.stdout.readline()
    run_id = line.split(":")[0].strip()
    until(
        lambda: (
            (home / "runs" / run_id / "records.jsonl").exists() and len(records(home, run_id)) >= 2
        ),
        60,
        "two records",
        every=0.2,
    )
    submitter.kill()
    submitter.wait()

    async def purge_last(queue: Queue) -> int:
        subject = f"{run_subjects('resume', queue.build, run_id)[:-1]}9"
        if not await queue.queued(subject):
            return 0
        await queue.js.purge_stream(STREAM, subject=subject)
        return 1

    purged = on_queue(env, purge_last)
    resumed = runner(env, "eval", "--queue", env["WPB_QUEUE_URLS"], "--pool", "resume",
                     "--harness", "sleep", "--time-limit", "60", *args, "--resume", run_id)  # fmt: skip  # noqa: E501
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{purged} episode(s) published again" in resumed.stdout
    rows = records(home, run_id)
    done = entries(env, run_id)
    assert len(rows) == 10 and sorted(key_of(r, run_id) for r in rows) == sorted(done)
    by_key = {key_of(r, run_id): r for r in rows}
    assert all(by_key[k] == done[k].record.model_dump(mode="json") for k in done)  # type: ignore[union-attr]
    assert (home / "runs" / run_id / "summary.json").exists()


@pytest.mark.timeout(90)
def test_a_worker_of_another_build_sees_none_of_the_work(env, home, workers):
    """A worker of another build id binds to its own build's consumer: it takes nothing of
    this build's run, which this build's worker runs whole."""
    workers.start("other", "builds", WPB_QUEUE_BUILD="0ther0ne")
    workers.start("same", "builds")
    run_id = submit(env, "builds", "--tasks", "grocery", "--max-tasks", "4",
                    "--option", "sleep_s=0.1")  # fmt: skip
    assert len(records(home, run_id)) == 4
    assert {e.worker.split("/")[0] for e in entries(env, run_id).values()} == {"same"}

    async def delivered(queue: Queue) -> int:
        info = await queue.js.consumer_info(STREAM, consumer_name("builds", "0ther0ne"))
        return info.delivered.consumer_seq or 0  # type: ignore[union-attr]

    assert on_queue(env, delivered) == 0


@pytest.mark.timeout(60)
def test_bad_input_is_refused_and_nothing_accepted_is_lost(env, home, workers, tmp_path):
    """An unreachable queue and the queue's options without --queue are refused naming the
    option; a worker refuses a pool whose runs use a harness this host has not installed,
    naming it, and the episode stays queued."""
    unreachable = runner(env, "eval", "--queue", "nats://127.0.0.1:1", "--harness", "sleep",
                         "--tasks", "grocery_showcase_tea")  # fmt: skip
    assert unreachable.returncode == 2 and "--queue: no NATS server answers" in unreachable.stdout
    detached = runner(env, "eval", "--harness", "sleep", "--detach")
    assert detached.returncode == 2 and "--detach: needs --queue" in detached.stdout
    run_id = submit(env, "missing", "--harness", "openhands", "--model", "m", "--base-url",
                    "http://127.0.0.1:9/v1", "--tasks", "grocery_showcase_tea", detach=True)  # fmt: skip  # noqa: E501
    bare = {**env, "WPB_CACHE": str(tmp_path / "cache")}  # a host with no harness venv
    refused = runner(bare, "worker", "--pool", "missing", "--hub", workers.hub, "--name", "lacks")
    assert refused.returncode == 2
    assert "pool 'missing' runs harness 'openhands'" in refused.stdout
    assert "runner harness install openhands" in refused.stdout
    assert left_in_stream(env, "missing", run_id) == 1


@pytest.mark.timeout(200)
def test_the_dom_harness_with_the_test_model_through_the_queue(env, home, workers, testmodel):
    """A real agent harness end to end through the queue: `dom` and the test model solve
    the tea task on a worker; its episode folder travels through the object store into the
    run directory, and the store keeps nothing of it."""
    workers.start("dom1", "agents")
    run_id = submit(env, "agents", "--harness", "dom", "--model", "test", "--base-url",
                    testmodel, "--tasks", "grocery_showcase_tea", "--max-steps", "15")  # fmt: skip
    (record,) = records(home, run_id)
    assert record["status"] == "ok" and record["ems"] == 1, record
    folder = home / "runs" / run_id / record["episode"]
    assert (folder / "steps.jsonl").exists() or any(folder.iterdir())

    async def artifacts(queue: Queue) -> list[str]:
        with contextlib.suppress(Exception):
            return [info.name for info in await queue.artifacts.list(ignore_deletes=True)]
        return []

    assert not [name for name in on_queue(env, artifacts) if name.startswith(run_id)]


@pytest.mark.timeout(200)
def test_a_queued_run_renders_at_its_viewport_and_its_stand_shows_it(
    env, home, stack, workers, testmodel, page: Page
):
    """`--viewport 390x844` travels in every episode's message (its plan): the worker's
    browser renders the pages 390 CSS px wide, as the manifest says (the dom harness's
    screenshots, at zoom 1, are 390 pixels wide). A worker keeps its episodes where its
    stand's viewer reads a run's: the trajectory's page shows the agent's steps, their
    screenshots and the run. The submitter's own stand, which never held the trajectory,
    shows it as the run folder recorded it: its verdict, its log and the same steps."""
    workers.start("phone1", "phone", WPB_HOME=str(stack.home))  # the stand's own home
    run_id = submit(env, "phone", "--harness", "dom", "--model", "test", "--base-url",
                    testmodel, "--tasks", "grocery_showcase_tea", "--max-steps", "4",
                    "--viewport", "390x844")  # fmt: skip
    manifest = json.loads((home / "runs" / run_id / "manifest.json").read_text())
    assert manifest["viewport"] == {"width": 390, "height": 844, "zoom": 1.0}
    (record,) = records(home, run_id)
    shots = sorted((home / "runs" / run_id / record["episode"]).glob("step-*.png"))
    assert shots, record
    assert {png_size(shot.read_bytes())[0] for shot in shots} == {390}
    tid = record["trajectory_id"]
    with admin_client(stack) as hub:
        shown = hub.get(f"/view/trajectories/{tid}")
        assert shown.status_code == 200, shown.text[:300]
        assert f'href="/view/runs/{run_id}"' in shown.text
        first = f"/view/trajectories/{tid}/{shots[0].name}"
        assert f'src="{first}"' in shown.text
        served = hub.get(first)
        assert served.status_code == 200 and png_size(served.content)[0] == 390
    with running_stack(home, sites={}) as submitters:
        page.goto(f"{submitters.hub_url}/view/login?token={submitters.token}")
        page.goto(f"{submitters.hub_url}/view/runs/{run_id}")
        page.get_by_role("link", name="grocery_showcase_tea").click()
        expect(page.locator("#recorded")).to_contain_text(run_id)
        expect(page.locator("#ems")).to_have_text(
            f"EMS {record['ems']} · {record['passed']}/{record['total']}"
        )
        kept = json.loads((home / "runs" / run_id / record["episode"] / RECORDED).read_text())
        expect(page.locator("#count")).to_have_text(f"({len(kept['events']['events'])})")
        expect(page.locator(f'img[src="{first}"]')).to_have_count(1)
        shot = page.request.get(f"{submitters.hub_url}{first}")
        assert shot.ok and png_size(shot.body())[0] == 390


def test_a_cluster_still_forming_is_asked_again_and_other_refusals_are_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JetStream refuses a placement while the cluster's nodes have not all joined (a worker
    that starts beside a cluster that is starting): asked again; any other bad request
    propagates at once."""
    monkeypatch.setattr("runner.queue.queue.asyncio.sleep", _no_wait)
    answers = [nats.js.errors.BadRequestError(err_code=NO_PEERS), "made"]

    async def forming() -> str:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert run_async(retried(forming, "the queue's streams")) == "made" and not answers
    calls = []

    async def refused() -> None:
        calls.append(1)
        raise nats.js.errors.BadRequestError(err_code=10058)

    with pytest.raises(nats.js.errors.BadRequestError):
        run_async(retried(refused, "the queue's streams"))
    assert len(calls) == 1
    with pytest.raises(nats.js.errors.BadRequestError):
        run_async(retried(lambda: forming_forever(), "the queue's streams", attempts=3))


async def forming_forever() -> None:
    raise nats.js.errors.BadRequestError(err_code=NO_PEERS)


async def _no_wait(seconds: float) -> None:
    """asyncio.sleep without the wait."""
