"""Маркет: N units of a named product (COUNTER): the cart line's last quantity is N."""

from services.core.families import Name, basket
from services.core.russian import agree
from services.market.catalog import load_catalog

SITE = "shop"
FIRST_STATE = "bench_catalog_main"
DONORS = ("shop_units_dish_soap", "shop_units_spaghetti")
PRIMARY = "COUNTER"
CLASSES = ("BASKET", "COUNTER", "CARD")
PHRASINGS = (
    "На %HOST% во вкладке «Маркет» положи в корзину {count_acc} товара «{title}».",
    "Открой %HOST%, раздел «Маркет»: в корзине должно быть ровно {count_nom} товара «{title}».",
    "На %HOST% в «Маркете» добавь в корзину товар «{title}», количество — {count_nom}.",
)
# Two or more, and no more than the stock lets the stepper reach.
PRODUCTS = [p for p in load_catalog().all() if p.stock >= 2]


def sample(rng):
    product = rng.choice(PRODUCTS)
    count = rng.randint(2, min(5, product.stock))
    return {"item_id": product.id, "title": product.title, "count": count}


def words(params):
    return {
        "title": params["title"],
        "count_acc": agree(params["count"], "штука", "acc"),
        "count_nom": agree(params["count"], "штука"),
    }


def conditions(params):
    return [basket(params["item_id"], params["title"], params["count"])]


def names(params):
    return [Name(params["title"], frozenset({params["item_id"]}))]
