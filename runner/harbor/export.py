"""Tasks as a Harbor dataset (`runner export --format harbor DIR`; docs/frameworks.md,
"Harbor"): a folder per task that `harbor run -p DIR` runs with any Harbor agent.

    <task>/instruction.md        the prompt, its dates for the export's today, its address
                                 the trial's door (http://start:8000/)
    <task>/task.toml             name, site, UI classes, suite, site version, limits; the
                                 box's image and its browser tool (Playwright's MCP server)
    <task>/environment/          docker-compose.yaml: the door (`start`), and the stand
                                 (a trial's own, or the shared one's network); task.json, the
                                 task the door creates the trajectory from (the box never
                                 gets it)
    <task>/tests/test.sh         the verifier: the door's verdict as reward.json
    <task>/solution/             solve.sh and the shifted task: the reference solver

A trial's stand is its own (`stand="trial"`: the stand's services beside the box, made
from compose.yaml's) or one stand that every trial shares (`stand="shared"`: the compose
stand started by `make stand`, reached over its `agents` network; each trial's trajectory
is isolated from the others' as every trajectory is). Tasks that require the agent's report
(`agent_report`) are left out: Harbor gives an agent no channel for one.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml

from runner.harnesses.environments import Environment
from runner.harnesses.oracle import REPORT
from runner.run.evaluate import TaskRef, task_set_hash
from runner.settings import REPO
from services.core.dateshift import shift_task
from services.core.sites import registry

Stand = Literal["trial", "shared"]
# The Harbor release the export is written for, tested and measured with: a venv of its own
# in the machine's cache (it needs Python 3.12), made by `HARBOR.install()`.
HARBOR = Environment("harbor", "harbor.cli.main", ("harbor==0.26.0",), min_python=(3, 12))
# The box's image and the door's (deploy/agent-images.sh builds it), and the door's address
# as every instruction gives it.
IMAGE = "wpb-harbor"
DOOR = "start"
START = f"http://{DOOR}:8000/"
# The compose stand's network where agents reach its hub (compose.yaml `agents`, project
# wpb; another project's where WPB_STAND_NETWORK names it when `harbor run` starts a trial).
SHARED_NETWORK = "${WPB_STAND_NETWORK:-wpb_agents}"
# compose.yaml's services that make a stand (profiles and the metrics left out).
STAND_SERVICES = (
    "credentials",
    "nats",
    "events",
    "verifier",
    "market",
    "books",
    "grocery",
    "rail",
    "hotels",
    "files",
    "hub",
)
HEALTH = {
    "test": [
        "CMD",
        "python",
        "-c",
        "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=2)",
    ],
    "interval": "2s",
    "timeout": "3s",
    "retries": 60,
}
TEST_SH = f"""#!/bin/bash
# WebPageBench's verifier: this trial's verdict from its door, as /logs/verifier/reward.json
# (reward = EMS) and verdict.json; no reward file and exit 1 where the stand cannot answer.
exec python -m runner.harbor.verify {START} /logs/verifier
"""
SOLVE_SH = f"""#!/bin/bash
# WebPageBench's reference solver, through the pages in this box's Chromium.
exec python -m runner.harbor.solve {START} /solution/task.json
"""


class Plain(yaml.SafeDumper):
    """YAML without anchors: compose.yaml's shared blocks written out where each is used."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


@dataclass(frozen=True)
class Exported:
    written: list[str]
    # Left out, each with why.
    skipped: dict[str, str]


def export(
    refs: list[TaskRef],
    out: Path,
    today: date,
    stand: Stand = "trial",
    time_limit_s: float = 600,
) -> Exported:
    """A task folder under `out` for each of `refs` (an existing one is replaced)."""
    digest = task_set_hash(refs)
    versions = {site.domain: site.version for site in registry().sites}
    compose = stand_compose(stand)
    written, skipped = [], {}
    for ref in refs:
        conditions = ref.task["test_data"]["conditions"]
        if any(c["event_name"] == REPORT for c in conditions):
            skipped[ref.name] = "it requires the agent's report, which Harbor has no channel for"
            continue
        folder = out / ref.name
        if folder.exists():
            shutil.rmtree(folder)
        toml = task_toml(ref, today, versions.get(ref.site, 1), digest, time_limit_s)
        write_task(folder, ref, today, compose, toml)
        written.append(ref.name)
    return Exported(written, skipped)


def write_task(
    folder: Path,
    ref: TaskRef,
    today: date,
    compose: dict[str, Any],
    toml: str,
) -> None:
    shifted, _ = shift_task(ref.task["test_data"], today)
    for part in ("environment", "tests", "solution"):
        (folder / part).mkdir(parents=True)
    (folder / "instruction.md").write_text(shifted["task"].replace("%HOST%", START) + "\n")
    (folder / "task.toml").write_text(toml)
    (folder / "environment" / "docker-compose.yaml").write_text(
        yaml.dump(door_compose(compose, today), Dumper=Plain, allow_unicode=True, sort_keys=False)
    )
    dump(ref.task, folder / "environment" / "task.json")
    dump({**ref.task, "test_data": shifted}, folder / "solution" / "task.json")
    scripts = {"tests/test.sh": TEST_SH, "solution/solve.sh": SOLVE_SH}
    for name, text in scripts.items():
        path = folder / name
        path.write_text(text)
        path.chmod(0o755)


def dump(data: object, path: Path) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def task_toml(
    ref: TaskRef, today: date, site_version: int, digest: str, time_limit_s: float
) -> str:
    """task.toml: flat tables of strings, numbers and string lists (JSON's string syntax is
    TOML's basic string)."""
    classes = ref.ui_classes
    tables: dict[str, dict[str, object]] = {
        "task": {
            "name": f"webpagebench/{ref.name}",
            "description": f"WebPageBench, {ref.site}: {ref.name}",
            "keywords": ["web", "browser", ref.site, *classes],
        },
        "metadata": {
            "site": ref.site,
            "site_version": site_version,
            "suite": ref.suite,
            "ui_primary": ref.ui_primary,
            "ui_classes": classes,
            "task_set_hash": digest,
            "today": today.isoformat(),
        },
        "agent": {"timeout_sec": time_limit_s},
        "verifier": {"timeout_sec": 120},
        "environment": {
            "docker_image": IMAGE,
            "build_timeout_sec": 600,
            "cpus": 1,
            "memory_mb": 2048,
        },
        "environment.mcp_servers": {
            "name": "browser",
            "transport": "stdio",
            "command": "playwright-mcp",
            "args": ["--isolated"],
        },
    }
    lines = ['schema_version = "1.4"']
    for table, values in tables.items():
        header = f"[[{table}]]" if table.endswith("mcp_servers") else f"[{table}]"
        lines += ["", header]
        lines += [f"{key} = {json.dumps(v, ensure_ascii=False)}" for key, v in values.items()]
    return "\n".join(lines) + "\n"


def stand_compose(stand: Stand) -> dict[str, Any]:
    """The services and networks beside the door: a trial's own stand (compose.yaml's
    services, built images only, nothing published) or the shared stand's network."""
    if stand == "shared":
        return {"services": {}, "networks": {"stand": {"external": True, "name": SHARED_NETWORK}}}
    source = yaml.safe_load((REPO / "compose.yaml").read_text())
    services = {}
    for name in STAND_SERVICES:
        service = {
            key: value
            for key, value in source["services"][name].items()
            if key not in ("build", "ports", "restart", "profiles")
        }
        if "networks" in service:
            service["networks"] = ["services", "stand"] if name == "hub" else ["services"]
        if name == "hub":
            service["volumes"] = ["credentials:/run/wpb:ro"]
            service["environment"] = {**service["environment"], "WPB_PUBLIC_URL": "http://hub:8000"}
        services[name] = service
    return {
        "services": services,
        "networks": {"services": {"internal": True}, "stand": {}},
        "volumes": {name: {} for name in ("credentials", "nats-data", "events-data")},
    }


def door_compose(stand: dict[str, Any], today: date) -> dict[str, Any]:
    """The task's docker-compose.yaml: the box (`main`, Harbor's; on the stand's network),
    the door (`start`) and what `stand_compose` gave."""
    own = bool(stand["services"])
    door: dict[str, Any] = {
        "image": IMAGE,
        "entrypoint": ["python", "-m", "uvicorn", "--factory", "runner.harbor.door:create_app"],
        "command": ["--host", "0.0.0.0", "--port", "8000", "--log-level", "warning"],
        "environment": {
            "WPB_HUB_URL": "http://hub:8000",
            "WPB_TASK_FILE": "/wpb/task.json",
            "WPB_TODAY": today.isoformat(),
            # A trial's own stand: its credentials volume; the shared one: the token the
            # person who runs `harbor run` exports (`runner compose-env` wrote it).
            **(
                {"WPB_SECRETS_DIR": "/run/wpb"}
                if own
                else {"WPB_ADMIN_TOKEN": "${WPB_ADMIN_TOKEN:?the shared stand's admin token}"}
            ),
        },
        "volumes": ["./task.json:/wpb/task.json:ro", *(["credentials:/run/wpb:ro"] if own else [])],
        "networks": ["default", "stand"],
        "healthcheck": HEALTH,
    }
    if own:
        door["depends_on"] = {"hub": {"condition": "service_healthy"}}
    return {
        "services": {
            "main": {
                "networks": ["default", "stand"],
                "depends_on": {DOOR: {"condition": "service_healthy"}},
            },
            DOOR: door,
            **stand["services"],
        },
        "networks": {"default": {}, **stand["networks"]},
        **({"volumes": stand["volumes"]} if "volumes" in stand else {}),
    }
