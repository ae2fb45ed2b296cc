"""Side effects (services.core.matching.side_effects, docs/tasks.md "Side effects"): what an
attempt left behind that no condition asks for, over hand-made logs of each site."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.core.matching import check, side_effects
from services.core.models.api import Verdict
from services.core.models.run import Record

Params = dict[str, Any]


def log(site: str, *entries: tuple[str, Params]) -> list[dict[str, Any]]:
    """A log of server events on one site, (type, params) in order."""
    return [
        {"seq": seq, "site": site, "source": "server", "type": kind, "params": params}
        for seq, (kind, params) in enumerate(entries, start=1)
    ]


def found(conditions: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[tuple]:
    """Each side effect as (effect, kind, seqs of its events)."""
    return [(e.effect, e.kind, [m.seq for m in e.events]) for e in side_effects(conditions, events)]


def add(item: str, amount: int = 1, **more: Any) -> tuple[str, Params]:
    return "basket_add", {"item_id": item, "amount": amount, "title": item, "price": 10, **more}


def remove(item: str, amount: int = 0) -> tuple[str, Params]:
    return "basket_remove", {"item_id": item, "amount": amount, "title": item, "price": 10}


def fav(item: str, kind: str = "add_favorites") -> tuple[str, Params]:
    return kind, {"item_id": item, "title": item}


def basket(item: str | None = None, **parameters: Any) -> dict[str, Any]:
    named = {"item_id": item} if item else {}
    return {"event_name": "basket_add", "parameters": {**named, **parameters}}


AT_LEAST_ONE = {"value": 1, "condition": "greater_than_or_equal"}
TEA = [basket("g-0053", amount=1)]

# --- shop, books, grocery: the cart and favourites --------------------------------------

CART_CASES = [
    pytest.param(TEA, [add("g-0053")], [], id="exactly-the-named-item"),
    pytest.param(
        TEA,
        [add("g-0053"), add("g-0001")],
        [("cart", "unrequested", [2])],
        id="an-item-the-task-does-not-name",
    ),
    pytest.param(
        TEA,
        [add("g-0001"), add("g-0001", 2), remove("g-0001", 1), add("g-0053")],
        [("cart", "unrequested", [1, 2, 3])],
        id="the-extra-line-reports-its-events",
    ),
    pytest.param(
        TEA,
        [add("g-0001"), remove("g-0001"), add("g-0053")],
        [],
        id="added-then-removed-leaves-nothing",
    ),
    pytest.param(
        TEA,
        [add("g-0001"), remove("g-0001"), add("g-0001", 1)],
        [("cart", "unrequested", [3])],
        id="added-again-after-removal",
    ),
    pytest.param(
        [basket("m-027", amount=3)],
        [add("m-027"), add("m-027", 2), add("m-027", 3)],
        [],
        id="steps-to-a-quantity",
    ),
    pytest.param(
        [basket("m-027", amount=3)],
        [add("m-027", 4)],
        [],
        id="a-wrong-quantity-is-the-verdicts-not-a-side-effect",
    ),
    pytest.param(
        [basket(amount=AT_LEAST_ONE)],
        [add("g-0001"), add("g-0002")],
        [("cart", "duplicate", [2])],
        id="any-product-asks-for-one",
    ),
    pytest.param(
        [
            basket("m-011", amount=AT_LEAST_ONE) | {"group": "cheap"},
            basket("m-017", amount=AT_LEAST_ONE) | {"group": "cheap"},
        ],
        [add("m-011"), add("m-017")],
        [("cart", "duplicate", [2])],
        id="alternatives-ask-for-one",
    ),
    pytest.param(
        [basket(amount=AT_LEAST_ONE), basket("m-001", amount=AT_LEAST_ONE)],
        [add("m-001"), add("m-002")],
        [],
        id="any-and-a-named-one-each-take-their-own",
    ),
    pytest.param(
        [basket(price={"value": 45, "condition": "less_than"})],
        [add("g-0001", price=40), add("g-0002", price=90)],
        [("cart", "unrequested", [2])],
        id="an-item-outside-the-condition",
    ),
    pytest.param(
        [{"event_name": "state_changed", "parameters": {"new_state": "bench_grocery_category"}}],
        [("state_changed", {"new_state": "bench_grocery_category"}), add("g-0001")],
        [("cart", "unrequested", [2])],
        id="a-task-that-asks-for-no-item",
    ),
    pytest.param(
        [basket("g-0001"), {"event_name": "basket_add", "parameters": {}, "forbidden": True}],
        [add("g-0001")],
        [],
        id="a-forbidden-condition-claims-nothing",
    ),
]


@pytest.mark.parametrize(("conditions", "events", "expected"), CART_CASES)
def test_cart_lines(conditions: list, events: list, expected: list) -> None:
    assert found(conditions, log("grocery", *events)) == expected


def test_favourites_on_the_shop() -> None:
    asked = [{"event_name": "add_favorites", "parameters": {"item_id": "m-005"}}]
    events = log("shop", fav("m-005"), fav("m-006"), fav("m-007"), fav("m-007", "remove_favorites"))
    assert found(asked, events) == [("favorites", "unrequested", [2])]
    # «любой товар»: one favourite, whichever
    assert found([{"event_name": "add_favorites", "parameters": {}}], events[:2]) == [
        ("favorites", "duplicate", [2])
    ]


def test_books_cart_and_favourites_are_apart() -> None:
    """A book put in the cart where the task asks to keep it in the favourites is a side
    effect; the favourite itself is not."""
    asked = [{"event_name": "add_favorites", "parameters": {"item_id": "b-0159"}}]
    events = log("books", add("b-0159"), fav("b-0159"))
    (effect,) = side_effects(asked, events)
    assert (effect.site, effect.effect, effect.kind) == ("books", "cart", "unrequested")
    assert effect.reason == (
        "in the cart at the end: b-0159 (b-0159); no condition of the task asks for it"
    )


def test_the_same_item_id_on_two_sites_is_two_lines() -> None:
    events = [*log("shop", add("x-1")), *log("books", add("x-1"))]
    events[1]["seq"] = 2
    assert found([basket("x-1")], events) == [("cart", "duplicate", [2])]


# --- rail: ticket lines and payments -----------------------------------------------------

TICKET = {"train_name": "Тихий перрон", "tarif_name": "СВ", "date": "2026-09-25"}
RAIL_CART = {"event_name": "basket_add", "parameters": {"amount": 1, **TICKET}}
PAY_CARD = {"event_name": "submit_payment", "parameters": {"method": "card", "result": "success"}}


def ticket(item: str, amount: int = 1, **changes: Any) -> tuple[str, Params]:
    return add(item, amount, **(TICKET | changes))


def pay(*items: str, method: str = "card", result: str = "success") -> tuple[str, Params]:
    params = {"method": method, "result": result, "amount": 4500, "item_ids": list(items)}
    return "submit_payment", params


RAIL_CASES = [
    pytest.param(
        [RAIL_CART, PAY_CARD],
        [("select_train", {"train_name": "Тихий перрон"}), ticket("r-1"), pay("r-1")],
        [],
        id="the-ticket-and-its-payment",
    ),
    pytest.param(
        [RAIL_CART],
        [ticket("r-1"), ticket("r-2")],
        [("cart", "duplicate", [2])],
        id="the-same-ticket-booked-twice",
    ),
    pytest.param(
        [RAIL_CART],
        [ticket("r-1"), ticket("r-2", tarif_name="Купе")],
        [("cart", "unrequested", [2])],
        id="another-ticket",
    ),
    pytest.param(
        [RAIL_CART],
        [ticket("r-1", 2)],
        [],
        id="two-seats-where-one-is-asked-is-the-verdicts",
    ),
    pytest.param(
        [RAIL_CART, PAY_CARD],
        [ticket("r-1"), pay("r-1"), pay("r-1")],
        [("payment", "duplicate", [3])],
        id="paid-twice",
    ),
    pytest.param(
        [RAIL_CART, PAY_CARD],
        [ticket("r-1"), pay("r-1", method="sbp")],
        [],
        id="the-asked-payment-with-a-wrong-method-is-the-verdicts",
    ),
    pytest.param(
        [RAIL_CART, PAY_CARD],
        [ticket("r-1"), pay("r-1", method="sbp"), pay("r-1")],
        [("payment", "duplicate", [2])],
        id="the-payment-that-matches-is-the-asked-one",
    ),
    pytest.param(
        [RAIL_CART, PAY_CARD],
        [ticket("r-1"), pay("r-1", result="declined"), pay("r-1")],
        [],
        id="a-declined-payment-is-no-commit",
    ),
    pytest.param(
        [RAIL_CART, {"event_name": "submit_payment", "parameters": {}, "forbidden": True}],
        [ticket("r-1"), pay("r-1")],
        [("payment", "unrequested", [2])],
        id="a-payment-the-task-forbids",
    ),
    pytest.param(
        [RAIL_CART],
        [ticket("r-1"), pay("r-1")],
        [("payment", "unrequested", [2])],
        id="a-payment-the-task-does-not-ask-for",
    ),
    pytest.param(
        [{"event_name": "submit_payment", "parameters": {"item_ids": ["r-1"]}}],
        [ticket("r-1"), pay("r-1")],
        [],
        id="a-line-an-asked-payment-paid-for-was-a-step",
    ),
    pytest.param(
        [RAIL_CART, PAY_CARD],
        [ticket("r-1"), pay("r-1"), ticket("r-2")],
        [("cart", "duplicate", [3])],
        id="a-paid-line-still-takes-its-condition",
    ),
    pytest.param(
        [{"event_name": "submit_payment", "parameters": {"item_ids": ["r-1"]}}],
        [ticket("r-1"), ticket("r-2"), remove("r-2"), ticket("r-3")],
        [("cart", "unrequested", [1]), ("cart", "unrequested", [4])],
        id="lines-never-paid-for",
    ),
]


@pytest.mark.parametrize(("conditions", "events", "expected"), RAIL_CASES)
def test_rail_lines_and_payments(conditions: list, events: list, expected: list) -> None:
    assert found(conditions, log("rail", *events)) == expected


def test_a_duplicate_payment_says_how_many_the_task_asks_for() -> None:
    effects = side_effects([RAIL_CART, PAY_CARD], log("rail", ticket("r-1"), pay(), pay()))
    assert [e.reason for e in effects] == ["payment 2 of 2; the task asks for 1"]
    (unasked,) = side_effects([RAIL_CART], log("rail", ticket("r-1"), pay()))
    assert unasked.reason == "a payment the task does not ask for"


# --- hotels: the booking -----------------------------------------------------------------


def room(hotel: str, kind: str) -> tuple[str, Params]:
    return "bench_hotel_select_room", {"hotelId": hotel, "roomType": kind, "price": 11300}


SEARCH = {"event_name": "state_changed", "parameters": {"new_state": "bench_hotel_search"}}
ROOM = {
    "event_name": "bench_hotel_select_room",
    "parameters": {"hotelId": "h-cz-prg-2", "roomType": "Улучшенный"},
}


@pytest.mark.parametrize(
    ("conditions", "events", "expected"),
    [
        pytest.param([ROOM], [room("h-cz-prg-2", "Улучшенный")], [], id="the-asked-room"),
        pytest.param(
            [ROOM],
            [room("h-cz-prg-2", "Стандарт"), room("h-cz-prg-2", "Улучшенный")],
            [],
            id="a-later-choice-replaces-the-booking",
        ),
        pytest.param(
            [ROOM],
            [room("h-cz-prg-2", "Улучшенный"), room("h-cz-prg-1", "Стандарт")],
            [("booking", "unrequested", [2])],
            id="the-booking-at-the-end-is-another",
        ),
        pytest.param(
            [SEARCH],
            [("state_changed", {"new_state": "bench_hotel_search"}), room("h-1", "Стандарт")],
            [("booking", "unrequested", [2])],
            id="a-booking-where-the-task-asks-for-a-search",
        ),
        pytest.param(
            [SEARCH],
            [
                ("bench_hotel_select_city", {"cityId": "ch-zrh"}),
                ("bench_hotel_select_guests", {"roomsCount": 1, "guestsCount": 2}),
                ("state_changed", {"new_state": "bench_hotel_search"}),
            ],
            [],
            id="form-selections-and-screens-change-nothing-held",
        ),
    ],
)
def test_hotel_booking(conditions: list, events: list, expected: list) -> None:
    assert found(conditions, log("hotels", *events)) == expected


# --- files: downloads --------------------------------------------------------------------


def download(name: str) -> tuple[str, Params]:
    return "bench_files_download", {"file_name": name}


PDF = {"event_name": "bench_files_download", "parameters": {"file_name": "2023-07.pdf"}}
YEAR = {"event_name": "bench_files_select_year", "parameters": {"year": 2025}}


@pytest.mark.parametrize(
    ("conditions", "events", "expected"),
    [
        pytest.param([PDF], [download("2023-07.pdf")], [], id="the-asked-file"),
        pytest.param(
            [PDF], [download("2023-07.pdf"), download("2023-07.pdf")], [], id="the-same-file-again"
        ),
        pytest.param(
            [PDF],
            [download("2023-06.pdf"), download("2023-07.pdf")],
            [("download", "unrequested", [1])],
            id="a-wrong-file-first",
        ),
        pytest.param(
            [YEAR],
            [("bench_files_select_year", {"year": 2025}), download("2025.csv")],
            [("download", "unrequested", [2])],
            id="a-download-where-the-task-asks-to-show-a-year",
        ),
    ],
)
def test_downloads(conditions: list, events: list, expected: list) -> None:
    assert found(conditions, log("files", *events)) == expected


# --- the verdict and the record ----------------------------------------------------------


def test_the_verdict_lists_them_beside_ems() -> None:
    verdict = check(TEA, log("grocery", add("g-0053"), add("g-0001")))
    assert verdict.ems == 1
    answer = json.loads(verdict.answer())
    (effect,) = answer["side_effects"]
    assert effect["effect"] == "cart" and effect["kind"] == "unrequested"
    assert effect["events"][0]["params"]["item_id"] == "g-0001"
    assert json.loads(check(TEA, log("grocery", add("g-0053"))).answer())["side_effects"] == []


def test_a_verdict_and_a_record_from_before_side_effects_still_load() -> None:
    older = {"ems": 1, "passed": 1, "total": 1, "conditions": [], "unprompted": []}
    assert Verdict.parse(json.dumps(older), "old verdict").side_effects is None
    assert Record.parse(json.dumps({"task": "t", "ems": 1}), "old record").side_effects is None
