"""Generated suites (docs/tasks.md, "Generated suites"): the families cover every site and
every primary UI class; every phrasing of every family agrees in case and number (a table
of expected prompts, and one of numeral and noun forms); `runner tasks generate` writes the
same files for the same seed, another set for another seed, refuses bad input naming the
option, counts refused draws by reason (each reason constructed), and builds its instances'
variants; and a suite over every family is proven end to end: the oracle solves every
instance through the real UI and the audit catches every near miss."""

from __future__ import annotations

import json
import re
import shutil
from fnmatch import fnmatch
from pathlib import Path

import pytest
from support.http import run_async
from support.runs import run_eval, runner

from runner.run.evaluate import TaskRef
from runner.settings import TASKS_DIR
from runner.suite.audit import AuditItem, audit_suite, collect
from runner.suite.generate import build_variants, generate, verdicts
from runner.suite.suite import validate_paths
from services.core.families import instance_family, load_families
from services.core.inject import ATTACKS
from services.core.matching import check
from services.core.russian import agree
from services.core.tasks import PRIMARY_CLASSES, task_files

FAMILIES = load_families(TASKS_DIR)

# n, noun, case -> the words a prompt says.
AGREEMENT = [
    (1, "гость", "nom", "1 гость"),
    (2, "гость", "nom", "2 гостя"),
    (5, "гость", "nom", "5 гостей"),
    (11, "гость", "nom", "11 гостей"),
    (21, "гость", "nom", "21 гость"),
    (2, "гость", "gen", "2 гостей"),
    (1, "пассажир", "nom", "1 пассажир"),
    (3, "пассажир", "gen", "3 пассажиров"),
    (1, "пассажир", "acc", "1 пассажира"),
    (1, "бутылка", "acc", "1 бутылку"),
    (2, "бутылка", "acc", "2 бутылки"),
    (5, "бутылка", "acc", "5 бутылок"),
    (1, "взрослый", "nom", "1 взрослый"),
    (3, "взрослый", "nom", "3 взрослых"),
    (1, "взрослый", "gen", "1 взрослого"),
    (1, "год", "gen", "1 года"),
    (4, "год", "gen", "4 лет"),
    (7, "год", "gen", "7 лет"),
    (41, "рубль", "gen", "41 рубля"),
    (42, "рубль", "gen", "42 рублей"),
    (111, "рубль", "gen", "111 рублей"),
    (3, "штука", "acc", "3 штуки"),
    (14, "штука", "acc", "14 штук"),
    (22, "упаковка", "nom", "22 упаковки"),
    (2, "номер", "nom", "2 номера"),
    (1, "билет", "acc", "1 билет"),
    (2, "билет", "acc", "2 билета"),
    (2, "нижнее место", "acc", "2 нижних места"),
    (1, "место у окна", "acc", "1 место у окна"),
    (3, "товар", "gen", "3 товаров"),
]


@pytest.mark.parametrize(("n", "noun", "case", "expected"), AGREEMENT)
def test_numerals_agree_with_nouns(n: int, noun: str, case: str, expected: str) -> None:
    assert agree(n, noun, case) == expected


# Each family: parameters (chosen for their numbers, cases and formats), and the prompt of
# each of its phrasings, in order (generated_phrasings.json, read and checked by hand).
TABLE = {
    name: [(row["parameters"], row["prompts"]) for row in rows]
    for name, rows in json.loads(
        (Path(__file__).parent / "generated_phrasings.json").read_text(encoding="utf-8")
    ).items()
}


def test_the_table_holds_every_phrasing_of_every_family() -> None:
    assert set(TABLE) == set(FAMILIES)
    for name, rows in TABLE.items():
        for _, prompts in rows:
            assert len(prompts) == len(FAMILIES[name].phrasings), name


@pytest.mark.parametrize(
    ("family", "params", "phrasing", "expected"),
    [
        (name, params, index, prompt)
        for name, rows in TABLE.items()
        for params, prompts in rows
        for index, prompt in enumerate(prompts)
    ],
)
def test_every_phrasing_says_its_parameters_in_case_and_number(
    family: str, params: dict, phrasing: int, expected: str
) -> None:
    assert FAMILIES[family].prompt(params, phrasing) == expected


def test_the_families_cover_every_site_and_every_primary_class() -> None:
    assert len(FAMILIES) >= 12
    assert {f.site for f in FAMILIES.values()} == {
        "shop",
        "books",
        "grocery",
        "hotels",
        "rail",
        "files",
    }
    assert {f.primary for f in FAMILIES.values()} == set(PRIMARY_CLASSES)
    released = {p.stem for p in task_files(TASKS_DIR / "canonical")}
    for family in FAMILIES.values():
        assert family.donors and set(family.donors) <= released, family.name


def texts(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in task_files(folder)}


def prompts(folder: Path) -> set[str]:
    return {json.loads(b)["test_data"]["task"] for b in texts(folder).values()}


def test_the_same_seed_writes_the_same_files_and_another_seed_others(tmp_path: Path) -> None:
    first = generate(TASKS_DIR, "all", 7, 60, tmp_path / "a")
    generate(TASKS_DIR, "all", 7, 60, tmp_path / "b")
    generate(TASKS_DIR, "all", 8, 60, tmp_path / "c")
    assert len(first.written) == 60
    assert first.short() == {}
    assert {f for f, n in first.admitted.items() if n} == set(FAMILIES)
    assert texts(tmp_path / "a") == texts(tmp_path / "b")
    shared = prompts(tmp_path / "a") & prompts(tmp_path / "c")
    assert len(shared) < 6, shared
    # Every instance is a normal task file of the suite, with where it came from.
    report = validate_paths([tmp_path / "a"])
    assert {p: problems for p, problems in report.items() if problems} == {}
    for path in task_files(tmp_path / "a"):
        data = json.loads(path.read_text(encoding="utf-8"))["test_data"]
        assert data["suite"] == "all-7"
        assert data["generated"]["seed"] == 7
        assert instance_family(path.stem) == data["generated"]["family"]
        assert data["bench_first_domain"] == path.parent.name
    # A family alone draws what it draws within all.
    generate(TASKS_DIR, "rail_pay", 7, 3, tmp_path / "d")
    alone = {p.name: p.read_text() for p in task_files(tmp_path / "d")}
    within = {p.name: p.read_text() for p in task_files(tmp_path / "a") if "rail_pay" in p.name}
    assert {n: t.replace('"rail_pay-7"', '"all-7"') for n, t in alone.items()} == within


def test_bad_input_is_refused_naming_the_option(processes, tmp_path: Path) -> None:
    base = ("tasks", "generate", "--seed", "7", "--count", "3")
    unknown = runner(tmp_path, *base, "--family", "nosuch", "--out", str(tmp_path / "o"))
    assert unknown.returncode == 2
    assert "--family: unknown family 'nosuch'" in " ".join(unknown.stdout.split())
    assert "shop_units" in unknown.stdout
    zero = runner(
        tmp_path,
        *("tasks", "generate", "--family", "all", "--seed", "7", "--count", "0"),
        *("--out", str(tmp_path / "o")),
    )
    assert zero.returncode == 2
    assert "--count: expected 1 or more, got 0" in zero.stdout
    afile = tmp_path / "file"
    afile.write_text("x")
    for out in (afile, afile / "under"):
        refused = runner(tmp_path, *base, "--family", "all", "--out", str(out))
        assert refused.returncode == 2
        assert "--out:" in refused.stdout
    mine = tmp_path / "mine"
    shutil.copytree(TASKS_DIR / "canonical" / "shop", mine / "shop")
    kept = runner(tmp_path, *base, "--family", "all", "--out", str(mine))
    assert kept.returncode == 2
    assert "which is no generated instance" in " ".join(kept.stdout.split())
    assert len(task_files(mine)) == len(task_files(TASKS_DIR / "canonical" / "shop"))


FAMILY = """
from services.core.families import Name, basket

SITE = "shop"
FIRST_STATE = "bench_catalog_main"
DONORS = ("shop_fav_smart_watch",)
PRIMARY = "{primary}"
CLASSES = ("{primary}", "CARD")
PHRASINGS = ({phrasing!r},)


def sample(rng):
    n = rng.randrange(40)
    return None if {unsampled} and n % 2 else {{"item_id": {item!r}, "n": n if {varied} else 0}}


def words(params):
    return {{"n": params["n"]}}


def conditions(params):
    return {conditions}


def names(params):
    return [Name({query!r}, frozenset({{{item!r}}}))]
"""
WATCH = "Умные часы «Лунный сверчок» Пульс 2"
BALL = "Мяч футбольный «Ветроход» размер 5"  # no released task asks for it
FAV = '[{"event_name": "add_favorites", "parameters": {"item_id": params["item_id"]}}]'
CASES = {
    # a condition naming an item the catalog lacks
    "invalid": dict(item="m-999", query=WATCH, conditions=FAV, phrasing="Возьми {n}."),
    # «Наушники беспроводные «Тиховей» TW-20» also finds TW-20 Pro
    "ambiguous": dict(
        item="m-001",
        query="Наушники беспроводные «Тиховей» TW-20",
        conditions="[basket(params['item_id'])]",
        phrasing="Положи в корзину {n}.",
        primary="BASKET",
    ),
    "unfound": dict(item="m-005", query="Пылесос «Ураган»", conditions=FAV, phrasing="{n}"),
    # the released shop_fav_smart_watch, word for word
    "released": dict(
        item="m-005",
        query=WATCH,
        conditions='[{"event_name": "add_favorites", "parameters": {"item_id": "m-005",'
        ' "title": "' + WATCH + '"}}]',
        phrasing="На %HOST% во вкладке «Маркет» отложи в избранное умные часы «Лунный сверчок»"
        " Пульс 2.",
    ),
    # the released shop_fav_smart_watch's answer, asked otherwise
    "seen": dict(item="m-005", query=WATCH, conditions=FAV, phrasing="Отложи часы, {n}."),
    # the shop's injection canary (services/core/inject.py)
    "canary": dict(
        item="m-025", query="Шлем велосипедный «Ветроход» СК-1", conditions=FAV, phrasing="{n}"
    ),
    # one draw in two has no instance (and the others are different)
    "unsampled": dict(
        item="m-022",
        query=BALL,
        conditions="[basket(params['item_id'], amount=params['n'])]",
        phrasing="Положи в корзину {n}.",
        primary="BASKET",
        unsampled=True,
        varied=True,
    ),
    # every draw is the same
    "duplicate": dict(item="m-022", query=BALL, conditions=FAV, phrasing="Отложи мяч."),
}


@pytest.mark.parametrize("reason", sorted(CASES))
def test_each_refusal_is_counted_by_its_reason(reason: str, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR / "canonical", tasks / "canonical")
    (tasks / "families").mkdir()
    case = {"primary": "FAV", "unsampled": False, "varied": False, **CASES[reason]}
    (tasks / "families" / f"case_{reason}.py").write_text(FAMILY.format(**case))
    report = generate(tasks, "all", 3, 2, tmp_path / "out")
    refused = report.rejections()
    assert refused[reason] > 0, refused
    assert set(refused) == {reason}
    if reason in ("unsampled", "duplicate"):
        assert report.admitted[f"case_{reason}"] >= 1
    else:
        assert report.written == []
        assert report.short() == {f"case_{reason}": 2}


def test_instances_the_prover_refuses_are_replaced_by_later_draws(tmp_path: Path) -> None:
    refused: list[str] = []
    rounds: list[int] = []

    def prover(refs: list[TaskRef]) -> dict[str, str | None]:
        # the first round's first instance fails the oracle, its second the audit
        rounds.append(len(refs))
        out: dict[str, str | None] = {ref.name: None for ref in refs}
        for ref, why in zip(refs, ("oracle", "audit") if len(rounds) == 1 else (), strict=False):
            out[ref.name] = why
            refused.append(ref.task["test_data"]["task"])
        return out

    report = generate(TASKS_DIR, "shop_named_cart", 5, 4, tmp_path / "out", prover)
    assert rounds == [4, 2]  # only the refused are drawn again, and proven in turn
    assert report.admitted["shop_named_cart"] == 4
    assert report.rejections()["oracle"] == 1
    assert report.rejections()["audit"] == 1
    written = task_files(tmp_path / "out")
    assert [p.stem for p in written] == [f"shop_named_cart-5-{k:03d}" for k in range(1, 5)]
    assert not {json.loads(p.read_text())["test_data"]["task"] for p in written} & set(refused)


def test_instances_take_their_family_donors_variant_profiles(tmp_path: Path) -> None:
    out = tmp_path / "out"
    generate(TASKS_DIR, "hotels_search", 7, 2, out)
    wanted = build_variants(TASKS_DIR, out)
    suffixes = {p.stem.split("__")[1] for p in wanted}
    # the hotels search donors' widget profiles (their injection ones go to the safety suite)
    assert {"date_inline_calendar", "counter_guests_pill_buttons"} <= suffixes
    assert not any("inject" in s for s in suffixes)
    assert len(task_files(out)) == 2 + len(wanted)
    for path in wanted:
        variant = json.loads(path.read_text())["test_data"]
        donor = json.loads(path.with_name(path.stem.split("__")[0] + ".json").read_text())
        assert variant["task"] == donor["test_data"]["task"]
        assert variant["conditions"] == donor["test_data"]["conditions"]
        assert variant["suite"] == "hotels_search-7"
    report = validate_paths([out])
    assert {p: problems for p, problems in report.items() if problems} == {}


@pytest.mark.timeout(900)
def test_a_suite_of_every_family_is_proven_through_the_real_ui(stack, tmp_path: Path) -> None:
    """About 24 instances, every family: each solved by the oracle on the real stack and
    audited (every near miss caught, the primary class evidenced). Then the families' old
    conditions (G-1: a pick of a city with no forbidden search; G-5: a room judged by any
    event) on the same logs: the audit's step beyond and its replaced room survive there."""
    proven: list[AuditItem] = []

    def prover(refs: list[TaskRef]) -> dict[str, str | None]:
        run = run_eval(stack, tmp_path / "oracle", "oracle", refs, 2, 120)
        items = run_async(collect(stack.hub_url, stack.token, refs, run.records))
        proven.extend(items)
        return verdicts(audit_suite(items))

    report = generate(TASKS_DIR, "all", 11, 24, tmp_path / "suite", prover)
    assert report.short() == {}
    assert {f for f, n in report.admitted.items() if n} == set(FAMILIES)
    assert len(report.written) == 24
    refused = report.rejections()
    assert refused["oracle"] == 0 and refused["audit"] == 0, report.as_json()
    old = {"hotels_pick_city": "beyond:state_changed", "hotels_room": "replaced:*"}
    for family, survivor in old.items():
        item = next(i for i in proven if instance_family(i.name) == family)
        item.conditions = [
            {**c, "match": "any"} if c["event_name"] == "bench_hotel_select_room" else c
            for c in item.conditions
            if not c.get("forbidden") or c["event_name"] != "state_changed"
        ]
        (audit,) = audit_suite([item]).tasks.values()
        assert any(fnmatch(s, survivor) for s in audit.survivors), (family, audit.survivors)


# An item of a catalog by its id (m-002, b-0190, g-0142, h-ch-zrh-2).
ITEM_ID = r"[mbg]-\d{3,4}|h-[a-z]{2}-[a-z]{3}-\d+"


def required_values(task: dict) -> set[tuple[str, str]]:
    return {
        (c["event_name"], str(v))
        for c in task["test_data"]["conditions"]
        if not c.get("forbidden") and c["event_name"] != "state_changed"
        for v in (c.get("parameters") or {}).values()
        if isinstance(v, str) and v
    }


@pytest.mark.parametrize("seed", [4111, 9137])
def test_sixty_instances_hold_out_every_released_answer_and_every_canary(
    seed: int, tmp_path: Path
) -> None:
    """No instance asks for an item by the event a released task asks for it (the board's
    held-out gap would be diluted), and none asks for an injection's canary item: the
    audit's H-1 and H-3, at both of its seeds."""
    report = generate(TASKS_DIR, "all", seed, 60, tmp_path)
    assert sum(report.admitted.values()) == 60
    released = [
        json.loads(p.read_text(encoding="utf-8"))
        for p in task_files(TASKS_DIR / "canonical")
        if "suite" not in json.loads(p.read_text(encoding="utf-8"))["test_data"]
    ]
    items = {(e, v) for t in released for e, v in required_values(t) if re.fullmatch(ITEM_ID, v)}
    canaries = {attack.item_id for attack in ATTACKS.values() if attack.item_id}
    for path in task_files(tmp_path):
        task = json.loads(path.read_text(encoding="utf-8"))
        asked = required_values(task)
        assert not {(e, v) for e, v in asked if re.fullmatch(ITEM_ID, v)} & items, path.name
        assert not {v for _, v in asked} & canaries, path.name
        files = {v for e, v in asked if e == "bench_files_download"}
        assert "Пассажиропоток_станций_2024.csv" not in files, path.name


def test_each_familys_space_is_measured_and_a_crowded_quota_is_named(
    processes: None, tmp_path: Path
) -> None:
    """`runner tasks generate` prints each family's space (its distinct instances) and warns
    where the count asks more than a quarter of it (the audit's H-2): files_year has 13."""
    report = generate(TASKS_DIR, "files_year", 4111, 5, tmp_path / "out")
    assert report.space == {"files_year": 13}
    assert report.crowded() == {"files_year": 13} and report.small() == {"files_year": 13}
    assert generate(TASKS_DIR, "hotels_room", 4111, 5, tmp_path / "rooms").crowded() == {}
    shown = runner(tmp_path, "tasks", "generate", "--family", "files_year", "--seed", "1",
                   "--count", "5", "--out", str(tmp_path / "cli"))  # fmt: skip
    assert shown.returncode == 0, shown.stdout + shown.stderr
    said = " ".join(shown.stdout.split())
    assert "files_year asks 5 of 13 distinct instances (more than a quarter)" in said


def test_two_rail_tickets_pass_booked_together_or_one_by_one_and_paid_together() -> None:
    """G-4: «купи 2 билета …» is done by one booking for two passengers or by two bookings
    of one, paid in one payment; one ticket, or a second on another tariff, is not."""
    family = FAMILIES["rail_pay"]
    params = {
        "train": "Ладога",
        "origin": "Москва",
        "dest": "Тверь",
        "date": "2026-12-20",
        "tariff": "Купе",
        "passengers": 2,
        "method": "card",
    }
    ticket = {
        "train_name": "Ладога",
        "from_city": "Москва",
        "to_city": "Тверь",
        "date": "2026-12-20",
        "tarif_name": "Купе",
    }
    search = {"city_from": "Москва", "city_to": "Тверь", "date_departure": "2026-12-20"}

    def bought(*lines: tuple[int, str]) -> list[dict]:
        """Each (passengers, tariff) booked as a cart line, then the cart paid by card."""
        events = []
        for index, (n, tariff) in enumerate(lines):
            line = {**ticket, "tarif_name": tariff, "amount": n}
            events.append(("submit_search", {**search, "passengers_amount": n}))
            events.append(("basket_add", {**line, "item_id": f"line-{index}"}))
        paid = {
            "method": "card",
            "result": "success",
            "item_ids": [f"line-{index}" for index in range(len(lines))],
            "tickets": [{**ticket, "tarif_name": t, "amount": n} for n, t in lines],
        }
        events += [("select_pay_method", {"method": "card"}), ("submit_payment", paid)]
        return [
            {"seq": seq, "site": "rail", "source": "page", "type": kind, "params": params}
            for seq, (kind, params) in enumerate(events, start=1)
        ]

    conditions = family.conditions(params)
    for way in (bought((2, "Купе")), bought((1, "Купе"), (1, "Купе"))):
        verdict = check(conditions, way)
        assert (verdict.ems, verdict.side_effects) == (1, []), verdict.side_effects
    for near_miss in (
        bought((1, "Купе")),
        bought((1, "Купе"), (1, "Плацкарт")),
        bought((2, "Купе"), (1, "Купе")),
    ):
        assert check(conditions, near_miss).ems == 0
