"""Маркет: a product named by its full title into the cart (BASKET)."""

from services.core.families import ANY_AMOUNT, Name, basket
from services.market.catalog import load_catalog

SITE = "shop"
FIRST_STATE = "bench_catalog_main"
DONORS = ("shop_search_powerbank", "shop_search_headphones_pro", "shop_typo_kettle")
PRIMARY = "BASKET"
CLASSES = ("BASKET", "CARD")
PHRASINGS = (
    "На %HOST% во вкладке «Маркет» добавь в корзину товар «{title}».",
    "Открой %HOST%, раздел «Маркет», найди товар «{title}» и положи его в корзину.",
    "Нужен товар «{title}»: на %HOST% во вкладке «Маркет» положи его в корзину.",
)
EXCEPTIONS = (ANY_AMOUNT,)
PRODUCTS = load_catalog().all()


def sample(rng):
    product = rng.choice(PRODUCTS)
    return {"item_id": product.id, "title": product.title}


def words(params):
    return {"title": params["title"]}


def conditions(params):
    return [basket(params["item_id"], params["title"])]


def names(params):
    return [Name(params["title"], frozenset({params["item_id"]}))]
