"""Отели: a search, a named hotel of the city, and a room type of it booked (CARD): the
room fits the guests, and the hotel's name is the city's only one that fits."""

from datetime import timedelta

from services.core.families import Name, dotted, sample_day
from services.core.russian import agree
from services.hotels.catalog import load_catalog

SITE = "hotels"
FIRST_STATE = "state_hotels_main"
DONORS = ("hotels_book_room_typos",)
PRIMARY = "CARD"
CLASSES = ("COUNTER", "CARD", "DATE", "SELECT_AC")
# A hotel's name is quoted after a generic noun («в отеле «Отель «Медный пассаж»»»): the
# name itself («Отель …», «Резиденция …») stays in the nominative after a preposition.
PHRASINGS = (
    "Зайди на %HOST%, во вкладке «Отели» найди отель в городе {city} ({country}) с {start} по"
    " {end} на {adults_acc} в одном номере, открой страницу отеля «{hotel}» и выбери номер"
    " «{room}».",
    "Открой %HOST%, раздел «Отели»: {label}, заезд {start}, выезд {end}, {adults_nom} в одном"
    " номере. В отеле «{hotel}» забронируй номер «{room}».",
    "На %HOST% во вкладке «Отели» забронируй в отеле «{hotel}» ({city}, {country}) номер"
    " «{room}» на {adults_acc}: заезд {start}, выезд {end}, один номер.",
)
CATALOG = load_catalog()


def sample(rng):
    city = rng.choice(CATALOG.cities)
    hotel = rng.choice(CATALOG.hotels_in(city.id))
    adults = rng.randint(1, 3)
    rooms = [room for room in hotel.rooms if room.fits(adults, 0)]
    if not rooms:
        return None
    room = rng.choice(rooms)
    start = sample_day(rng)
    end = start + timedelta(days=rng.randint(2, 7))
    return {
        "city_id": city.id,
        "hotel_id": hotel.id,
        "hotel": hotel.name,
        "room": room.type,
        "price": room.price,
        "adults": adults,
        "start": start.isoformat(),
        "end": end.isoformat(),
    }


def words(params):
    city = CATALOG.city(params["city_id"])
    return {
        "city": city.name,
        "country": city.country,
        "label": city.label,
        "hotel": params["hotel"],
        "room": params["room"],
        "start": dotted(params["start"]),
        "end": dotted(params["end"]),
        "adults_acc": agree(params["adults"], "взрослый", "acc"),
        "adults_nom": agree(params["adults"], "взрослый"),
    }


def conditions(params):
    # The booking that stands is judged: a later room chosen replaces this one (match: last).
    return [
        {
            "event_name": "bench_hotel_select_room",
            "match": "last",
            "parameters": {
                "hotelId": params["hotel_id"],
                "roomType": params["room"],
                "price": params["price"],
                "cityId": params["city_id"],
                "startDate": params["start"],
                "endDate": params["end"],
                "rooms": [{"adults": params["adults"], "kids": []}],
                "roomsCount": 1,
                "guestsCount": params["adults"],
            },
        }
    ]


def names(params):
    city = CATALOG.city(params["city_id"])
    return [Name(f"{params['hotel']} {city.name}", frozenset({params["hotel_id"]}))]
