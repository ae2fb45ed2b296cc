"""Поезда: tickets on a named train and tariff bought and paid by card or СБП (PAY)."""

from services.core.families import Name, dotted, in_words, sample_day, ticket_open
from services.core.russian import agree
from services.rail.catalog import load_catalog

SITE = "rail"
FIRST_STATE = "bench_rail_main"
DONORS = ("rail_pay_sv", "rail_pay_lux_sbp")
PRIMARY = "PAY"
CLASSES = ("BASKET", "CARD", "DATE", "PAY", "SELECT_AC", "SELECT_LIST", "RADIO", "SEAT")
PHRASINGS = (
    "На %HOST% в разделе «Поезда» купи {tickets} {origin} — {dest} на {day_dotted} в поезде"
    " «{train}», тариф «{tariff}», для {passengers_gen}. Оплати заказ {method}.",
    "Открой %HOST%, вкладка «Поезда»: оформи {tickets} по маршруту {origin} — {dest} на"
    " {day_words} в поезде «{train}», тариф «{tariff}», и оплати {method}.",
    "На %HOST% во вкладке «Поезда» положи в корзину {tickets} на поезд «{train}» ({origin} —"
    " {dest}, {day_dotted}, тариф «{tariff}») и оплати заказ {method}.",
)
# The pay method -> how the prompt names it.
METHODS = {"card": "банковской картой", "sbp": "через СБП"}
PAID_SUM = {
    "mutation": "free:submit_payment#*.amount=*",
    "reason": "the sum paid is the cart's total, fixed by the tickets the conditions bind;"
    " the prompt names no sum",
}
# Two tickets may be booked at once or one by one (G-4): the payment binds how many.
ONE_BY_ONE = (
    {
        "mutation": "free:submit_search#*.passengers_amount=*",
        "reason": "two tickets may be searched for together or one at a time; the payment"
        " binds how many are bought",
    },
    {
        "mutation": "last:basket_add#*.amount=0",
        "reason": "the tickets are bought when paid, and the payment binds them; a line"
        " taken out of the cart after it changes nothing bought",
    },
)
CATALOG = load_catalog()


def sample(rng):
    train = rng.choice(CATALOG.trains)
    car = rng.choice(train.cars)
    passengers = rng.choice((1, 2))
    free = [s for s in car.seats() if not s.taken]
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
        "passengers": passengers,
        "method": rng.choice(sorted(METHODS)),
    }


def words(params):
    n = params["passengers"]
    return {
        "tickets": agree(n, "билет", "acc"),
        "origin": params["origin"],
        "dest": params["dest"],
        "day_words": in_words(params["date"]),
        "day_dotted": dotted(params["date"]),
        "train": params["train"],
        "tariff": params["tariff"],
        "passengers_gen": agree(n, "пассажир", "gen"),
        "method": METHODS[params["method"]],
    }


def exceptions(params):
    return [*ticket_open(), PAID_SUM, *(ONE_BY_ONE if params["passengers"] > 1 else ())]


def conditions(params):
    """One ticket: its search, its line and its payment. Two: one booking for both or one
    each, paid together (the payment's tickets, a group of the two ways)."""
    ticket = {
        "train_name": params["train"],
        "from_city": params["origin"],
        "to_city": params["dest"],
        "date": params["date"],
        "tarif_name": params["tariff"],
    }
    n = params["passengers"]
    search = {
        "city_from": params["origin"],
        "city_to": params["dest"],
        "date_departure": params["date"],
    }
    paid = {"method": params["method"], "result": "success"}
    method = {"event_name": "select_pay_method", "parameters": {"method": params["method"]}}
    if n == 1:
        return [
            {"event_name": "submit_search", "parameters": {**search, "passengers_amount": 1}},
            {"event_name": "basket_add", "parameters": {"amount": 1, **ticket}},
            method,
            {
                "event_name": "submit_payment",
                "parameters": {**paid, "tickets": [{**ticket, "amount": 1}]},
            },
        ]
    ways = ([{**ticket, "amount": n}], [{**ticket, "amount": 1}] * n)
    return [
        {"event_name": "submit_search", "parameters": search},
        {"event_name": "basket_add", "parameters": ticket},
        method,
        *(
            {
                "event_name": "submit_payment",
                "parameters": {**paid, "tickets": tickets},
                "group": "tickets",
            }
            for tickets in ways
        ),
    ]


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
