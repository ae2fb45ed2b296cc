"""Поезда's rules, without HTTP: the search form, the order of results, the trip being
booked (train, tariff, seats, passengers), the ticket line it becomes, and the page events
the form's widgets may write. The routes (`routes.py`) call these and store what they return.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal, TypedDict
from urllib.parse import urlencode

from services.core.contract import Basket, TicketPassenger, TicketSeat
from services.core.errors import FieldError, FormError
from services.core.models.events import Parameters
from services.kit.cart import Line, PaidAs
from services.kit.forms import form_date, whole_number
from services.kit.site import Slot
from services.kit.trajectory import Trajectory
from services.rail.catalog import TARIFF_FACTS, Car, Catalog, Seat, Train

ADULTS, CHILDREN, MAX_PASSENGERS = (1, 4), (0, 3), 4
SORTS = {"departure": "по времени отправления", "price": "по цене", "duration": "по времени в пути"}
# The saved passengers' kinds (catalog, in Russian) as a ticket line names them.
Kind = Literal["adult", "child"]
PASSENGER_KINDS: dict[str, Kind] = {"взрослый": "adult", "детский": "child"}
PAY_METHODS = {"card": "Банковская карта", "sbp": "СБП", "wallet": "Электронный кошелёк"}
PAGE_EVENT_TYPES = frozenset({"select_city", "select_date"})
# The messages of the search form's required fields: the server answers an empty one with
# them, and the page (`data-required`, services/kit/static/required.js) shows the same.
REQUIRED = {
    "from": "Выберите станцию отправления из списка",
    "to": "Выберите станцию прибытия из списка",
    "date": "Укажите дату отправления",
}


# The search form's values as the query names them (`from` and `return` are keywords).
SearchForm = TypedDict(
    "SearchForm",
    {"from": str, "to": str, "date": str, "return": str, "adults": str, "children": str},
)


class Search(SearchForm):
    """The checked search: its form's values, the day, the passengers, the tariff filter and
    the sort, and the query strings of the results and of a trip."""

    day: date
    passengers: int
    tariff: str
    sort: str
    query: str
    trip_query: str


class Trip(TypedDict, total=False):
    """The `trip` state: the trip being booked. Its search (`date`, `adults`, `children`, as
    the query names them), the train, then the tariff, the seat numbers and the chosen saved
    passengers (their indexes in the catalog)."""

    train: str
    date: str
    adults: str
    children: str
    tariff: str
    seats: list[int]
    passengers: list[int]


TRIP: Slot[Trip] = Slot("trip")


def count_in_range(
    value: str, low: int, high: int, field: str, caption: str, errors: dict[str, str]
) -> int:
    """`value` as a number; when it is not one in low..high, the field's message goes into
    `errors` (and -1 or the number comes back, for the other checks to skip)."""
    found = whole_number(value)
    number = -1 if found is None else found
    if not low <= number <= high:
        errors[field] = f"{caption}: от {low} до {high}"
    return number


def _search_dates(query: dict[str, str], today: date, errors: dict[str, str]) -> dict[str, date]:
    dates: dict[str, date] = {}
    for field in ("date", "return"):
        day = form_date(query.get(field, ""), today, field, errors, REQUIRED.get(field))
        if day is not None:
            dates[field] = day
    if "date" in dates and "return" in dates and dates["return"] < dates["date"]:
        errors["return"] = "Дата обратно не может быть раньше даты отправления"
    return dates


def parse_search(catalog: Catalog, today: date, query: dict[str, str]) -> Search:
    """The checked search, or FormError naming each bad field in Russian."""
    errors: dict[str, str] = {}
    origin, dest = query.get("from", ""), query.get("to", "")
    for field, value in (("from", origin), ("to", dest)):
        if not value:
            errors[field] = REQUIRED[field]
        elif value not in catalog.cities:
            errors[field] = f"Такой станции нет: {value}"
    if origin and origin == dest:
        errors["to"] = "Станции отправления и прибытия совпадают"
    dates = _search_dates(query, today, errors)
    adults = count_in_range(query.get("adults", "1"), *ADULTS, "adults", "Взрослых", errors)
    children = count_in_range(query.get("children", "0"), *CHILDREN, "children", "Детей", errors)
    if "adults" not in errors and "children" not in errors and adults + children > MAX_PASSENGERS:
        errors["children"] = f"Не больше {MAX_PASSENGERS} пассажиров в заказе"
    tariff = query.get("tariff", "")
    if tariff and tariff not in catalog.tariffs():
        errors["tariff"] = f"Нет такого тарифа: {tariff}"
    sort = query.get("sort", "") or "departure"
    if sort not in SORTS:
        errors["sort"] = "Нет такой сортировки"
    if errors:
        raise FormError(errors)
    base: SearchForm = {
        "from": origin,
        "to": dest,
        "date": dates["date"].isoformat(),
        "return": dates["return"].isoformat() if "return" in dates else "",
        "adults": str(adults),
        "children": str(children),
    }
    return {
        **base,
        "day": dates["date"],
        "passengers": adults + children,
        "tariff": tariff,
        "sort": sort,
        "query": urlencode(base),
        "trip_query": urlencode(
            {"date": base["date"], "adults": base["adults"], "children": base["children"]}
        ),
    }


# -- the results' filter rail (beside the tariff select, which stays the `tariff` filter) ----

# Parts of the day a train leaves or arrives in: key -> (caption, from hour, to hour).
DAYPARTS = {
    "night": ("Ночь, 00:00–06:00", 0, 6),
    "morning": ("Утро, 06:00–12:00", 6, 12),
    "day": ("День, 12:00–18:00", 12, 18),
    "evening": ("Вечер, 18:00–24:00", 18, 24),
}
NUMBERS = {"price_min": "Цена от", "price_max": "Цена до", "duration": "В пути не больше"}


def _in_daypart(hour: int, part: str) -> bool:
    return DAYPARTS[part][1] <= hour < DAYPARTS[part][2]


@dataclass(frozen=True)
class Group:
    """A group of the filter rail's boxes: the query's name (also the `apply_filter`
    filter_type), its legend, its options (value -> caption) and whether a train has one."""

    name: str
    legend: str
    options: dict[str, str]
    has: Callable[[Train, str], bool]


def filter_groups(trains: list[Train]) -> list[Group]:
    """The boxes for the route's trains: times of day, and what the trains have."""
    parts = {k: v[0] for k, v in DAYPARTS.items()}

    def present(values: list[str]) -> dict[str, str]:
        return {v: v for v in dict.fromkeys(values)}

    classes = [t.car_class for t in TARIFF_FACTS.values()]
    return [
        Group("departure", "Время отправления", parts,
              lambda t, v: _in_daypart(t.departure_hour, v)),
        Group("arrival", "Время прибытия", parts, lambda t, v: _in_daypart(t.arrival_hour, v)),
        Group("train_type", "Тип поезда", present(sorted(t.kind for t in trains)),
              lambda t, v: t.kind == v),
        Group("train", "Поезд", present([t.name for t in trains]), lambda t, v: t.name == v),
        Group("car_class", "Тип вагона",
              present([c for c in classes if any(c in t.car_classes for t in trains)]),
              lambda t, v: v in t.car_classes),
        Group("services", "Услуги в поезде",
              present([s for t in trains for s in t.services]), lambda t, v: v in t.services),
    ]  # fmt: skip


class Filters(TypedDict):
    """The rail's chosen filters: boxes by group (none: every train), the numbers (price
    range in ₽, the longest trip in hours; None: no bound)."""

    boxes: dict[str, list[str]]
    numbers: dict[str, int | None]


def parse_filters(groups: list[Group], query: dict[str, list[str]]) -> Filters:
    """The filters the query names, or FormError for an option the route has not."""
    errors: dict[str, str] = {}
    boxes: dict[str, list[str]] = {}
    for group in groups:
        chosen = query.get(group.name, [])
        unknown = [v for v in chosen if v not in group.options]
        if unknown:
            errors[group.name] = f"{group.legend}: нет варианта «{unknown[0]}»"
        boxes[group.name] = [v for v in group.options if v in chosen]
    numbers: dict[str, int | None] = {}
    for name, caption in NUMBERS.items():
        text = (query.get(name) or [""])[-1].strip()
        number = whole_number(text) if text else None
        if text and (number is None or number < 0):
            errors[name] = f"{caption}: целое число не меньше 0"
        numbers[name] = number
    if errors:
        raise FormError(errors)
    return {"boxes": boxes, "numbers": numbers}


def passes(
    train: Train, groups: list[Group], filters: Filters, tariff: str, skip: str = ""
) -> bool:
    """Whether a train passes every filter (but the group `skip`, for its counts)."""
    numbers = filters["numbers"]
    price = train.price_for(tariff)
    low, high, hours = numbers["price_min"], numbers["price_max"], numbers["duration"]
    if (low is not None and price < low) or (high is not None and price > high):
        return False
    if hours is not None and train.duration_min > hours * 60:
        return False
    for group in groups:
        chosen = filters["boxes"][group.name]
        if group.name != skip and chosen and not any(group.has(train, v) for v in chosen):
            return False
    return True


def box_counts(
    trains: list[Train], groups: list[Group], filters: Filters, tariff: str
) -> dict[str, dict[str, int]]:
    """Each box's live count: the trains it would show with the other groups as chosen."""
    counts = {}
    for group in groups:
        others = [t for t in trains if passes(t, groups, filters, tariff, skip=group.name)]
        counts[group.name] = {v: sum(1 for t in others if group.has(t, v)) for v in group.options}
    return counts


def filter_fields(filters: Filters) -> list[tuple[str, str]]:
    """The chosen filters as query fields (the other forms and links carry them on)."""
    fields = [(name, value) for name, chosen in filters["boxes"].items() for value in chosen]
    numbers = filters["numbers"].items()
    return fields + [(name, str(number)) for name, number in numbers if number is not None]


def filter_event(filter_type: str, filters: Filters, tariff: str) -> Parameters:
    """`apply_filter` for the rail's group or number `filter_type`; the tariff select's
    own (`tariff`); or `reset`, every filter cleared."""
    if filter_type == "tariff":
        return {"filter_type": "tariff", "value": tariff or "all"}
    if filter_type in filters["numbers"]:
        number = filters["numbers"][filter_type]
        return {"filter_type": filter_type, "value": "all" if number is None else number}
    if filter_type in filters["boxes"]:
        return {
            "filter_type": filter_type,
            "value": ",".join(filters["boxes"][filter_type]) or "all",
        }
    if filter_type == "reset":
        return {"filter_type": "reset", "value": "all"}
    raise FieldError("act", f"no filter {filter_type!r}")


def date_strip(found: Search, today: date, trains: list[Train]) -> list[Parameters]:
    """The days around the search's (±3): each day's search query, its cheapest price (the
    route's trains run every day; none before today) and whether it is the one shown."""
    days: list[Parameters] = []
    cheapest = min((t.price_for(found["tariff"]) for t in trains), default=None)
    for shift in range(-3, 4):
        day = found["day"] + timedelta(days=shift)
        back = found["return"] if found["return"] >= day.isoformat() else ""
        query = {
            **{k: found[k] for k in ("from", "to", "adults", "children")},  # type: ignore[literal-required]
            "date": day.isoformat(),
            "return": back,
        }
        days.append({
            "day": day,
            "query": urlencode(query),
            "price": cheapest if day >= today else None,
            "chosen": shift == 0,
        })  # fmt: skip
    return days


def search_event(found: Search, filters: Filters, act: str) -> tuple[str, Parameters]:
    """The event a results page served for the form writes: the filter or sort the results'
    controls changed (`act`: `filter` is the tariff select's, `filter:<type>` the rail's),
    else the search itself."""
    if act == "filter" or act.startswith("filter:"):
        kind = act.partition(":")[2] or "tariff"
        return "apply_filter", filter_event(kind, filters, found["tariff"])
    if act == "sort":
        return "apply_sort", {"sort": found["sort"]}
    return "submit_search", {
        "city_from": found["from"],
        "city_to": found["to"],
        "date_departure": found["date"],
        "passengers_amount": found["passengers"],
    }


def ordered(trains: list[Train], tariff: str, sort: str) -> list[Train]:
    if tariff:
        trains = [t for t in trains if t.car_for(tariff)]

    def price(t: Train) -> int:
        car = t.car_for(tariff) if tariff else None
        return car.price if car else t.min_price

    keys = {"price": price, "duration": lambda t: t.duration_min}
    return sorted(trains, key=keys[sort]) if sort in keys else trains


def page_event_check(catalog: Catalog) -> Callable[[str, Parameters, Trajectory], None]:
    """The check of the form widgets' page events: a known station, a date not past."""

    def check(event_type: str, params: Parameters, trajectory: Trajectory) -> None:
        if event_type == "select_city" and params["name"] not in catalog.cities:
            raise FieldError("params.name", f"no station {params['name']!r}")
        if event_type == "select_date" and date.fromisoformat(params["date"]) < trajectory.today:
            raise FieldError("params.date", "a date in the past cannot be picked")

    return check


# -- the trip being booked (the state's `trip` value) ------------------------------------


def trip_search(catalog: Catalog, today: date, trip: Trip) -> Search | None:
    """The search a trip was chosen from (for the way back to the results), if still valid."""
    train = catalog.train(trip.get("train", ""))
    if train is None:
        return None
    query = {
        "from": train.from_city,
        "to": train.to_city,
        "date": trip["date"],
        "adults": trip["adults"],
        "children": trip["children"],
    }
    try:
        return parse_search(catalog, today, query)
    except FormError:
        return None


def known_train(catalog: Catalog, train_id: str) -> Train:
    train = catalog.train(train_id)
    if train is None:
        raise FieldError("train_id", f"no train {train_id!r}", 404)
    return train


def train_params(train: Train) -> dict[str, str]:
    """`select_train`'s parameters."""
    return {
        "train_name": train.name,
        "from_station": train.from_station,
        "to_station": train.to_station,
    }


def chosen_train(catalog: Catalog, today: date, train: Train, query: dict[str, str]) -> Trip:
    """The trip a train chosen from the results starts (its search is the query's, on the
    train's route): no tariff, seats or passengers yet. FormError on a bad search."""
    found = parse_search(catalog, today, {**query, "from": train.from_city, "to": train.to_city})
    return {
        "train": train.id,
        "date": found["date"],
        "adults": found["adults"],
        "children": found["children"],
        "tariff": "",
        "seats": [],
        "passengers": [],
    }


def is_same_trip(trip: Trip, other: Trip) -> bool:
    return all(trip.get(k) == other[k] for k in ("train", "date", "adults", "children"))


def own_trip(trip: Trip, train: Train) -> Trip:
    """The trip, when it is on this train (409 otherwise)."""
    if trip.get("train") != train.id:
        raise FieldError("train", "choose the train from the search results first", 409)
    return trip


def free_seat(train: Train, trip: Trip, seat: int) -> Seat:
    """A seat of the trip's car that is not taken (404/409 naming what is wrong)."""
    car = train.car_for(trip.get("tariff", ""))
    if car is None:
        raise FieldError("tariff", "choose a tariff first", 409)
    chosen = car.seat(seat)
    if chosen is None:
        raise FieldError("seat", f"no seat {seat} in car {car.car}", 404)
    if chosen.taken:
        raise FieldError("seat", f"seat {seat} is taken", 409)
    return chosen


def toggle_seat(trip: Trip, seat: int) -> int:
    """Take or give back a seat, one per passenger; the passengers are chosen afresh.
    Returns how many seats are chosen."""
    limit = int(trip["adults"]) + int(trip["children"])
    seats = trip.setdefault("seats", [])
    if seat in seats:
        seats.remove(seat)
    elif len(seats) >= limit:
        raise FieldError("seat", f"{limit} seats already chosen, one per passenger", 409)
    else:
        seats.append(seat)
    trip["passengers"] = []
    return len(seats)


def toggle_passenger(trip: Trip, index: int, kinds: list[Kind]) -> bool:
    """Choose a saved passenger for a seat, or unchoose them; True when now chosen. `kinds`
    are the saved passengers' ticket kinds (`adult`, `child`): no more of a kind than the
    search asked for."""
    chosen = trip.setdefault("passengers", [])
    if index in chosen:
        chosen.remove(index)
        return False
    if len(chosen) >= len(trip.get("seats", [])):
        raise FieldError("passenger_index", "one passenger per chosen seat", 409)
    searched = {"adult": int(trip["adults"]), "child": int(trip["children"])}
    kind = kinds[index]
    if sum(1 for i in chosen if kinds[i] == kind) >= searched[kind]:
        raise FieldError(
            "passenger_index",
            f"the search was for {searched['adult']} adults and {searched['child']} children",
            409,
        )
    chosen.append(index)
    return True


def booked_car(catalog: Catalog, trip: Trip) -> tuple[Train, Car]:
    """The train and car of a trip ready for the cart (409 naming what is missing)."""
    train = catalog.train(trip.get("train", ""))
    car = train.car_for(trip.get("tariff", "")) if train else None
    seats = trip.get("seats", [])
    if train is None or car is None or not seats:
        raise FieldError("trip", "choose a train, a tariff and seats first", 409)
    if len(trip.get("passengers", [])) != len(seats):
        raise FieldError("passengers", "choose a passenger for every seat", 409)
    return train, car


def ticket_line(catalog: Catalog, trip: Trip) -> tuple[Line, Basket]:
    """The cart line a booked trip becomes, and its `basket_add` parameters: the line as the
    cart shows it and what its tickets book (conditions bind to train, route, day, tariff,
    seats, passengers)."""
    train, car = booked_car(catalog, trip)
    seats = sorted(trip["seats"])
    # One line per booking: the same car booked again is another line, never a lost one.
    item_id = f"{train.id}:{trip['date']}:{car.car}:{'-'.join(map(str, seats))}"
    day = date.fromisoformat(trip["date"]).strftime("%d.%m.%Y")
    title = f"«{train.name}» {train.number}, {train.from_city} — {train.to_city}, {day}"
    booked = [seat for n in seats if (seat := car.seat(n))]
    people = [catalog.passengers[i] for i in trip["passengers"]]
    paid_as: PaidAs = {
        "train_name": train.name,
        "from_city": train.from_city,
        "to_city": train.to_city,
        "date": trip["date"],
        "tarif_name": car.tariff,
        "amount": len(seats),
    }
    line: Line = {
        "item_id": item_id,
        "title": f"{title}, {car.tariff}",
        "amount": len(seats),
        "price": car.price * len(seats),
        "seats": seats,
        "passengers": [p.name for p in people],
        # What a payment names of the line (`submit_payment`'s `tickets`).
        "paid_as": paid_as,
    }
    kinds = [PASSENGER_KINDS[p.kind] for p in people]
    added = Basket(
        item_id=item_id,
        amount=len(seats),
        title=line["title"],
        price=line["price"],
        train_name=train.name,
        from_city=train.from_city,
        to_city=train.to_city,
        from_station=train.from_station,
        to_station=train.to_station,
        date=trip["date"],
        tarif_name=car.tariff,
        seats=[TicketSeat(number=s.n, near_window=s.window, lower_berth=s.lower) for s in booked],
        lower_berths=sum(1 for s in booked if s.lower),
        window_seats=sum(1 for s in booked if s.window),
        passengers=[
            TicketPassenger(name=p.name, kind=kind) for p, kind in zip(people, kinds, strict=True)
        ],
        adults=kinds.count("adult"),
        children=kinds.count("child"),
    )
    return line, added


def payment_params(method: str, tickets: list[Line], result: str = "success") -> Parameters:
    """`submit_payment`'s parameters for the settled cart lines (or for the lines a declined
    card left in the cart)."""
    return {
        "method": method,
        "result": result,
        "amount": sum(line["price"] for line in tickets),
        "item_ids": [line["item_id"] for line in tickets],
        "tickets": [line["paid_as"] for line in tickets],
    }
