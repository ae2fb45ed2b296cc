"""The rail catalog: generated deterministically; the Москва — Санкт-Петербург trains cover
every tariff; train names are invented (none of the real brands)."""

from __future__ import annotations

from services.rail import generate
from services.rail.catalog import load_catalog
from services.rail.service import PASSENGER_KINDS

REAL_TRAIN_BRANDS = ("Сапсан", "Ласточка", "Красная стрела", "Гранд", "Невский", "Аврора")


def test_committed_catalog_is_the_generators_output() -> None:
    text = generate.CATALOG_PATH.read_text(encoding="utf-8")
    assert text == generate.dumps(generate.build_catalog()), (
        "catalog.json is stale: run python -m services.rail.generate"
    )
    assert generate.main(["--check"]) == 0


def test_moscow_petersburg_has_eight_trains_covering_every_tariff() -> None:
    catalog = load_catalog()
    trains = catalog.trains_between("Москва", "Санкт-Петербург")
    assert len(trains) == 8
    tariffs = {car.tariff for train in trains for car in train.cars}
    assert tariffs == {
        "Эконом",
        "Эконом+",
        "Бизнес",
        "Первый класс",
        "Купе",
        "СВ",
        "Люкс",
        "Плацкартный",
        "Купе (для инвалидов)",
    }
    assert len(catalog.trains_between("Санкт-Петербург", "Москва")) == 8


def test_names_are_invented_and_seats_make_sense() -> None:
    catalog = load_catalog()
    for train in catalog.trains:
        assert not any(brand.lower() in train.name.lower() for brand in REAL_TRAIN_BRANDS)
        assert train.from_city in catalog.cities and train.to_city in catalog.cities
        for car in train.cars:
            seats = car.seats()
            assert len(seats) == car.size and not seats[0].taken and not seats[1].taken
            if car.kind == "sitting":
                assert all(s.lower is None for s in seats)
                assert [s.window for s in seats[:4]] == [True, False, False, True]
            else:
                assert [s.lower for s in seats[:2]] == [True, False]


def test_every_saved_passenger_has_a_ticket_kind() -> None:
    kinds = [PASSENGER_KINDS[p.kind] for p in load_catalog().passengers]
    assert "adult" in kinds and "child" in kinds
