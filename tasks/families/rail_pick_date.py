"""Поезда: the departure date chosen in the search form (DATE)."""

from services.core.families import dotted, in_words, sample_day

SITE = "rail"
FIRST_STATE = "bench_rail_main"
DONORS = ("rail_pick_date",)
PRIMARY = "DATE"
CLASSES = ("DATE",)
PHRASINGS = (
    "На %HOST% в «Поездах» выбери в форме поиска дату отправления {day_dotted}.",
    "Открой %HOST%, раздел «Поезда», и укажи в поле даты отправления {day_words}. Искать"
    " пока не нужно.",
    "На %HOST% во вкладке «Поезда» поставь в форме поиска дату «Туда»: {day_dotted}.",
)


def sample(rng):
    return {"date": sample_day(rng).isoformat()}


def words(params):
    return {"day_dotted": dotted(params["date"]), "day_words": in_words(params["date"])}


def conditions(params):
    return [
        {
            "event_name": "select_date",
            "parameters": {"direction": "departure", "date": params["date"]},
        }
    ]


def names(params):
    return []
