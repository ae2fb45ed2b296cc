"""The cabinet's generated data: reproducible, complete, real PDFs and CSVs, unique names."""

from __future__ import annotations

import csv
import hashlib
import io
from collections import Counter

import pytest

from services.core.contract import validate_params
from services.core.errors import FieldError
from services.files import generate
from services.files.catalog import Catalog, load_catalog
from services.files.service import ascii_name, attachment


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_committed_data_equals_the_generator_output() -> None:
    # Byte for byte, PDFs included: fixed dates and ids (reportlab invariant mode).
    assert generate.main(["--check"]) == 0


def test_generation_is_repeatable() -> None:
    first, blobs = generate.build()
    second, again = generate.build()
    assert first == second and blobs == again


def test_collections_and_years(catalog: Catalog) -> None:
    names = [c.name for c in catalog.collections]
    assert names == ["Отчёты лаборатории", "Архив проектов", "Руководства", "Наборы данных"]
    per_year = Counter((f.collection, f.year) for f in catalog.files)
    archive = {year: n for (cid, year), n in per_year.items() if cid == "projects-archive"}
    assert archive == {2023: 12, 2024: 18}
    others = [n for (cid, _), n in per_year.items() if cid != "projects-archive"]
    assert all(2 <= n <= 5 for n in others)
    for c in catalog.collections:
        assert list(c.years) == sorted({f.year for f in catalog.files if f.collection == c.id})


def test_archive_cards_carry_period_quarter_and_date(catalog: Catalog) -> None:
    monthly = [f for f in catalog.files if f.collection == "projects-archive" and f.quarter]
    assert len(monthly) == 28
    for f in monthly:
        year, month = f.period.split("-")  # type: ignore[union-attr]
        assert f.name == f"{year}-{month}.{f.kind}" and f.quarter == (int(month) - 1) // 3 + 1
    yearly = {f.name for f in catalog.files if f.period and not f.quarter}
    assert yearly == {"2024.pdf", "2024.csv"}
    for year in (2023, 2024):
        added = [f.added for f in catalog.files_in("projects-archive", year)]
        assert len(set(added)) == len(added), "a file known by its date must be unique"


def test_every_file_is_real_and_matches_the_catalog(catalog: Catalog) -> None:
    names = [f.name for f in catalog.files]
    assert len(set(names)) == len(names)
    total = 0
    for f in catalog.files:
        body = catalog.path(f).read_bytes()
        total += len(body)
        assert len(body) == f.size and hashlib.sha256(body).hexdigest() == f.sha256
        if f.kind == "pdf":
            assert f.media_type == "application/pdf"
            assert body.startswith(b"%PDF-") and body.rstrip().endswith(b"%%EOF")
            assert b"DejaVuSans" in body and b"/ToUnicode" in body  # Cyrillic, extractable
        else:
            assert f.media_type == "text/csv; charset=utf-8"
            rows = list(csv.reader(io.StringIO(body.decode("utf-8")), delimiter=";"))
            assert len(rows) >= 5 and all(len(row) == len(rows[0]) for row in rows)
    assert total < 2 * 1024 * 1024  # small enough to commit


def test_font_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setattr(generate, "FONT_DIRS", (tmp_path,))
    with pytest.raises(SystemExit, match="fonts-dejavu-core"):
        generate.font_path()


def test_download_names() -> None:
    assert ascii_name("Отчёт_о_влажности_грунта_2024.pdf") == "Otchet_o_vlazhnosti_grunta_2024.pdf"
    assert attachment("2024-05.csv") == (
        "attachment; filename=\"2024-05.csv\"; filename*=UTF-8''2024-05.csv"
    )
    assert "filename*=UTF-8''%D0%90%D0%BA%D1%82" in attachment("Акт.pdf")


def test_events_of_the_site_fit_the_contract() -> None:
    assert validate_params(
        "state_changed", {"new_state": "bench_files_collection", "collection": "manuals"}
    ) == {"new_state": "bench_files_collection", "collection": "manuals"}
    assert validate_params("bench_files_select_year", {"year": 2024, "widget": "radio"}) == {
        "year": 2024,
        "widget": "radio",
    }
    with pytest.raises(FieldError, match="file_name"):
        validate_params("bench_files_download", {"name": "2024.pdf"})
