"""Маркет: a category sorted by price, and its cheapest or dearest product into the cart
(SELECT_LIST: the sort is what the task is about; the answer must be unique)."""

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
    " положи в корзину первый товар списка — {which}.",
)
EXCEPTIONS = (ANY_AMOUNT,)
CATALOG = load_catalog()
# sort -> the words for the first product of the list
ORDERS = {"price_asc": "самый дешёвый", "price_desc": "самый дорогой"}


def sample(rng):
    category = rng.choice(CATALOG.categories)
    sort = rng.choice(sorted(ORDERS))
    products = CATALOG.in_category(category.id)
    best = (min if sort == "price_asc" else max)(p.price for p in products)
    first = [p for p in products if p.price == best]
    if len(first) != 1:
        return None
    return {
        "category": category.id,
        "category_name": category.name,
        "sort": sort,
        "item_id": first[0].id,
        "title": first[0].title,
    }


def words(params):
    sort = params["sort"]
    return {"category": params["category_name"], "caption": SORTS[sort], "which": ORDERS[sort]}


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
