"""Файлы: a file of a collection and year, named by its file name, downloaded (FILES)."""

from services.core.families import Name
from services.files.catalog import load_catalog

SITE = "files"
FIRST_STATE = "bench_files_cabinet"
DONORS = ("files_download_air_csv", "files_download_scales_act")
PRIMARY = "FILES"
CLASSES = ("FILES", "SELECT_LIST")
# A title is quoted after a generic noun («найди документ «Сводка …»»), never declined.
PHRASINGS = (
    "На %HOST% во вкладке «Файлы» скачай из коллекции «{collection}» файл «{name}».",
    "Открой %HOST%, раздел «Файлы»: в коллекции «{collection}» за {year} год найди документ"
    " «{title}» и скачай файл «{name}».",
    "На %HOST% в «Файлах» зайди в коллекцию «{collection}», выбери {year} год и скачай файл"
    " «{name}».",
)
CATALOG = load_catalog()


def sample(rng):
    entry = rng.choice(CATALOG.files)
    return {
        "collection": entry.collection,
        "year": entry.year,
        "name": entry.name,
        "title": entry.title,
    }


def words(params):
    return {
        "collection": CATALOG.collection(params["collection"]).name,
        "year": params["year"],
        "name": params["name"],
        "title": params["title"],
    }


def conditions(params):
    return [
        {
            "event_name": "bench_files_select_collection",
            "parameters": {"collection": params["collection"]},
        },
        {"event_name": "bench_files_select_year", "parameters": {"year": params["year"]}},
        {"event_name": "bench_files_download", "parameters": {"file_name": params["name"]}},
    ]


def names(params):
    return [Name(params["name"], frozenset({params["name"]}))]
