"""Файлы (domain `files`): a cabinet of collections, years, and real PDF and CSV downloads.

Every event is written by the server handler that serves the screen or the file:
the cabinet and a collection write `state_changed`; a collection page writes
`bench_files_select_collection` and, once a year is chosen, `bench_files_select_year`;
a download writes `bench_files_download` as the file is sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, Response

from services.files.catalog import Catalog, Collection, load_catalog
from services.kit.settings import SiteSettings
from services.kit.site import (
    EmitDep,
    PagesDep,
    SiteSpec,
    TrajectoryDep,
    create_site_app,
    site_prefix,
)
from services.kit.variants import VARIANTS

DOMAIN = "files"
HERE = Path(__file__).parent

_LATIN = "a b v g d e e zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya"
_TRANSLIT = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя", _LATIN.split(" "), strict=True))


def ascii_name(name: str) -> str:
    """A Latin fallback for the `filename` of old clients (`filename*` carries the real one)."""
    out = []
    for char in name:
        lower = char.lower()
        if lower in _TRANSLIT:
            latin = _TRANSLIT[lower].strip("-")
            out.append(latin.capitalize() if char != lower else latin)
        elif char.isascii() and (char.isalnum() or char in "._-"):
            out.append(char)
        else:
            out.append("_")
    return "".join(out)


def attachment(name: str) -> str:
    return f"attachment; filename=\"{ascii_name(name)}\"; filename*=UTF-8''{quote(name, safe='')}"


def widget_of(key: str, value: str | None) -> dict[str, str]:
    """`widget=<impl>` for the event when the link said which implementation it came from."""
    return {"widget": value} if value in VARIANTS[key][DOMAIN] else {}


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog: Catalog = load_catalog(settings.data_dir) if settings.data_dir else load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    def page(
        pages: PagesDep,
        trajectory: TrajectoryDep,
        template: str,
        status_code: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        return pages.render(trajectory, template, status_code, catalog=catalog, **context)

    def missing(
        pages: PagesDep, trajectory: TrajectoryDep, message: str, status_code: int = 404, **ctx: Any
    ) -> HTMLResponse:
        return page(pages, trajectory, "missing.html", status_code, message=message, **ctx)

    @router.get("/")
    async def cabinet(pages: PagesDep, trajectory: TrajectoryDep, emit: EmitDep) -> HTMLResponse:
        await emit.screen("bench_files_cabinet")
        return page(pages, trajectory, "cabinet.html")

    @router.get("/c/{collection_id}")
    async def collection(
        collection_id: str,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        emit: EmitDep,
        year: Annotated[str | None, Query(max_length=20)] = None,
        widget: Annotated[str | None, Query(max_length=40)] = None,
    ) -> HTMLResponse:
        found: Collection | None = catalog.collection(collection_id)
        if found is None:
            return missing(pages, trajectory, "Такой коллекции в кабинете нет.")
        chosen: int | None = None
        if year is not None and year.strip():
            if not year.strip().isdigit():
                return missing(
                    pages,
                    trajectory,
                    f"Год указан неверно: «{year}». Нужен год числом, например {found.years[-1]}.",
                    422,
                    field="year",
                    collection=found,
                )
            chosen = int(year)
            if chosen not in found.years:
                return missing(
                    pages,
                    trajectory,
                    f"В коллекции «{found.name}» нет файлов за {chosen} год.",
                    collection=found,
                )
        await emit.screen("bench_files_collection", collection=found.id)
        # `widget` says which control opened the page: a collections link (the tree's year
        # links choose a collection and a year at once) or the year picker.
        picked_in = widget_of("collections", widget)
        await emit("bench_files_select_collection", collection=found.id, **picked_in)
        if chosen is not None:
            await emit(
                "bench_files_select_year", year=chosen, **(picked_in or widget_of("years", widget))
            )
        return page(
            pages,
            trajectory,
            "collection.html",
            collection=found,
            year=chosen,
            files=catalog.files_in(found.id, chosen) if chosen else [],
        )

    @router.get("/c/{collection_id}/{year}/{name:path}")
    async def download(
        collection_id: str,
        year: str,
        name: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        emit: EmitDep,
        widget: Annotated[str | None, Query(max_length=40)] = None,
    ) -> Response:
        # Looked up in the catalog only; the request never becomes a path on disk.
        entry = catalog.file(collection_id, int(year), name) if year.isdigit() else None
        if entry is None:
            return missing(pages, trajectory, "Такого файла в этой коллекции нет.")
        body = catalog.path(entry).read_bytes()
        if request.method != "HEAD":
            await emit("bench_files_download", file_name=entry.name, **widget_of("buttons", widget))
        return Response(
            body,
            media_type=entry.media_type,
            headers={
                "Content-Disposition": attachment(entry.name),
                "Cache-Control": "no-store",
                "X-Content-Type-Options": "nosniff",
            },
        )

    @router.get("/{rest:path}")
    async def unknown(rest: str, pages: PagesDep, trajectory: TrajectoryDep) -> HTMLResponse:
        return missing(pages, trajectory, "Такой страницы нет.")

    spec = SiteSpec(domain=DOMAIN, root=HERE, ready=catalog.is_complete)
    return create_site_app(spec, settings, router)
