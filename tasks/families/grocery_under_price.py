"""Продукты: any product under a price (BASKET): the condition bounds the price and names
no item."""

from services.core.families import ANY_AMOUNT
from services.core.russian import agree
from services.grocery.catalog import load_catalog

SITE = "grocery"
FIRST_STATE = "bench_grocery_main"
DONORS = ("grocery_price_limit",)
PRIMARY = "BASKET"
CLASSES = ("BASKET", "CARD")
PHRASINGS = (
    "На %HOST% в «Продуктах» добавь в корзину любой товар дешевле {limit_gen}.",
    "Открой %HOST%, вкладку «Продукты», и положи в корзину что угодно по цене меньше {limit_gen}.",
    "На %HOST% во вкладке «Продукты» найди любой товар, который стоит меньше {limit_gen},"
    " и добавь его в корзину.",
)
EXCEPTIONS = (
    {
        "mutation": "free:basket_add#*.item_id=*",
        "reason": "the prompt allows any product under the price limit, which the condition bounds",
    },
    ANY_AMOUNT,
)
PRICES = sorted({p.price for p in load_catalog().all()})


def sample(rng):
    # A limit that some products are under and most are not: above one of the ten
    # cheapest prices, at a whole ruble.
    limit = int(rng.choice(PRICES[1:10])) + rng.randint(1, 9)
    return {"limit": limit}


def words(params):
    return {"limit_gen": agree(params["limit"], "рубль", "gen")}


def conditions(params):
    return [
        {
            "event_name": "basket_add",
            "parameters": {
                "price": {"value": params["limit"], "condition": "less_than"},
                "amount": {"value": 1, "condition": "greater_than_or_equal"},
            },
        }
    ]


def names(params):
    return []
