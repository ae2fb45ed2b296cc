"""Книги's routes: front page, search with filters and sort, book pages (the cart,
favourites, checkout and suggestions are the kit's)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response

from services.books import service
from services.books.catalog import SORTS, Catalog, arrange, cover_svg
from services.core.errors import FieldError
from services.kit.account import check_card_number
from services.kit.catalog import item_reviews, svg_response
from services.kit.commerce import (
    SHOP_ROUTERS,
    Checkout,
    Commerce,
    CommerceDep,
    search_query,
)
from services.kit.pictures import ViewQuery
from services.kit.site import SiteDep, catalog, site_prefix

DOMAIN = "books"
router = APIRouter(prefix=site_prefix(DOMAIN))
assets = APIRouter()
CatalogDep = Annotated[Catalog, Depends(catalog)]


def make_commerce(books: Catalog) -> Commerce:
    return Commerce(
        domain=DOMAIN,
        lookup=books.item,
        unknown_item="нет такой книги",
        limit=lambda item: service.MAX_COPIES,
        over_limit=lambda item: f"не больше {service.MAX_COPIES} экземпляров",
        screens={
            "basket": "bench_books_basket",
            "favorites": "bench_books_favorites",
            "checkout": "bench_books_checkout",
            "search": "bench_books_search",
        },
        context={"catalog": books, "sorts": SORTS, "pay_methods": service.PAY_METHODS},
        suggest=books.suggest,
        checkout=Checkout(
            methods=service.PAY_METHODS,
            empty_cart="корзина пуста — добавьте книги",
            check=service.check_order,
            card=check_card_number,
            receipt=lambda form, trajectory: {"email": form["email"]},
            setup_form=service.SETUP_ORDER,
        ),
    )


@router.get("/")
async def main(site: SiteDep, books: CatalogDep) -> HTMLResponse:
    await site.emit.screen("bench_books_main")
    return await site.page("main.html", newest=books.newest(), audio=books.popular_audio())


@router.get("/search")
async def search(site: SiteDep, books: CatalogDep, commerce: CommerceDep) -> Response:
    query = search_query(site.request)
    try:
        filters, sort, list_changed = service.parse_list(site.request.query_params, books)
    except FieldError as refused:
        return await commerce.refuse(site, refused)
    params = service.filter_params(books, filters)
    await commerce.search_events(site, query, params, sort, list_changed)
    if query:
        found, exact = books.search(query)
    else:
        found, exact = (books.all() if filters.lists_all else []), True
    authors = {i.author_id for i in found}
    if filters.author:
        authors.add(filters.author)
    return await site.page(
        "search.html",
        query=query,
        exact=exact,
        items=arrange(found, filters, sort),
        authors=sorted(
            (a for a in books.authors if a.id in authors), key=lambda a: (a.last, a.first)
        ),
        filters=filters,
        sort=sort,
        counts=books.counts(found, filters),
        options=service.options(found),
        chips=service.chips(books, filters, site.request.query_params),
        **service.around(books, found),
    )


@router.get("/b/{item_id}")
async def book_page(
    item_id: str, site: SiteDep, books: CatalogDep, commerce: CommerceDep
) -> Response:
    item = books.item(item_id)
    if item is None:
        return await commerce.refuse(site, FieldError("item_id", "нет такой книги", 404))
    try:
        reviews = item_reviews(
            site.request.query_params.get("reviews"),
            books.stars(item),
            books.reviews(item),
            books.questions(item),
        )
    except FieldError as refused:
        return await commerce.refuse(site, refused)
    await site.emit.screen("bench_books_item", item_id=item.id)
    in_series = [i for i in books.in_series(item.series_id) if i.work_id != item.work_id]
    return await site.page(
        "book.html",
        item=item,
        author=books.author(item.author_id),
        series=books.series_of(item),
        editions=books.editions(item),
        in_series=in_series[:6],
        work=books.work(item),
        recommended=books.recommended(item),
        **reviews,
    )


@assets.get("/cover/{item_id}.svg")
async def cover(item_id: str, books: CatalogDep, view: ViewQuery = 1) -> Response:
    item = books.item(item_id)
    author = books.author(item.author_id) if item else None
    if item is None or author is None:
        raise FieldError("item_id", f"no book {item_id!r}", 404)
    return svg_response(cover_svg(item, author, view))


for shared in SHOP_ROUTERS:
    router.include_router(shared)
