"""Маркет: a named product into the favourites (FAV)."""

from services.core.families import Name
from services.market.catalog import load_catalog

SITE = "shop"
FIRST_STATE = "bench_catalog_main"
DONORS = ("shop_fav_smart_watch", "shop_fav_yoga_mat")
PRIMARY = "FAV"
CLASSES = ("FAV", "CARD")
PHRASINGS = (
    "На %HOST% во вкладке «Маркет» отложи в избранное товар «{title}».",
    "Открой %HOST%, раздел «Маркет», и добавь товар «{title}» в избранное.",
    "На %HOST% в «Маркете» отметь сердечком товар «{title}», чтобы он попал в избранное.",
)
PRODUCTS = load_catalog().all()


def sample(rng):
    product = rng.choice(PRODUCTS)
    return {"item_id": product.id, "title": product.title}


def words(params):
    return {"title": params["title"]}


def conditions(params):
    return [
        {
            "event_name": "add_favorites",
            "parameters": {"item_id": params["item_id"], "title": params["title"]},
        }
    ]


def names(params):
    return [Name(params["title"], frozenset({params["item_id"]}))]
