"""Read-only access to the cabinet (``data/catalog.json`` and ``data/files/``).

Both are produced by ``python -m services.files.generate``. A file is found only by looking
it up in the catalog (collection, year, name); its bytes live under its catalog id, so no
part of a request ever becomes part of a path on disk.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, TypedDict

from services.core.russian import MONTHS_NOMINATIVE, date_in_words
from services.files.chrome import CHROME
from services.kit.catalog import Row, best_matches, catalog_items, exact_ids, read_json, words

DATA_DIR = Path(__file__).resolve().parent / "data"
ROMAN = ("I", "II", "III", "IV")


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class CatalogData(TypedDict):
    collections: list[Row]  # years as a JSON list
    files: list[Row]


@dataclass(frozen=True)
class Collection:
    id: str
    name: str
    description: str
    years: tuple[int, ...]


def _collection(years: list[int], **fields: Any) -> Collection:
    """A collection from its catalog row, whose years are a JSON list."""
    return Collection(years=tuple(years), **fields)


@dataclass(frozen=True)
class File:
    id: str
    collection: str
    year: int
    name: str
    title: str
    kind: str  # "pdf" | "csv"
    media_type: str
    size: int
    sha256: str
    added: str  # ISO date
    period: str | None
    quarter: int | None

    @property
    def added_date(self) -> date:
        return date.fromisoformat(self.added)

    @property
    def added_text(self) -> str:
        day = self.added_date
        return date_in_words(day)

    @property
    def size_text(self) -> str:
        return f"{self.size / 1024:.0f} КБ".replace(".", ",") if self.size >= 1024 else "1 КБ"

    @property
    def period_text(self) -> str | None:
        """«март 2024» for a monthly file, «весь 2024 год» for a yearly one."""
        if not self.period:
            return None
        if len(self.period) == 4:
            return f"весь {self.period} год"
        year, month = self.period.split("-")
        return f"{MONTHS_NOMINATIVE[int(month) - 1]} {year}"

    @property
    def quarter_text(self) -> str | None:
        if self.quarter:
            return f"{ROMAN[self.quarter - 1]} квартал"
        return "весь год" if self.period else None


class Catalog:
    def __init__(self, collections: list[Collection], files: list[File], root: Path) -> None:
        self.collections = list(collections)
        self.files = list(files)
        self.root = root
        self._collections = {c.id: c for c in self.collections}
        self._files = {(f.collection, f.year, f.name): f for f in self.files}

    @classmethod
    def from_dir(cls, root: Path) -> Catalog:
        data: CatalogData = read_json(root / "catalog.json")
        return cls(
            catalog_items(_collection, data["collections"]),
            catalog_items(File, data["files"]),
            root,
        )

    def collection(self, collection_id: str) -> Collection | None:
        return self._collections.get(collection_id)

    def files_in(self, collection_id: str, year: int) -> list[File]:
        return [f for f in self.files if f.collection == collection_id and f.year == year]

    def file(self, collection_id: str, year: int, name: str) -> File | None:
        return self._files.get((collection_id, year, name))

    def by_name(self, name: str) -> File | None:
        return next((f for f in self.files if f.name == name), None)

    def path(self, entry: File, injected: bool = False) -> Path:
        """Where the bytes are: built from the catalog's own id and kind only; `injected`:
        the copy that carries the site's attack (the `document` carrier)."""
        folder = self.root / "files" / "inject" if injected else self.root / "files"
        return folder / f"{entry.id}.{entry.kind}"

    def is_complete(self) -> bool:
        return bool(self.files) and all(
            self.path(f, injected).is_file() for f in self.files for injected in (False, True)
        )


@functools.cache
def load_catalog(root: Path = DATA_DIR) -> Catalog:
    return Catalog.from_dir(root)


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    return {
        "collection": {c.id for c in catalog.collections},
        "file_name": {f.name for f in catalog.files},
    }


def names() -> dict[str, str]:
    """Id -> what a person calls it: the collections (the descriptor's `names`)."""
    return {c.id: c.name for c in load_catalog().collections}


def search_ids(query: str, among: str = "") -> set[str]:
    """The ids its search finds with every word of `query` (the descriptor's `search`)."""
    return exact_ids(
        best_matches(query, load_catalog().files, lambda f: words(f"{f.name} {f.title}")),
        lambda f: f.name,
    )


def states() -> set[str]:
    """The screens this site serves (`state_changed.new_state`)."""
    return {"bench_files_cabinet", "bench_files_collection", "bench_files_view", CHROME.screen}
