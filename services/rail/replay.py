"""Поезда's start state (services/kit/replay.py): tickets in the cart, a pay method chosen,
the cart paid, each reached through the routes' own writers (`routes.py`)."""

from __future__ import annotations

from functools import partial

from services.core.errors import FieldError, FormError
from services.core.models.events import Parameters
from services.kit.commerce import choose_pay_method
from services.kit.replay import Replay, Step
from services.kit.site import SiteRequest
from services.rail import service
from services.rail.catalog import Catalog, Train
from services.rail.routes import (
    DOMAIN,
    add_ticket,
    choose_tariff_of,
    choose_train,
    pay_tickets,
    toggle_passenger_of,
    toggle_seat_of,
)


def train_of(rail: Catalog, params: Parameters) -> Train:
    route = (params.get("train_name"), params.get("from_city"), params.get("to_city"))
    found = next((t for t in rail.trains if (t.name, t.from_city, t.to_city) == route), None)
    if found is None:
        raise FieldError(
            "parameters.train_name", f"no train {route[0]!r} from {route[1]!r} to {route[2]!r}"
        )
    return found


def people(rail: Catalog, params: Parameters) -> list[int]:
    """The saved passengers the ticket names, as their indexes in the catalog."""
    names = [p.name for p in rail.passengers]
    wanted = params.get("passengers")
    if not isinstance(wanted, list) or not wanted:
        raise FieldError("parameters.passengers", "a list of saved passengers ({name, kind})")
    chosen = []
    for index, person in enumerate(wanted):
        name = person.get("name") if isinstance(person, dict) else None
        if name not in names:
            raise FieldError(f"parameters.passengers[{index}].name", f"no saved passenger {name!r}")
        chosen.append(names.index(name))
    return chosen


def seat_numbers(params: Parameters) -> list[int]:
    seats = params.get("seats")
    if not isinstance(seats, list) or not all(
        isinstance(s, dict) and isinstance(s.get("number"), int) for s in seats
    ):
        raise FieldError("parameters.seats", "a list of seats ({number, near_window, lower_berth})")
    return [s["number"] for s in seats]


def check_ticket(rail: Catalog, params: Parameters) -> None:
    train = train_of(rail, params)
    car = train.car_for(str(params.get("tarif_name")))
    if car is None:
        raise FieldError(
            "parameters.tarif_name", f"the train has no tariff {params.get('tarif_name')!r}"
        )
    if not isinstance(params.get("date"), str):
        raise FieldError("parameters.date", "the day of the trip, YYYY-MM-DD")
    numbers = seat_numbers(params)
    for index, number in enumerate(numbers):
        seat = car.seat(number)
        if seat is None or seat.taken:
            raise FieldError(
                f"parameters.seats[{index}].number", f"seat {number} is not free in car {car.car}"
            )
    if len(people(rail, params)) != len(numbers):
        raise FieldError("parameters.passengers", "one passenger per seat")


async def replay_ticket(rail: Catalog, site: SiteRequest, params: Parameters) -> None:
    """The ticket booked as a person books it: the train, its tariff, the seats, the
    passengers, the cart."""
    train = train_of(rail, params)
    chosen = people(rail, params)
    kinds = [service.PASSENGER_KINDS[rail.passengers[i].kind] for i in chosen]
    query = {
        "date": params["date"],
        "adults": str(kinds.count("adult")),
        "children": str(kinds.count("child")),
    }
    try:
        trip = service.chosen_train(rail, site.trajectory.today, train, query)
    except FormError as exc:
        field, why = next(iter(exc.errors.items()))
        raise FieldError(field, why) from None
    await choose_train(site, train, trip)
    await choose_tariff_of(site, train, params["tarif_name"])
    for number in seat_numbers(params):
        await toggle_seat_of(site, train, number)
    for index in chosen:
        await toggle_passenger_of(site, rail, index)
    await add_ticket(site, rail)


def check_method(params: Parameters) -> None:
    if params.get("method") not in service.PAY_METHODS:
        methods = ", ".join(service.PAY_METHODS)
        raise FieldError("parameters.method", f"expected one of {methods}")


async def replay_method(site: SiteRequest, params: Parameters) -> None:
    await choose_pay_method(site, service.PAY_METHODS, params["method"])


async def replay_payment(site: SiteRequest, params: Parameters) -> None:
    await replay_method(site, params)
    await pay_tickets(site)


def make_replay(rail: Catalog) -> Replay:
    """The start state this site replays, and its first screens' paths."""
    return Replay(
        DOMAIN,
        {
            "basket_add": Step(partial(check_ticket, rail), partial(replay_ticket, rail)),
            "select_pay_method": Step(check_method, replay_method),
            "submit_payment": Step(check_method, replay_payment),
        },
        {
            "bench_rail_basket": "/cart",
            "bench_rail_checkout": "/checkout",
            "bench_rail_payment": "/payment",
            "bench_rail_paid": "/paid",
        },
    )
