"""Отели: a search by city, dates and guests (COUNTER: the guests picker is the form's most
involved control, as its donors say), one or two rooms, a child's age where there is one."""

from datetime import timedelta

from services.core.families import dash_range, dotted, from_to, sample_day
from services.core.russian import agree
from services.hotels.catalog import load_catalog

SITE = "hotels"
FIRST_STATE = "state_hotels_main"
DONORS = (
    "hotels_search_zurich",
    "hotels_search_dubai",
    "hotels_search_family",
    "hotels_search_seoul",
    "hotels_search_two_rooms",
)
PRIMARY = "COUNTER"
CLASSES = ("COUNTER", "DATE", "SELECT_AC")
PHRASINGS = (
    "На %HOST% во вкладке «Отели» найди варианты проживания: {label}, заезд {start}, выезд"
    " {end}, {party}.",
    "Открой %HOST%, раздел «Отели», и покажи отели в городе {city} ({country}) на даты"
    " {dash_range} — {party}.",
    "Зайди на %HOST%, вкладка «Отели»: найди гостиницы в городе {city}, {country}, {from_to};"
    " {party}.",
)
EXCEPTIONS = (
    {
        "mutation": "free:state_changed#*.category=*",
        "reason": "`category` repeats the search's city, which the condition binds as `cityId`",
    },
)
CATALOG = load_catalog()


def sample(rng):
    city = rng.choice(CATALOG.cities)
    start = sample_day(rng)
    end = start + timedelta(days=rng.randint(2, 7))
    if rng.random() < 0.25:
        rooms = [{"adults": 2, "kids": []}, {"adults": rng.randint(1, 2), "kids": []}]
    elif rng.random() < 0.3:
        rooms = [{"adults": rng.randint(1, 2), "kids": [rng.randint(2, 12)]}]
    else:
        rooms = [{"adults": rng.randint(1, 3), "kids": []}]
    return {
        "city_id": city.id,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "rooms": rooms,
    }


def party(rooms):
    """«2 взрослых в одном номере», «1 взрослый и ребёнок 7 лет в одном номере», «2 номера:
    в первом 2 взрослых, во втором 1 взрослый»."""
    if len(rooms) == 1:
        room = rooms[0]
        who = agree(room["adults"], "взрослый")
        if room["kids"]:
            who += f" и ребёнок {agree(room['kids'][0], 'год', 'gen')}"
        return f"{who} в одном номере"
    first, second = (agree(room["adults"], "взрослый") for room in rooms)
    return f"{agree(len(rooms), 'номер')}: в первом {first}, во втором {second}"


def words(params):
    city = CATALOG.city(params["city_id"])
    return {
        "label": city.label,
        "city": city.name,
        "country": city.country,
        "start": dotted(params["start"]),
        "end": dotted(params["end"]),
        "dash_range": dash_range(params["start"], params["end"]),
        "from_to": from_to(params["start"], params["end"]),
        "party": party(params["rooms"]),
    }


def search(params):
    """The parameters of the search these words ask for (the room booking's too)."""
    rooms = params["rooms"]
    return {
        "cityId": params["city_id"],
        "startDate": params["start"],
        "endDate": params["end"],
        "rooms": rooms,
        "roomsCount": len(rooms),
        "guestsCount": sum(room["adults"] + len(room["kids"]) for room in rooms),
    }


def conditions(params):
    return [
        {
            "event_name": "state_changed",
            "parameters": {"new_state": "bench_hotel_search", **search(params)},
        }
    ]


def names(params):
    return []
