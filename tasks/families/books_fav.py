"""Книги: a named edition (its format, title and author, declined) into the favourites
(FAV)."""

from services.books.catalog import load_catalog
from services.core.families import Name

SITE = "books"
FIRST_STATE = "bench_books_main"
DONORS = ("books_fav_teterina_window", "books_fav_ustinov_field", "books_fav_yudin_lighthouse")
PRIMARY = "FAV"
CLASSES = ("FAV", "CARD", "SEARCH")
PHRASINGS = (
    "На %HOST% во вкладке «Книги» отложи в избранное {format_acc} «{title}» {author_gen}.",
    "Открой %HOST%, раздел «Книги», найди {format_acc} {author_gen} «{title}» и добавь её в"
    " избранное.",
    "На %HOST% в «Книгах» добавь в избранное {format_acc} «{title}» — автор {author}.",
)
CATALOG = load_catalog()
FORMATS = {"text": "электронную книгу", "audio": "аудиокнигу"}


def sample(rng):
    item = rng.choice(CATALOG.all())
    return {
        "item_id": item.id,
        "title": item.title,
        "format": item.format,
        "author_id": item.author_id,
    }


def words(params):
    author = CATALOG.author(params["author_id"])
    return {
        "format_acc": FORMATS[params["format"]],
        "title": params["title"],
        "author_gen": author.cases["gen"],
        "author": author.name,
    }


def conditions(params):
    return [
        {
            "event_name": "add_favorites",
            "parameters": {"item_id": params["item_id"], "title": params["title"]},
        }
    ]


def names(params):
    # The title and the author may find the work's other editions: the format tells them
    # apart, unless one has the same format.
    item = CATALOG.item(params["item_id"])
    others = {e.id for e in CATALOG.editions(item) if e.format != item.format}
    author = CATALOG.author(params["author_id"])
    return [Name(f"{params['title']} {author.name}", frozenset({item.id, *others}))]
