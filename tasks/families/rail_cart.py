"""Поезда: a ticket (one or two passengers) on a named train, with a tariff and a seat
(lower berths in a berth car, window seats in a sitting one), into the cart (BASKET)."""

from services.core.families import Name, dotted, in_words, sample_day, ticket_open
from services.core.russian import agree
from services.rail.catalog import load_catalog

SITE = "rail"
FIRST_STATE = "bench_rail_main"
DONORS = ("rail_cart_kupe_two", "rail_cart_business", "rail_cart_econom", "rail_cart_family")
PRIMARY = "BASKET"
CLASSES = ("BASKET", "CARD", "DATE", "SELECT_AC", "SELECT_LIST", "SEAT")
PHRASINGS = (
    "Открой %HOST%, раздел «Поезда», и оформи {tickets} {origin} — {dest} на {day_words} в поезде"
    " «{train}», тариф «{tariff}», {seats}. Выбери {passengers_acc} из сохранённых и добавь"
    " в корзину.",
    "На %HOST% в «Поездах» найди поезда {origin} — {dest} на {day_dotted} для"
    " {passengers_gen}, выбери «{train}», тариф «{tariff}», {seats} и положи в корзину.",
    "На %HOST% во вкладке «Поезда» положи в корзину {tickets} на поезд «{train}» по маршруту"
    " {origin} — {dest}, {day_dotted}, тариф «{tariff}», {seats}.",
)
# A car's kind -> the seat flag the prompt asks for, its count on the line, and its words.
SEATS = {
    "berth": ("lower", "lower_berths", "нижнее место"),
    "sitting": ("window", "window_seats", "место у окна"),
}
CATALOG = load_catalog()


def sample(rng):
    train = rng.choice(CATALOG.trains)
    car = rng.choice(train.cars)
    passengers = rng.choice((1, 2))
    flag, _, _ = SEATS[car.kind]
    free = [s for s in car.seats() if not s.taken and getattr(s, flag)]
    if len(free) < passengers or sum(c.tariff == car.tariff for c in train.cars) > 1:
        return None
    twins = [
        t for t in CATALOG.trains_between(train.from_city, train.to_city) if t.name == train.name
    ]
    if len(twins) > 1:
        return None
    return {
        "train": train.name,
        "origin": train.from_city,
        "dest": train.to_city,
        "date": sample_day(rng).isoformat(),
        "tariff": car.tariff,
        "kind": car.kind,
        "passengers": passengers,
    }


def words(params):
    n = params["passengers"]
    _, _, seat = SEATS[params["kind"]]
    return {
        "tickets": agree(n, "билет", "acc"),
        "origin": params["origin"],
        "dest": params["dest"],
        "day_words": in_words(params["date"]),
        "day_dotted": dotted(params["date"]),
        "train": params["train"],
        "tariff": params["tariff"],
        "seats": agree(n, seat, "acc"),
        "passengers_acc": agree(n, "пассажир", "acc"),
        "passengers_gen": agree(n, "пассажир", "gen"),
    }


def conditions(params):
    _, field, _ = SEATS[params["kind"]]
    n = params["passengers"]
    return [
        search(params),
        {"event_name": "basket_add", "parameters": {**ticket(params), field: n}},
    ]


def search(params):
    """The search these words ask for (the payment family's too)."""
    return {
        "event_name": "submit_search",
        "parameters": {
            "city_from": params["origin"],
            "city_to": params["dest"],
            "date_departure": params["date"],
            "passengers_amount": params["passengers"],
        },
    }


def ticket(params):
    return {
        "amount": params["passengers"],
        "train_name": params["train"],
        "from_city": params["origin"],
        "to_city": params["dest"],
        "date": params["date"],
        "tarif_name": params["tariff"],
    }


def exceptions(params):
    """The line's fields the prompt leaves open: all but the seat flag it asks for."""
    _, field, _ = SEATS[params["kind"]]
    return ticket_open(field)


def names(params):
    # The train's name and the two cities find it and its train back, of the same name
    # (the route's direction in the prompt tells them apart); the route has no other.
    route = {params["origin"], params["dest"]}
    same = {
        t.id
        for t in CATALOG.trains
        if t.name == params["train"] and {t.from_city, t.to_city} == route
    }
    return [Name(f"{params['train']} {params['origin']} {params['dest']}", frozenset(same))]
