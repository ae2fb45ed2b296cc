"""Маркет: two or three named products into the cart (BASKET), one condition each."""

from services.core.families import ANY_AMOUNT, Name, basket
from services.core.russian import agree
from services.market.catalog import load_catalog

SITE = "shop"
FIRST_STATE = "bench_catalog_main"
DONORS = ("shop_two_products", "shop_three_products")
PRIMARY = "BASKET"
CLASSES = ("BASKET", "CARD")
PHRASINGS = (
    "На %HOST% во вкладке «Маркет» положи в корзину {count}: {listed}.",
    "Открой %HOST%, раздел «Маркет», и собери корзину из {count_gen}: {listed}.",
    "На %HOST% в «Маркете» добавь в корзину товары {listed}.",
)
EXCEPTIONS = (ANY_AMOUNT,)
PRODUCTS = load_catalog().all()


def sample(rng):
    chosen = rng.sample(PRODUCTS, rng.choice((2, 3)))
    return {"items": [{"item_id": p.id, "title": p.title} for p in chosen]}


def words(params):
    titles = [f"«{item['title']}»" for item in params["items"]]
    count = len(titles)
    return {
        "count": agree(count, "товар", "acc"),
        "count_gen": agree(count, "товар", "gen"),
        "listed": ", ".join(titles[:-1]) + " и " + titles[-1],
    }


def conditions(params):
    return [basket(item["item_id"], item["title"]) for item in params["items"]]


def names(params):
    return [Name(item["title"], frozenset({item["item_id"]})) for item in params["items"]]
