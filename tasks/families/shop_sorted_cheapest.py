"""Маркет: a category sorted by price or rating, and its first, second or third product into
the cart: the cheapest or dearest, the best rated, or the next ones (SELECT_LIST: the sort is
what the task is about; the answer must be unique, and so must every value before it)."""

from services.core.families import ANY_AMOUNT, basket
from services.market.catalog import SORTS, load_catalog

SITE = "shop"
FIRST_STATE = "bench_catalog_main"
DONORS = ("shop_price_cheapest_household",)
PRIMARY = "SELECT_LIST"
CLASSES = ("BASKET", "CARD", "SELECT_LIST", "NAV")
PHRASINGS = (
    "На %HOST% во вкладке «Маркет» в разделе «{category}» включи сортировку «{caption}» и"
    " положи в корзину {which} товар.",
    "Открой %HOST%, раздел «Маркет», категорию «{category}»: выбери порядок «{caption}» и"
    " добавь в корзину {which} товар этой категории.",
    "На %HOST% в «Маркете» зайди в раздел «{category}», выбери сортировку «{caption}» и"
    " положи в корзину {place} товар списка — {which}.",
)
EXCEPTIONS = (ANY_AMOUNT,)
CATALOG = load_catalog()
# (sort, place in the list) -> the words for that product; the place in words.
ORDERS = {
    ("price_asc", 1): "самый дешёвый",
    ("price_desc", 1): "самый дорогой",
    ("price_asc", 2): "второй по дешевизне",
    ("price_desc", 2): "второй по дороговизне",
    ("price_asc", 3): "третий по дешевизне",
    ("price_desc", 3): "третий по дороговизне",
    ("rating", 1): "лучший по рейтингу",
    ("rating", 2): "второй по рейтингу",
}
PLACES = {1: "первый", 2: "второй", 3: "третий"}
# The sort -> what it orders by, highest first where it says so.
KEYS = {
    "price_asc": (lambda p: p.price, False),
    "price_desc": (lambda p: p.price, True),
    "rating": (lambda p: p.rating, True),
}


def sample(rng):
    category = rng.choice(CATALOG.categories)
    sort, place = rng.choice(sorted(ORDERS))
    products = CATALOG.in_category(category.id)
    key, highest = KEYS[sort]
    values = sorted((key(p) for p in products), reverse=highest)
    # Its place and every one before it held by one product each: a tie, no unique answer.
    if len(values) < place or any(values.count(value) != 1 for value in values[:place]):
        return None
    (chosen,) = [p for p in products if key(p) == values[place - 1]]
    return {
        "category": category.id,
        "category_name": category.name,
        "sort": sort,
        "place": place,
        "item_id": chosen.id,
        "title": chosen.title,
    }


def words(params):
    sort, place = params["sort"], params["place"]
    return {
        "category": params["category_name"],
        "caption": SORTS[sort],
        "which": ORDERS[sort, place],
        "place": PLACES[place],
    }


def conditions(params):
    return [
        {
            "event_name": "state_changed",
            "parameters": {"new_state": "bench_catalog_category", "category": params["category"]},
        },
        {"event_name": "apply_sort", "parameters": {"sort": params["sort"]}},
        basket(params["item_id"], params["title"]),
    ]


def names(params):
    return []
