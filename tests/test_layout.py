"""The shape of the code: no import circle in runner/ or services/ (issue 22; every import
counts, one inside a function too), every harness declared, none found by a side effect; and
the runner's parts import one way only (issue 36): `DIRECTIONS`, no site package imported
by the runner, no runner module named by the services."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from runner.harnesses.environments import ENVIRONMENTS
from runner.harnesses.harness import available
from services.core.sites import registry

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("runner", "services")


def modules() -> dict[str, Path]:
    """Every module of the packages by its dotted name (a package by its folder's)."""
    found = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> list[tuple[int, str]]:
    """The modules of `known` that `name` imports, anywhere in its file, each with its line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets.append((node.lineno, base))
            targets.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    found = set()
    for line, target in targets:
        while target and target not in known:  # `a.b.name` of a module `a.b`
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add((line, target))
    return sorted(found)


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `name` imports, anywhere in its file."""
    return {target for _, target in imports(name, path, known)}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without
    recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_import_circle_in_runner_or_services() -> None:
    found = modules()
    graph = {name: imported(name, path, set(found)) for name, path in found.items()}
    assert sum(len(targets) for targets in graph.values()) > 300  # the walk sees the imports
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]


def test_every_harness_is_declared_as_an_entry_point() -> None:
    declared = available()
    assert {"oracle", "noop", "external", *ENVIRONMENTS} <= set(declared)
    for name, factory in declared.items():
        harness = factory()
        assert harness.name == name and hasattr(harness, "run"), name


# Which part of the runner may import which (issue 36): the shared modules at the top
# (settings, wait, the hub client, the errors), each sub-package of runner/, and
# runner/__main__.py, the one module that imports the CLI. Lowest first: a part builds on
# those it names, never on one above it or beside it; the CLI imports anything.
SHARED = "shared"
MAIN = "__main__"
BELOW_RUN = (SHARED, "agents", "models", "stack", "harnesses", "run")
DIRECTIONS: dict[str, tuple[str, ...]] = {
    SHARED: (),
    "agents": (),  # the agent programs: in their own venvs and images, without the runner
    "models": (SHARED, "agents"),  # the test model speaks the agents' protocol
    "stack": (SHARED,),
    "harnesses": (SHARED, "agents", "models", "stack"),
    "run": (SHARED, "agents", "models", "stack", "harnesses"),
    "suite": BELOW_RUN,  # generation proves its instances with a run
    "queue": BELOW_RUN,  # the queue builds on the run
    "results": BELOW_RUN,
    "harbor": BELOW_RUN,  # a Harbor task is a run's task, solved by the oracle
    "cli": (*BELOW_RUN, "suite", "queue", "results", "harbor"),
    MAIN: ("cli",),
}
RUNNER_MODULE = re.compile(r"\brunner(?:\.[A-Za-z_]\w*)+")


def part(module: str) -> str | None:
    """The part of the runner a module of it belongs to; None outside the runner."""
    parts = module.split(".")
    if parts[0] != "runner":
        return None
    if len(parts) == 1 or (REPO / "runner" / f"{parts[1]}.py").exists():
        return MAIN if parts[1:] == [MAIN] else SHARED
    return parts[1]


def wrong_way(found: dict[str, Path], directions: dict[str, tuple[str, ...]]) -> list[str]:
    """Every import of a runner module that its part may not make (`directions`), and every
    import of the runner by the services: `file:line imports module (why)`."""
    known = set(found)
    wrong = []
    for name, path in sorted(found.items()):
        mine = part(name)
        for line, target in imports(name, path, known):
            theirs = part(target)
            if theirs is None or theirs == mine:
                continue
            where = f"{path.relative_to(REPO)}:{line} imports {target}"
            if mine is None:
                wrong.append(f"{where} (the services import no runner module)")
            elif theirs not in directions[mine]:
                allowed = ", ".join(directions[mine]) or "no other part"
                wrong.append(f"{where} ({mine} may import {allowed}; not {theirs})")
    return wrong


def test_the_runner_has_six_top_level_modules_and_a_direction_for_every_part() -> None:
    assert len(list((REPO / "runner").glob("*.py"))) <= 6
    packages = {p.name for p in (REPO / "runner").iterdir() if (p / "__init__.py").exists()}
    assert packages | {SHARED, MAIN} == set(DIRECTIONS)


def test_the_runner_s_parts_import_one_way() -> None:
    wrong = wrong_way(modules(), DIRECTIONS)
    assert not wrong, "\n".join(wrong)


def test_the_runner_imports_no_site_package() -> None:
    """A site's code is reached through the site registry (its descriptor's hooks), never
    by its package's name."""
    found = modules()
    sites = tuple(site.app.rpartition(".")[0] for site in registry().sites)
    assert len(sites) >= 6 and all(sites)
    wrong = [
        f"{path.relative_to(REPO)}:{line} imports {target} (a site's package)"
        for name, path in sorted(found.items())
        if part(name) is not None
        for line, target in imports(name, path, set(found))
        if any(target == site or target.startswith(f"{site}.") for site in sites)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_services_file_names_a_runner_module() -> None:
    """The services know nothing of the runner: not by an import (above), not by a string
    that names one of its modules ("runner.x:y" references included)."""
    wrong = [
        f"{path.relative_to(REPO)}:{node.lineno} names {match.group()}"
        for path in sorted((REPO / "services").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for match in RUNNER_MODULE.finditer(node.value)
    ]
    assert not wrong, "\n".join(wrong)


MOST_PARAMETERS = 6


def wide_functions(tree: ast.Module) -> list[tuple[int, str, int]]:
    """Each function of `tree` that takes more than MOST_PARAMETERS (self and cls aside),
    with its line and count; a CLI command's options (typer's) are its interface, not
    counted."""
    wide = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        given = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        names = [a.arg for a in given if a.arg not in ("self", "cls")]
        command = any("Option" in ast.unparse(a.annotation or ast.Constant("")) for a in given)
        if len(names) > MOST_PARAMETERS and not command:
            wide.append((node.lineno, node.name, len(names)))
    return wide


def test_no_runner_function_but_a_command_takes_more_than_six_parameters() -> None:
    """The request travels as its models (EvalRequest, RunPlan, Setup), not taken apart."""
    wide = [
        f"{path.relative_to(REPO)}:{line} {name} ({count})"
        for module, path in modules().items()
        if module.startswith("runner")
        for line, name, count in wide_functions(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not wide, wide


def test_the_width_check_finds_a_wide_function() -> None:
    planted = ast.parse("def f(a, b, c, d, e, f, g):\n    pass\n")
    command = ast.parse("def c(a: A, b: BOption, c, d, e, f, g):\n    pass\n")
    assert wide_functions(planted) == [(1, "f", 7)] and wide_functions(command) == []
