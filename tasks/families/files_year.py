"""Файлы: a collection opened and one of its years chosen (FILES)."""

from services.files.catalog import load_catalog

SITE = "files"
FIRST_STATE = "bench_files_cabinet"
DONORS = ("files_year_lab_2023", "files_year_datasets_2025")
PRIMARY = "FILES"
CLASSES = ("FILES", "SELECT_LIST")
PHRASINGS = (
    "На %HOST% во вкладке «Файлы» зайди в коллекцию «{collection}» и выбери {year} год,"
    " чтобы увидеть файлы за этот год.",
    "Открой %HOST%, раздел «Файлы», коллекцию «{collection}», и покажи файлы за {year} год.",
    "На %HOST% в «Файлах» открой «{collection}» и переключись на {year} год.",
)
CATALOG = load_catalog()


def sample(rng):
    collection = rng.choice(CATALOG.collections)
    return {"collection": collection.id, "year": rng.choice(collection.years)}


def words(params):
    return {"collection": CATALOG.collection(params["collection"]).name, "year": params["year"]}


def conditions(params):
    return [
        {
            "event_name": "bench_files_select_collection",
            "parameters": {"collection": params["collection"]},
        },
        {"event_name": "bench_files_select_year", "parameters": {"year": params["year"]}},
    ]


def names(params):
    return []
