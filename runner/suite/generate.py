"""`runner tasks generate`: instances of task families (`tasks/families/`, docs/tasks.md
"Generated suites") drawn by seed, each admitted only when it validates, names nothing that
the site's search finds twice, copies no released task and no other instance, and, with a
prover (`--prove`), is solved by the oracle through the real UI with every near miss
caught by the audit.

Deterministic: a family's draws come from its own `random.Random("<family>:<seed>")`, in
order, so the same seed and code write byte-identical files, and a family's instances are
the same whether it is generated alone or with `all`.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.run.evaluate import TaskRef
from runner.suite.audit import SuiteAudit
from runner.suite.suite import CANONICAL, dump, load_map, make_variant, validate
from services.core import inject
from services.core.errors import FieldError
from services.core.families import SMALL_SPACE, Family, Name, Params, load_families
from services.core.models.task import RELEASED, Task
from services.core.sites import registry
from services.core.tasks import suite_of, task_files

ALL = "all"
# Why an instance was not admitted, in the order the checks run.
REASONS = {
    "unsampled": "the draw had no valid instance (no unique answer, no free seat, …)",
    "invalid": "`runner tasks validate` refuses it",
    "unfound": "the site's search does not find a name the prompt uses",
    "ambiguous": "the site's search finds another item for a name the prompt uses",
    "released": "a copy of a released task (the same prompt or the same conditions)",
    "seen": "its answer is a released task's (the same item by the same event): not held out",
    "canary": "its answer is an injection's canary item (services/core/inject.py)",
    "duplicate": "the same prompt or conditions as an instance admitted before",
    "oracle": "the oracle did not solve it through the UI",
    "audit": "a near miss survives the audit, or the primary class is not evidenced",
}
# Draws per instance wanted before a family gives up.
DRAWS = 40
# Rounds of proving: instances that fail are replaced by the family's next draws.
ROUNDS = 3


def _search(site: str, name: Name) -> set[str]:
    """The ids the site's search finds for every word of `name.query` (typos forgiven, as
    the sites' own search does: `services/kit/catalog.py`), through the site's descriptor
    (its `search`); `among` picks the index."""
    descriptor = registry().site(site)
    search = descriptor.hook("search") if descriptor else None
    if search is None:
        raise ValueError(f"no search for site {site!r}")
    found: set[str] = search(name.query, name.among)
    return found


def _conditions_key(task: Task) -> str:
    return json.dumps(task["test_data"]["conditions"], ensure_ascii=False, sort_keys=True)


# An answer: an event a task requires and a value it carries (`basket_add`, m-002).
Answer = tuple[str, str]
# The parameters that name a catalog item whatever the prompt says of it (a product or book
# found by its price, a file by its name).
ITEM_KEYS = ("item_id", "file_name")


def _answers(task: Task) -> set[Answer]:
    """Every (event, value) of the task's required conditions."""
    return {
        (condition["event_name"], str(value))
        for condition in task["test_data"]["conditions"]
        if not condition.get("forbidden")
        for value in (condition.get("parameters") or {}).values()
        if isinstance(value, str | int) and not isinstance(value, bool)
    }


def _items(task: Task, named: set[str]) -> set[Answer]:
    """An instance's answer: the (event, value) pairs of its required conditions that name
    what its prompt names (`Family.names`: a hotel, a city) or a catalog item."""
    items = {
        (condition["event_name"], str(parameters[key]))
        for condition in task["test_data"]["conditions"]
        if not condition.get("forbidden")
        for parameters in [condition.get("parameters") or {}]
        for key in ITEM_KEYS
        if key in parameters
    }
    return items | {(event, value) for event, value in _answers(task) if value in named}


def _canaries() -> tuple[frozenset[str], frozenset[Answer]]:
    """The injections' canary items: their ids, and the (event, value) of each goal that
    names one (an item added, a hotel opened, a file downloaded)."""
    ids = frozenset(a.item_id for a in inject.ATTACKS.values() if a.item_id)
    goals = {
        (goal["event_name"], str(value))
        for attack in inject.ATTACKS.values()
        if attack.item_id
        for name, goal in attack.goals.items()
        if name == "item"
        for value in (goal.get("parameters") or {}).values()
    }
    return ids, frozenset(goals)


CANARIES = _canaries()


@dataclass(frozen=True)
class Released:
    """What an instance must not copy: the released tasks' prompts and conditions, and
    their answers (a held-out instance asks for what no released task does)."""

    prompts: frozenset[str]
    conditions: frozenset[str]
    answers: frozenset[Answer]

    @classmethod
    def of(cls, tasks_dir: Path) -> Released:
        tasks = [
            json.loads(p.read_text(encoding="utf-8")) for p in task_files(tasks_dir / CANONICAL)
        ]
        released = [t for t in tasks if suite_of(t) == RELEASED]
        return cls(
            frozenset(t["test_data"]["task"] for t in released),
            frozenset(_conditions_key(t) for t in released),
            frozenset(answer for t in released for answer in _answers(t)),
        )


@dataclass
class Instance:
    family: Family
    params: Params
    phrasing: int
    task: Task
    name: str = ""

    @property
    def path(self) -> Path:
        return Path(self.family.site) / f"{self.name}.json"


def instance_task(family: Family, seed: int, suite: str, params: Params, phrasing: int) -> Task:
    """The task file of one draw: the family's prompt, conditions and taxonomy, its suite,
    and where it came from (`test_data.generated`)."""
    conditions = family.conditions(params)
    data: dict[str, Any] = {
        "bench_first_domain": family.site,
        "bench_first_state": family.first_state,
        "task": family.prompt(params, phrasing),
        "conditions": conditions,
        "target_events": sorted({c["event_name"] for c in conditions}),
        "ui_taxonomy": {"primary": family.primary, "classes": list(family.classes)},
        "suite": suite,
    }
    exceptions = family.exceptions(params)
    if exceptions:
        data["audit_exceptions"] = sorted(exceptions, key=lambda e: e["mutation"])
    data["generated"] = {
        "family": family.name,
        "seed": seed,
        "parameters": params,
        "phrasing": phrasing,
    }
    return {"test_data": data, "domain_configs": {}}  # type: ignore[typeddict-item]


def suite_name(family: str, seed: int) -> str:
    """`<family>-<seed>`; `all-<seed>` for every family at once."""
    return f"{family}-{seed}"


@dataclass
class Report:
    """What `generate` did: the instances written, the draws per family, and every draw not
    admitted by family and reason."""

    suite: str
    seed: int
    written: list[Path] = field(default_factory=list)
    admitted: Counter[str] = field(default_factory=Counter)
    drawn: Counter[str] = field(default_factory=Counter)
    rejected: Counter[tuple[str, str]] = field(default_factory=Counter)
    wanted: dict[str, int] = field(default_factory=dict)
    # Per family, the distinct instances (conditions) SPACE_DRAWS draws found: its space.
    space: dict[str, int] = field(default_factory=dict)
    proven: bool = False
    seconds: dict[str, float] = field(default_factory=dict)

    def rejections(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for (_, reason), n in self.rejected.items():
            out[reason] += n
        return out

    def crowded(self) -> dict[str, int]:
        """Families whose quota is more than a quarter of their space (a new seed then
        repeats answers), with their space."""
        return {
            f: self.space[f]
            for f, n in self.wanted.items()
            if f in self.space and n > self.space[f] / 4
        }

    def small(self) -> dict[str, int]:
        """Families with fewer than SMALL_SPACE distinct instances at all."""
        return {f: n for f, n in self.space.items() if n < SMALL_SPACE}

    def rate(self, family: str) -> float | None:
        """Admitted of drawn."""
        drawn = self.drawn[family]
        return self.admitted[family] / drawn if drawn else None

    def short(self) -> dict[str, int]:
        """Families that admitted fewer than wanted, and by how many."""
        return {f: n - self.admitted[f] for f, n in self.wanted.items() if self.admitted[f] < n}

    def as_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "seed": self.seed,
            "proven": self.proven,
            "written": [str(p) for p in self.written],
            "families": {
                f: {
                    "wanted": self.wanted[f],
                    "admitted": self.admitted[f],
                    "drawn": self.drawn[f],
                    "space": self.space.get(f),
                    "rejected": {r: n for (g, r), n in sorted(self.rejected.items()) if g == f},
                }
                for f in sorted(self.wanted)
            },
            "rejected": dict(sorted(self.rejections().items())),
            "seconds": self.seconds,
        }


def quotas(names: list[str], count: int) -> dict[str, int]:
    """`count` instances shared over the families in name order, the first ones taking one
    more where it does not divide."""
    share, extra = divmod(count, len(names))
    return {name: share + (i < extra) for i, name in enumerate(names)}


def chosen_families(tasks_dir: Path, family: str) -> dict[str, Family]:
    """The family `family` names, or every one for `all`; FieldError naming `--family`."""
    families = load_families(tasks_dir)
    if family == ALL:
        return families
    if family not in families:
        known = ", ".join(families) or "none"
        raise FieldError("--family", f"unknown family {family!r}; the families: {known}, or all")
    return {family: families[family]}


class Drawer:
    """One family's stream of admitted-so-far instances: draws in order from its own
    random generator, each checked, and counted in the report when refused."""

    def __init__(
        self, family: Family, seed: int, suite: str, released: Released, report: Report
    ) -> None:
        self.family = family
        self.seed = seed
        self.suite = suite
        self.released = released
        self.report = report
        self.rng = random.Random(f"{family.name}:{seed}")
        self.prompts: set[str] = set()
        self.conditions: set[str] = set()

    def refuse(self, reason: str) -> None:
        self.report.rejected[(self.family.name, reason)] += 1

    def check(self, instance: Instance) -> str | None:
        """Why the instance is not admitted, or None."""
        family, task = instance.family, instance.task
        if validate(task, f"{family.name}-{self.seed}"):
            return "invalid"
        for name in family.names(instance.params):
            found = _search(family.site, name)
            if not found & name.allowed:
                return "unfound"
            if found - name.allowed:
                return "ambiguous"
        prompt, conditions = task["test_data"]["task"], _conditions_key(task)
        if prompt in self.released.prompts or conditions in self.released.conditions:
            return "released"
        named = {i for name in family.names(instance.params) for i in name.allowed}
        answer = _items(task, named)
        if answer & self.released.answers:
            return "seen"
        canary_ids, canary_goals = CANARIES
        if (named | {item for _, item in answer}) & canary_ids or answer & canary_goals:
            return "canary"
        if prompt in self.prompts or conditions in self.conditions:
            return "duplicate"
        return None

    def next(self, limit: int) -> Iterator[Instance]:
        """Admitted instances, at most `limit` draws in all."""
        for _ in range(limit):
            self.report.drawn[self.family.name] += 1
            params = self.family.sample(self.rng)
            phrasing = self.rng.randrange(len(self.family.phrasings))
            if params is None:
                self.refuse("unsampled")
                continue
            task = instance_task(self.family, self.seed, self.suite, params, phrasing)
            instance = Instance(self.family, params, phrasing, task)
            why = self.check(instance)
            if why is not None:
                self.refuse(why)
                continue
            self.prompts.add(task["test_data"]["task"])
            self.conditions.add(_conditions_key(task))
            yield instance


# The prover: given the instances written (as task refs), each one's reason to be refused
# ("oracle" or "audit") or None. `runner tasks generate --prove` proves on the stand.
Prover = Callable[[list[TaskRef]], dict[str, str | None]]


def check_out(out: Path) -> None:
    """The output folder: a folder that can be written, holding no task file but generated
    instances (which a new generation replaces); FieldError naming `--out` otherwise."""
    if out.exists() and not out.is_dir():
        raise FieldError("--out", f"{out} is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise FieldError("--out", f"cannot write to {out} ({exc.strerror or exc})") from None
    for path in task_files(out):
        try:
            data = json.loads(path.read_text(encoding="utf-8")).get("test_data") or {}
        except (OSError, ValueError, AttributeError):
            data = {}
        if "generated" not in data:
            raise FieldError(
                "--out", f"{out} holds {path.relative_to(out)}, which is no generated instance"
            )


def generate(
    tasks_dir: Path,
    family: str,
    seed: int,
    count: int,
    out: Path,
    prover: Prover | None = None,
) -> Report:
    """Write `count` admitted instances of `family` (or of every family: `all`) by `seed`
    into `out/<site>/<family>-<seed>-<k>.json`, replacing the generated instances there;
    with a prover, only those it proves. FieldError on a bad argument, naming it."""
    if count < 1:
        raise FieldError("--count", f"expected 1 or more, got {count}")
    if seed < 0:
        raise FieldError("--seed", f"expected a whole number, 0 or more, got {seed}")
    families = chosen_families(tasks_dir, family)
    check_out(out)
    started = time.monotonic()
    suite = suite_name(family, seed)
    report = Report(
        suite,
        seed,
        wanted=quotas(list(families), count),
        space={name: f.space for name, f in families.items()},
        proven=prover is not None,
    )
    released = Released.of(tasks_dir)
    drawers = {name: Drawer(f, seed, suite, released, report) for name, f in families.items()}
    streams = {name: d.next(DRAWS * max(1, report.wanted[name])) for name, d in drawers.items()}
    kept: dict[str, list[Instance]] = {name: [] for name in families}
    pending = {name: report.wanted[name] for name in families}
    for _ in range(ROUNDS if prover else 1):
        fresh = [instance for name, n in pending.items() for instance in _take(streams[name], n)]
        for instance in fresh:
            family_kept = kept[instance.family.name]
            instance.name = f"{instance.family.name}-{seed}-{len(family_kept) + 1:03d}"
            family_kept.append(instance)
        _write(out, [i for group in kept.values() for i in group])
        if prover is None or not fresh:
            break
        started = time.monotonic()
        proofs = prover([TaskRef(i.name, out / i.path, i.task) for i in fresh])
        report.seconds["prove"] = report.seconds.get("prove", 0.0) + time.monotonic() - started
        failed = {i.name for i in fresh if proofs.get(i.name, "oracle") is not None}
        for instance in fresh:
            reason = proofs.get(instance.name, "oracle")
            if reason is not None:
                report.rejected[(instance.family.name, reason)] += 1
        for name in kept:
            survivors = [i for i in kept[name] if i.name not in failed]
            for k, instance in enumerate(survivors, 1):
                instance.name = f"{name}-{seed}-{k:03d}"
            kept[name] = survivors
        pending = {name: report.wanted[name] - len(kept[name]) for name in families}
        if not any(pending.values()):
            break
        # The proven are renamed after the failed are dropped; the next round's are new.
        _write(out, [i for group in kept.values() for i in group])
    final = [i for group in kept.values() for i in group]
    report.written = _write(out, final)
    for instance in final:
        report.admitted[instance.family.name] += 1
    report.seconds["all"] = time.monotonic() - started
    return report


def draw(tasks_dir: Path, family: str, seed: int) -> tuple[str, Task]:
    """The first admitted instance of `family` by `seed`, unproven, and its name: what
    `generate` writes first for `--count 1` (`<family>-<seed>-001`). FieldError naming the
    family or the seed where there is none."""
    if seed < 0:
        raise FieldError("seed", f"expected a whole number, 0 or more, got {seed}")
    if family == ALL:
        raise FieldError("family", "one family, not all")
    (chosen,) = chosen_families(tasks_dir, family).values()
    report = Report(suite_name(family, seed), seed)
    drawer = Drawer(chosen, seed, report.suite, Released.of(tasks_dir), report)
    instance = next(drawer.next(DRAWS), None)
    if instance is None:
        raise FieldError("seed", f"{family} admitted no instance in {DRAWS} draws by seed {seed}")
    return f"{family}-{seed}-001", instance.task


def _take(stream: Iterator[Instance], n: int) -> list[Instance]:
    """The next `n` instances of a stream (fewer where it ends)."""
    out: list[Instance] = []
    while len(out) < n:
        instance = next(stream, None)
        if instance is None:
            break
        out.append(instance)
    return out


def _write(out: Path, instances: list[Instance]) -> list[Path]:
    """Exactly these instances under `out` (the generated files not among them removed)."""
    wanted = {out / i.path: dump(i.task) for i in instances}
    for stale in set(task_files(out)) - set(wanted):
        stale.unlink()
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return sorted(wanted)


def verdicts(audit: SuiteAudit) -> dict[str, str | None]:
    """Each audited instance's reason to be refused: `oracle` where the reference log fails
    (the oracle did not solve it), `audit` where a near miss survives without a reason or
    the class check fails; None where it is proven."""
    out: dict[str, str | None] = {}
    for name, result in audit.tasks.items():
        out[name] = "oracle" if result.ems != 1 else None if result.ok else "audit"
    return out


def build_variants(tasks_dir: Path, folder: Path, write: bool = True) -> dict[Path, str]:
    """The variants of a generated folder's instances, as path -> text, beside them
    (`<stem>__<suffix>.json`): each instance takes the profiles of `tasks/variants.toml`
    that its family's donors take, but those that move their variants to another suite
    (injection, perturbations: safety and robustness are made of released donors). Written
    unless `write` is off; variants no longer wanted are removed."""
    profiles, pairs = load_map(tasks_dir)
    by_donor: dict[str, list[str]] = {}
    for donor, profile in pairs:
        if profile in profiles and profiles[profile].suite is None:
            by_donor.setdefault(donor, []).append(profile)
    families = load_families(tasks_dir)
    wanted: dict[Path, str] = {}
    present = task_files(folder)
    for path in (p for p in present if "__" not in p.stem):
        task = json.loads(path.read_text(encoding="utf-8"))
        made = task["test_data"].get("generated") or {}
        family = families.get(made.get("family", ""))
        if family is None:
            raise FieldError(str(path), f"no family {made.get('family')!r} under {tasks_dir}")
        names = sorted({p for donor in family.donors for p in by_donor.get(donor, [])})
        for name in names:
            chosen = profiles[name]
            wanted[path.with_name(f"{path.stem}__{chosen.suffix}.json")] = dump(
                make_variant(task, chosen)
            )
    if write:
        for stale in {p for p in present if "__" in p.stem} - set(wanted):
            stale.unlink()
        for path, text in wanted.items():
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    return wanted
