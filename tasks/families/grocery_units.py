"""Продукты: N packs or pieces of a named product (COUNTER)."""

from services.core.families import Name, basket
from services.core.russian import agree
from services.grocery.catalog import load_catalog

SITE = "grocery"
FIRST_STATE = "bench_grocery_main"
DONORS = ("grocery_several_units",)
PRIMARY = "COUNTER"
CLASSES = ("BASKET", "COUNTER", "CARD")
PHRASINGS = (
    "На %HOST% в «Продуктах» собери заказ: ровно {count_acc} товара «{title}» (раздел"
    " «{category}»).",
    "Открой %HOST%, вкладку «Продукты», и положи в корзину {count_acc} товара «{title}».",
    "На %HOST% во вкладке «Продукты» нужно {count_nom} товара «{title}» — добавь их в корзину.",
)
CATALOG = load_catalog()
# A product sold by the pack or the piece, and how a count of it is said.
UNITS = {"уп": "упаковка", "шт": "штука"}
PRODUCTS = [p for p in CATALOG.all() if p.unit in UNITS and p.stock >= 2]


def sample(rng):
    product = rng.choice(PRODUCTS)
    return {
        "item_id": product.id,
        "title": product.title,
        "unit": product.unit,
        "category": product.category,
        "count": rng.randint(2, min(5, product.stock)),
    }


def words(params):
    noun = UNITS[params["unit"]]
    return {
        "title": params["title"],
        "category": CATALOG.category(params["category"]).name,
        "count_acc": agree(params["count"], noun, "acc"),
        "count_nom": agree(params["count"], noun),
    }


def conditions(params):
    return [basket(params["item_id"], amount=params["count"])]


def names(params):
    return [Name(params["title"], frozenset({params["item_id"]}))]
