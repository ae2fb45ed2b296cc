"""Отели: a city chosen in the search form's field with suggestions (SELECT_AC)."""

from services.core.families import Name
from services.hotels.catalog import load_catalog

SITE = "hotels"
FIRST_STATE = "state_hotels_main"
DONORS = ("hotels_pick_city",)
PRIMARY = "SELECT_AC"
CLASSES = ("SELECT_AC",)
PHRASINGS = (
    "На %HOST% во вкладке «Отели» выбери в поле «Город» вариант «{label}». Поиск пока не запускай.",
    "Открой %HOST%, раздел «Отели», и укажи в форме поиска город: {label}. Поиск не запускай.",
    "На %HOST% в «Отелях» введи в поле «Город» название {city} и выбери из подсказок"
    " «{label}»; больше ничего не делай.",
)
CATALOG = load_catalog()


def sample(rng):
    city = rng.choice(CATALOG.cities)
    return {"city_id": city.id, "label": city.label}


def words(params):
    return {"label": params["label"], "city": CATALOG.city(params["city_id"]).name}


def conditions(params):
    # Every phrasing says not to search: the results screen is the step beyond.
    return [
        {
            "event_name": "bench_hotel_select_city",
            "parameters": {"cityId": params["city_id"], "label": params["label"]},
        },
        {
            "event_name": "state_changed",
            "parameters": {"new_state": "bench_hotel_search"},
            "forbidden": True,
        },
    ]


def names(params):
    return [Name(params["label"], frozenset({params["city_id"]}), among="cities")]
