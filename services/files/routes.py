"""Файлы's routes: the cabinet, a collection with its years, a download, a file's view."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, Response

from services.core import inject
from services.core.errors import FieldError
from services.core.models.events import Parameters
from services.files.catalog import Catalog, File
from services.files.service import DOMAIN, attachment, inline, widget_of
from services.kit.forms import whole_number
from services.kit.replay import Replay, Step
from services.kit.site import Context, SiteDep, SiteRequest, catalog, site_prefix

router = APIRouter(prefix=site_prefix(DOMAIN))
CatalogDep = Annotated[Catalog, Depends(catalog)]


async def page_context(site: SiteRequest) -> Context:
    return {"catalog": site.catalog}


async def missing(site: SiteRequest, message: str, status: int = 404, **ctx: Any) -> HTMLResponse:
    return await site.page("missing.html", status, message=message, **ctx)


@router.get("/")
async def cabinet(site: SiteDep) -> HTMLResponse:
    await site.emit.screen("bench_files_cabinet")
    return await site.page("cabinet.html")


@router.get("/c/{collection_id}")
async def collection(
    collection_id: str,
    site: SiteDep,
    files: CatalogDep,
    year: Annotated[str | None, Query(max_length=20)] = None,
    widget: Annotated[str | None, Query(max_length=40)] = None,
) -> HTMLResponse:
    found = files.collection(collection_id)
    if found is None:
        return await missing(site, "Такой коллекции в кабинете нет.")
    chosen: int | None = None
    if year is not None and year.strip():
        chosen = whole_number(year)
        if chosen is None:
            example = found.years[-1]
            message = f"Год указан неверно: «{year}». Нужен год числом, например {example}."
            return await missing(site, message, 422, field="year", collection=found)
        if chosen not in found.years:
            message = f"В коллекции «{found.name}» нет файлов за {chosen} год."
            return await missing(site, message, collection=found)
    await site.emit.screen("bench_files_collection", collection=found.id)
    # `widget` says which control opened the page: a collections link (the tree's year
    # links choose a collection and a year at once) or the year picker.
    picked_in = widget_of("collections", widget)
    await site.emit("bench_files_select_collection", collection=found.id, **picked_in)
    if chosen is not None:
        picked_by = picked_in or widget_of("years", widget)
        await site.emit("bench_files_select_year", year=chosen, **picked_by)
    shown = files.files_in(found.id, chosen) if chosen else []
    return await site.page("collection.html", collection=found, year=chosen, files=shown)


def find_file(files: Catalog, collection_id: str, year: str, name: str) -> File | None:
    """Looked up in the catalog only; the request never becomes a path on disk."""
    number = whole_number(year)
    return files.file(collection_id, number, name) if number is not None else None


def body_of(site: SiteRequest, files: Catalog, entry: File) -> bytes:
    """The file's bytes: its injected copy where the trajectory selects `document`."""
    injected = site.trajectory.variant(DOMAIN, inject.KEY) == "document"
    return files.path(entry, injected).read_bytes()


@router.get("/c/{collection_id}/{year}/{name:path}")
async def download(
    collection_id: str,
    year: str,
    name: str,
    site: SiteDep,
    files: CatalogDep,
    widget: Annotated[str | None, Query(max_length=40)] = None,
) -> Response:
    entry = find_file(files, collection_id, year, name)
    if entry is None:
        return await missing(site, "Такого файла в этой коллекции нет.")
    body = body_of(site, files, entry)
    if site.request.method != "HEAD":
        await downloaded(site, entry, widget)
    return Response(
        body,
        media_type=entry.media_type,
        headers={
            "Content-Disposition": attachment(entry.name),
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        },
    )


async def downloaded(site: SiteRequest, entry: File, widget: str | None) -> None:
    """The one writer of `bench_files_download`: a download leaves no state on the site
    but its event."""
    await site.emit(
        "bench_files_download",
        file_name=entry.name,
        collection=entry.collection,
        year=entry.year,
        format=entry.kind,
        **widget_of("buttons", widget),
    )


def make_replay(files: Catalog) -> Replay:
    """A start state on this site: files already downloaded (`bench_files_download` with
    `file_name`)."""

    def entry(params: Parameters) -> File:
        found = files.by_name(str(params.get("file_name")))
        if found is None:
            raise FieldError("parameters.file_name", f"no file {params.get('file_name')!r}")
        return found

    def check(params: Parameters) -> None:
        entry(params)

    async def apply(site: SiteRequest, params: Parameters) -> None:
        await downloaded(site, entry(params), None)

    return Replay(
        DOMAIN, {"bench_files_download": Step(check, apply)}, {"bench_files_cabinet": "/"}
    )


@router.get("/v/{collection_id}/{year}/{name:path}")
async def view(
    collection_id: str, year: str, name: str, site: SiteDep, files: CatalogDep
) -> Response:
    """The file shown in the browser («Просмотр»): a CSV as plain text, a PDF in the
    browser's viewer. A view is a screen, not a download: no `bench_files_download`."""
    entry = find_file(files, collection_id, year, name)
    if entry is None:
        return await missing(site, "Такого файла в этой коллекции нет.")
    body = body_of(site, files, entry)
    await site.emit.screen("bench_files_view", item_id=entry.id)
    media_type = "text/plain; charset=utf-8" if entry.kind == "csv" else entry.media_type
    return Response(
        body,
        media_type=media_type,
        headers={
            "Content-Disposition": inline(entry.name),
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        },
    )


@router.get("/{rest:path}")
async def unknown(rest: str, site: SiteDep) -> HTMLResponse:
    return await missing(site, "Такой страницы нет.")
