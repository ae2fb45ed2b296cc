"""The shape of the code (issue 22): no import circle in runner/ or services/ (every import
counts, one inside a function too), and every harness declared, none found by a side effect."""

from __future__ import annotations

import ast
from pathlib import Path

from runner.harnesses.environments import ENVIRONMENTS
from runner.harnesses.harness import available

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


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `name` imports, anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    found = set()
    for target in targets:
        while target and target not in known:  # `a.b.name` of a module `a.b`
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


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
