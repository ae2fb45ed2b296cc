"""Книги: an author's cheapest or dearest edition into the cart (BASKET); the author's
name declined (the catalog holds each author's cases, made with pytrovich), and the
answer unique (the books site's validator checks it too)."""

from services.books.catalog import load_catalog
from services.core.families import ANY_AMOUNT, Name, basket

SITE = "books"
FIRST_STATE = "bench_books_main"
DONORS = (
    "books_author_cheapest_rudneva",
    "books_author_cheapest_ushakov",
    "books_author_priciest_prudnikova",
)
PRIMARY = "BASKET"
CLASSES = ("BASKET", "CARD", "SEARCH")
PHRASINGS = (
    "На %HOST% во вкладке «Книги» найди {which_acc} издание среди книг {author_gen} и положи"
    " его в корзину.",
    "На %HOST% во вкладке «Книги» положи в корзину {which_acc} издание {author_gen} — любого"
    " формата.",
    "Открой %HOST%, раздел «Книги»: из всех изданий {author_gen} выбери {which_acc} и добавь"
    " его в корзину.",
)
EXCEPTIONS = (ANY_AMOUNT,)
CATALOG = load_catalog()
WHICH = {"cheapest": "самое дешёвое", "priciest": "самое дорогое"}


def sample(rng):
    author = rng.choice(CATALOG.authors)
    which = rng.choice(sorted(WHICH))
    items = CATALOG.by_author(author.id)
    if len(items) < 2:
        return None
    price = (min if which == "cheapest" else max)(i.price for i in items)
    answers = [i for i in items if i.price == price]
    if len(answers) != 1:
        return None
    return {
        "author_id": author.id,
        "which": which,
        "item_id": answers[0].id,
        "title": answers[0].title,
    }


def words(params):
    author = CATALOG.author(params["author_id"])
    return {"which_acc": WHICH[params["which"]], "author_gen": author.cases["gen"]}


def conditions(params):
    return [basket(params["item_id"], params["title"])]


def names(params):
    author = CATALOG.author(params["author_id"])
    return [Name(author.cases["gen"], frozenset(i.id for i in CATALOG.by_author(author.id)))]
