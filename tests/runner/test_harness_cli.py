"""Agent harness settings as a user types them: refused early with the option's name,
environments listed, prices read from the user's table."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.runs import runner

from runner.harnesses.environments import ENVIRONMENTS, Environment, Installed, find_python
from runner.run.prices import Price, PriceError, cost, load_prices
from runner.settings import REPO
from services.core.models.run import Usage

ENDPOINT = ("--model", "m", "--base-url", "http://127.0.0.1:9/v1")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--harness", "dom"), "--model"),
        (("--harness", "dom", "--model", "m"), "--base-url"),
        (("--harness", "dom", "--model", "m", "--base-url", "127.0.0.1:9"), "--base-url"),
        (("--harness", "gui", *ENDPOINT), "--family"),
        (("--harness", "gui", "--family", "cogagent", *ENDPOINT), "--family"),
        (("--harness", "external", *ENDPOINT), "--agent-cmd"),
        (("--harness", "external", "--agent-cmd", "no-such-agent-cmd", *ENDPOINT), "--agent-cmd"),
        (("--harness", "dom", "--prices", "missing.toml", *ENDPOINT), "--prices"),
        (("--harness", "dom", "--option", "history_steps", *ENDPOINT), "--option"),
        (("--harness", "oracle", "--option", "path=mouse"), "--option path"),
    ],
)
def test_agent_settings_are_refused_early(processes, tmp_path: Path, args, message) -> None:
    done = runner(tmp_path, "eval", *args)
    assert done.returncode == 2 and message in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "runs").exists()


def test_a_bad_price_table_names_the_model(processes, tmp_path: Path) -> None:
    table = tmp_path / "prices.toml"
    table.write_text('[models."m"]\ninput = "cheap"\n')
    done = runner(tmp_path, "eval", "--harness", "dom", *ENDPOINT, "--prices", str(table))
    assert done.returncode == 2 and 'models."m"' in done.stdout


def test_harness_list_and_install(processes, tmp_path: Path) -> None:
    empty = {"WPB_CACHE": str(tmp_path / "cache")}  # a machine where nothing is installed
    listed = runner(tmp_path, "harness", "list", env=empty)
    assert listed.returncode == 0
    for name in (
        "oracle",
        "noop",
        "browser-use",
        "openhands",
        "dom",
        "gui",
        "external",
        "openmanus",
        "hermes",
    ):
        assert name in listed.stdout
    assert "runner harness install" in listed.stdout
    done = runner(tmp_path, "harness", "install", "nothing", env=empty)
    assert done.returncode == 2 and "unknown harness environment" in done.stdout
    done = runner(tmp_path, "harness", "install", "dom", env=empty)
    assert done.returncode == 0 and "ready" in done.stdout


def test_prices(tmp_path: Path) -> None:
    table = tmp_path / "prices.toml"
    table.write_text('[models."gpt-x"]\ninput = 1.0\noutput = 4.0\n')
    prices = load_prices(table)
    assert prices == {"gpt-x": Price(1.0, 4.0)}
    usage = {"openai/gpt-x": Usage(input_tokens=1_000_000, output_tokens=500_000, calls=3)}
    assert cost(prices, usage) == (3.0, True)
    assert cost(prices, {**usage, "other": Usage(input_tokens=5)}) == (3.0, False)
    assert load_prices(tmp_path / "absent.toml") == {}
    table.write_text("models = 3\n")
    with pytest.raises(PriceError, match="models"):
        load_prices(table)


def test_openhands_gets_a_python_it_can_run(processes) -> None:
    assert ENVIRONMENTS["openhands"].min_python == (3, 12)
    found = find_python((3, 12))
    assert Path(found).exists()


def test_an_environment_is_ready_only_with_its_npm_packages(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WPB_CACHE", str(tmp_path))
    environment = Environment("mcp", "agent", ("pkg>=1",), npm_packages=("@scope/tool@1.2.3",))
    python = environment.python()
    python.parent.mkdir(parents=True)
    python.touch()
    made = Installed(requirements=["pkg>=1"], python="3.11.7")
    made.write(environment.marker())
    assert environment.state() is None
    made = made.model_copy(update={"npm_packages": ["@scope/tool@1.2.3"]})
    made.write(environment.marker())
    assert environment.state() == made


def test_a_venv_is_named_by_what_it_is_made_from(tmp_path: Path, monkeypatch) -> None:
    """Every checkout shares the venv its pins describe, in the machine's cache; a changed
    pin, Python floor or npm package names another folder, so exactly that venv is made
    again, and the others stay ready."""
    monkeypatch.setenv("WPB_CACHE", str(tmp_path))
    base = Environment("mcp", "agent", ("pkg>=1",), npm_packages=("@scope/tool@1.2.3",))
    assert base.folder().parent == tmp_path / "harnesses"
    assert (
        base.folder()
        == Environment(
            "mcp", "other.agent", ("pkg>=1",), npm_packages=("@scope/tool@1.2.3",)
        ).folder()
    )
    changed = [
        Environment("mcp", "agent", ("pkg>=2",), npm_packages=("@scope/tool@1.2.3",)),
        Environment("mcp", "agent", ("pkg>=1",), npm_packages=("@scope/tool@1.2.4",)),
        Environment(
            "mcp", "agent", ("pkg>=1",), ("extra==1",), npm_packages=("@scope/tool@1.2.3",)
        ),
        Environment(
            "mcp", "agent", ("pkg>=1",), npm_packages=("@scope/tool@1.2.3",), min_python=(3, 12)
        ),
    ]
    assert len({base.folder(), *(e.folder() for e in changed)}) == 1 + len(changed)
    python = base.python()
    python.parent.mkdir(parents=True)
    python.touch()
    Installed(
        requirements=base.packages, npm_packages=list(base.npm_packages), python="3.11.7"
    ).write(base.marker())
    assert base.state() is not None
    assert [e.state() for e in changed] == [None] * len(changed)


def test_no_venv_points_into_a_checkout() -> None:
    """A venv shared by every checkout installs nothing of one (`--editable`, a local path):
    what an agent imports of ours comes from its own checkout, on its PYTHONPATH."""
    for environment in ENVIRONMENTS.values():
        for requirement in environment.packages:
            assert not requirement.startswith("-") and "/" not in requirement, requirement
    assert ENVIRONMENTS["agentlab"].python_path() == [str(REPO / "integrations" / "browsergym")]
