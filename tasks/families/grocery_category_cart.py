"""Продукты: a category opened from the menu and a named product of it into the cart
(BASKET)."""

from services.core.families import ANY_AMOUNT, Name, basket
from services.grocery.catalog import load_catalog

SITE = "grocery"
FIRST_STATE = "bench_grocery_main"
DONORS = ("grocery_category_kefir", "grocery_category_buckwheat")
PRIMARY = "BASKET"
CLASSES = ("BASKET", "CARD", "NAV")
# A title is quoted after a generic noun («найди товар «Сёмга …»»), never declined; its
# weight follows it only where the title does not hold it already (`weighed`).
PHRASINGS = (
    "На %HOST% в «Продуктах» зайди в раздел «{category}» и добавь в корзину товар «{title}».",
    "Открой %HOST%, вкладку «Продукты»: в разделе «{category}» найди товар «{title}» и положи"
    " его в корзину.",
    "На %HOST% во вкладке «Продукты» перейди в раздел «{category}» и положи в корзину"
    " «{title}»{weighed}.",
)
EXCEPTIONS = (ANY_AMOUNT,)
CATALOG = load_catalog()


def sample(rng):
    product = rng.choice(CATALOG.all())
    return {
        "item_id": product.id,
        "title": product.title,
        "weight": product.weight,
        "category": product.category,
    }


def words(params):
    return {
        "category": CATALOG.category(params["category"]).name,
        "title": params["title"],
        "weighed": "" if params["weight"] in params["title"] else f" ({params['weight']})",
    }


def conditions(params):
    return [
        {
            "event_name": "state_changed",
            "parameters": {"new_state": "bench_grocery_category", "category": params["category"]},
        },
        basket(params["item_id"]),
    ]


def names(params):
    return [Name(params["title"], frozenset({params["item_id"]}))]
