"""The hotels catalog: generated deterministically, stable city ids, invented hotel names."""

from __future__ import annotations

from services.hotels import generate
from services.hotels.catalog import Catalog, load_catalog
from services.hotels.service import parse_rooms


def test_committed_catalog_is_the_generators_output() -> None:
    text = generate.CATALOG_PATH.read_text(encoding="utf-8")
    assert text == generate.dumps(generate.build_catalog()), (
        "catalog.json is stale: run python -m services.hotels.generate"
    )
    assert generate.main(["--check"]) == 0


def test_cities_have_stable_ids_and_labels() -> None:
    catalog = load_catalog()
    assert len(catalog.cities) >= 40
    zurich = catalog.city("ch-zrh")
    assert zurich is not None and zurich.label == "Цюрих, Швейцария"
    for cid, label in (("ae-dxb", "Дубай, ОАЭ"), ("kr-sel", "Сеул, Южная Корея")):
        city = catalog.city(cid)
        assert city is not None and city.label == label
    assert len({c.id for c in catalog.cities}) == len(catalog.cities)


def test_hotels_are_invented_and_every_city_has_some() -> None:
    catalog = Catalog.from_dict(generate.build_catalog())
    for city in catalog.cities:
        hotels = catalog.hotels_in(city.id)
        assert len(hotels) == generate.HOTELS_PER_CITY
        assert len({h.name for h in hotels}) == len(hotels)
        assert all(h.rooms[0].type == "Стандартный" for h in hotels)
    # names are built from the generator's own invented parts only
    for hotel in catalog.hotels:
        kind, _, title = hotel.name.partition(" «")
        adjective, noun = title.rstrip("»").split(" ")
        assert kind in generate.KINDS and adjective in generate.ADJECTIVES
        assert noun in generate.NOUNS


def test_rooms_text_is_parsed_and_bounded() -> None:
    assert parse_rooms("2:7,5;1") == [{"adults": 2, "kids": [7, 5]}, {"adults": 1, "kids": []}]
    for bad in ("", "0", "7", "2:18", "2:1,1,1,1,1", "1;1;1;1;1;1;1", "x"):
        try:
            parse_rooms(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")
