"""Книги (domain `books`): front page, search with author and title suggestions, results
with filters (format, language, author) and sort, book pages, favourites, cart, checkout.

Server-written events: `state_changed` (every screen served), `submit_search` (a results
page served for the search field), `apply_filter` / `apply_sort` (a list served with a new
filter or sort), `basket_add` / `basket_remove`, `add_favorites` / `remove_favorites`,
`submit_payment`. Page-written: `select_pay_method`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from services.books.catalog import SORTS, Catalog, Filters, arrange, cover_svg, load_catalog
from services.kit.catalog import svg_response
from services.kit.commerce import (
    Checkout,
    Commerce,
    Refused,
    card_number,
    search_query,
)
from services.kit.errors import FieldError
from services.kit.settings import SiteSettings
from services.kit.site import (
    EmitDep,
    PagesDep,
    SiteSpec,
    StateDep,
    TrajectoryDep,
    create_site_app,
    site_prefix,
)
from services.kit.trajectory import Trajectory

DOMAIN = "books"
HERE = Path(__file__).parent
PAY_METHODS: dict[str, str] = {"card": "Банковская карта", "sbp": "Система быстрых платежей"}
LIST_KEYS = ("format", "language", "author", "sort")
MAX_COPIES = 10  # e-books and audiobooks: at most ten copies (gifts) of one item


def parse_list(query: Any, catalog: Catalog) -> tuple[Filters, str, bool]:
    fmt = query.get("format") or None
    if fmt is not None and fmt not in catalog.formats:
        raise Refused(422, "format", f"формат — одно из: {', '.join(catalog.formats)}")
    language = query.get("language") or None
    if language is not None and language not in catalog.languages:
        raise Refused(422, "language", f"язык — одно из: {', '.join(catalog.languages)}")
    author = query.get("author") or None
    if author is not None and catalog.author(author) is None:
        raise Refused(422, "author", "нет такого автора")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise Refused(422, "sort", f"сортировка — одна из: {', '.join(SORTS)}")
    refined = any(key in query for key in LIST_KEYS)
    return Filters(fmt, language, author), sort, refined


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    def check_order(form: dict[str, str]) -> None:
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", form.get("email", "").strip()):
            raise Refused(422, "email", "укажите почту, на неё придёт ссылка на книги")
        if form.get("method") == "card":
            card_number(form.get("card_number", ""))

    shop = Commerce(
        domain=DOMAIN,
        lookup=catalog.item,
        missing="нет такой книги",
        limit=lambda item: MAX_COPIES,
        over=lambda item: f"не больше {MAX_COPIES} экземпляров",
        screens={
            "basket": "bench_books_basket",
            "favorites": "bench_books_favorites",
            "checkout": "bench_books_checkout",
            "search": "bench_books_search",
        },
        context={"catalog": catalog, "sorts": SORTS, "pay_methods": PAY_METHODS},
        suggest=catalog.suggest,
        checkout=Checkout(
            methods=PAY_METHODS,
            empty="корзина пуста — добавьте книги",
            check=check_order,
            receipt=lambda form, trajectory: {"email": form["email"]},
        ),
    )
    page, refuse = shop.page, shop.refuse

    def shown(filters: Filters) -> dict[str, Any]:
        """The filters as `apply_filter` writes them: the author by name."""
        out: dict[str, Any] = {}
        if filters.format:
            out["format"] = filters.format
        if filters.language:
            out["language"] = filters.language
        if filters.author and (author := catalog.author(filters.author)):
            out["author"] = author.name
        return out

    @router.get("/")
    async def main(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_books_main")
        return await page(
            pages,
            trajectory,
            state,
            "main.html",
            newest=catalog.newest(),
            audio=catalog.popular_audio(),
        )

    @router.get("/search")
    async def search(
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
    ) -> Response:
        query = search_query(request)
        try:
            filters, sort, refined = parse_list(request.query_params, catalog)
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)
        await shop.search_events(emit, state, query, shown(filters), sort, refined)
        if query:
            found, exact = catalog.search(query)
        else:
            found, exact = (catalog.all() if filters.author else []), True
        authors = {i.author_id for i in found}
        if filters.author:
            authors.add(filters.author)
        return await page(
            pages,
            trajectory,
            state,
            "search.html",
            query=query,
            exact=exact,
            items=arrange(found, filters, sort),
            authors=sorted(
                (a for a in catalog.authors if a.id in authors), key=lambda a: (a.last, a.first)
            ),
            filters=filters,
            sort=sort,
        )

    @router.get("/b/{item_id}")
    async def book_page(
        item_id: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
    ) -> Response:
        item = catalog.item(item_id)
        if item is None:
            return await refuse(
                request, pages, trajectory, state, Refused(404, "item_id", "нет такой книги")
            )
        await emit.screen("bench_books_item", item_id=item.id)
        return await page(
            pages,
            trajectory,
            state,
            "book.html",
            item=item,
            author=catalog.author(item.author_id),
            series=catalog.series_of(item),
            editions=catalog.editions(item),
            in_series=[i for i in catalog.in_series(item.series_id) if i.work_id != item.work_id][
                :6
            ],
        )

    shop.add_routes(router)

    assets = APIRouter()

    @assets.get("/cover/{item_id}.svg")
    async def cover(item_id: str) -> Response:
        item = catalog.item(item_id)
        author = catalog.author(item.author_id) if item else None
        if item is None or author is None:
            raise HTTPException(404, f"item_id: no book {item_id!r}")
        return svg_response(cover_svg(item, author))

    def check_page_event(event_type: str, params: dict[str, Any], _: Trajectory) -> None:
        if event_type == "select_pay_method" and params["method"] not in PAY_METHODS:
            raise FieldError("params.method", f"expected one of {sorted(PAY_METHODS)}")

    spec = SiteSpec(
        domain=DOMAIN,
        root=HERE,
        page_event_types=frozenset({"select_pay_method"}),
        check_page_event=check_page_event,
        ready=lambda: bool(catalog.all()),
    )
    return create_site_app(spec, settings, router, assets)
