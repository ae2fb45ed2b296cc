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
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from services.books.catalog import SORTS, Catalog, Filters, arrange, cover_svg, load_catalog
from services.kit.contract import ContractError
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
CART_OPS = ("add", "inc", "dec", "remove", "set")
FAVORITE_OPS = ("add", "remove", "toggle")
PAY_METHODS: dict[str, str] = {"card": "Банковская карта", "sbp": "Система быстрых платежей"}
LIST_KEYS = ("format", "language", "author", "sort")
MAX_QUERY = 200
MAX_COPIES = 10  # e-books and audiobooks: at most ten copies (gifts) of one item


class Refused(Exception):
    def __init__(self, status: int, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status, self.field, self.message = status, field, message


def cart_view(catalog: Catalog, cart: dict[str, int]) -> dict[str, Any]:
    lines = [
        (item, amount)
        for item_id, amount in cart.items()
        if amount and (item := catalog.item(item_id)) is not None
    ]
    return {
        "lines": lines,
        "count": sum(amount for _, amount in lines),
        "total": sum(item.price * amount for item, amount in lines),
    }


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


def luhn(number: str) -> bool:
    digits = [int(d) for d in reversed(number)]
    return (sum(digits[0::2]) + sum(sum(divmod(2 * d, 10)) for d in digits[1::2])) % 10 == 0


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    async def page(
        pages: PagesDep,
        trajectory: Trajectory,
        state: StateDep,
        template: str,
        status_code: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        cart = (await state.get("cart")).get("items", {})
        favorites = (await state.get("favorites")).get("items", [])
        return pages.render(
            trajectory,
            template,
            status_code,
            catalog=catalog,
            cart=cart,
            favorites=favorites,
            summary=cart_view(catalog, cart),
            sorts=SORTS,
            pay_methods=PAY_METHODS,
            **context,
        )

    def wants_json(request: Request) -> bool:
        return "application/json" in request.headers.get("accept", "")

    async def refuse(
        request: Request, pages: PagesDep, trajectory: Trajectory, state: StateDep, err: Refused
    ) -> Response:
        if wants_json(request):
            return JSONResponse(
                {"detail": str(err), "field": err.field, "message": err.message}, err.status
            )
        template = "missing.html" if err.status == 404 else "error.html"
        return await page(pages, trajectory, state, template, err.status, refused=err)

    def back(trajectory: Trajectory, target: str) -> RedirectResponse:
        base = f"/t/{trajectory.id}/{DOMAIN}"
        return RedirectResponse(target if target.startswith(base + "/") else base + "/", 303)

    async def list_events(
        emit: EmitDep, state: StateDep, where: str, filters: Filters, sort: str, refined: bool
    ) -> None:
        """`apply_filter` for each filter new to this list, `apply_sort` for a new sort."""
        shown: dict[str, Any] = {}
        if filters.format:
            shown["format"] = filters.format
        if filters.language:
            shown["language"] = filters.language
        if filters.author and (author := catalog.author(filters.author)):
            shown["author"] = author.name
        current: dict[str, Any] = {"where": where, "filters": shown, "sort": sort}

        def swap(value: dict[str, Any]) -> dict[str, Any]:
            previous = dict(value)
            value.clear()
            value.update(current)
            return previous

        previous = await state.update("list", swap)
        if previous.get("where") != where:
            previous = {}
        if not refined:
            return
        before = previous.get("filters", {})
        for key, value in shown.items():
            if before.get(key) != value:
                await emit("apply_filter", filter_type=key, value=value)
        if sort != previous.get("sort", "popular"):
            await emit("apply_sort", sort=sort)

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
        query = " ".join((request.query_params.get("q") or "").split())[:MAX_QUERY]
        try:
            filters, sort, refined = parse_list(request.query_params, catalog)
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)
        if not refined:
            widget = trajectory.variant(DOMAIN, "text_search") or "standard"
            await emit("submit_search", value=query, widget=widget)
        await emit.screen("bench_books_search")
        await list_events(emit, state, f"search:{query}", filters, sort, refined)
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

    @router.get("/suggest")
    async def suggest(trajectory: TrajectoryDep, q: str = "") -> dict[str, Any]:
        return {"suggestions": catalog.suggest(q[:MAX_QUERY])}

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

    @router.get("/favorites")
    async def favorites_page(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_books_favorites")
        return await page(pages, trajectory, state, "favorites.html")

    @router.get("/cart")
    async def cart_page(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_books_basket")
        return await page(pages, trajectory, state, "cart.html")

    @router.post("/cart/{item_id}")
    async def change_cart(
        item_id: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
        op: Annotated[str, Form()] = "",
        amount: Annotated[str, Form()] = "",
        next: Annotated[str, Form()] = "",
    ) -> Response:
        item = catalog.item(item_id)
        try:
            if item is None:
                raise Refused(404, "item_id", "нет такой книги")
            if op not in CART_OPS:
                raise Refused(422, "op", f"действие — одно из: {', '.join(CART_OPS)}")
            wanted = 0
            if op == "set":
                if not re.fullmatch(r"-?\d{1,6}", amount.strip()):
                    raise Refused(422, "amount", "количество — целое число")
                wanted = int(amount.strip())
                if wanted < 0:
                    raise Refused(422, "amount", "количество не может быть меньше нуля")
                if wanted > MAX_COPIES:
                    raise Refused(409, "amount", f"не больше {MAX_COPIES} экземпляров")

            def apply(value: dict[str, Any]) -> tuple[int, int]:
                items = value.setdefault("items", {})
                before = int(items.get(item_id, 0))
                after = {
                    "add": before + 1,
                    "inc": before + 1,
                    "dec": max(0, before - 1),
                    "remove": 0,
                    "set": wanted,
                }[op]
                if after > MAX_COPIES:
                    raise Refused(409, "amount", f"не больше {MAX_COPIES} экземпляров")
                if after:
                    items[item_id] = after
                else:
                    items.pop(item_id, None)
                return before, after

            before, after = await state.update("cart", apply)
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)
        if after != before:
            await emit(
                "basket_add" if after > before else "basket_remove",
                item_id=item.id,
                amount=after,
                title=item.title,
                price=item.price,
            )
        if wants_json(request):
            summary = cart_view(catalog, (await state.get("cart")).get("items", {}))
            return JSONResponse(
                {"item_id": item_id, "amount": after, "count": summary["count"]}
                | {"total": summary["total"]}
            )
        return back(trajectory, next)

    @router.post("/favorites/{item_id}")
    async def change_favorites(
        item_id: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
        op: Annotated[str, Form()] = "toggle",
        next: Annotated[str, Form()] = "",
    ) -> Response:
        item = catalog.item(item_id)
        try:
            if item is None:
                raise Refused(404, "item_id", "нет такой книги")
            if op not in FAVORITE_OPS:
                raise Refused(422, "op", f"действие — одно из: {', '.join(FAVORITE_OPS)}")
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)

        def apply(value: dict[str, Any]) -> tuple[bool, bool]:
            items: list[str] = value.setdefault("items", [])
            before = item_id in items
            after = {"add": True, "remove": False, "toggle": not before}[op]
            if after and not before:
                items.append(item_id)
            elif before and not after:
                items.remove(item_id)
            return before, after

        before, after = await state.update("favorites", apply)
        if after != before:
            await emit(
                "add_favorites" if after else "remove_favorites", item_id=item.id, title=item.title
            )
        if wants_json(request):
            count = len((await state.get("favorites")).get("items", []))
            return JSONResponse({"item_id": item_id, "favorite": after, "count": count})
        return back(trajectory, next)

    @router.get("/checkout")
    async def checkout(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_books_checkout")
        return await page(pages, trajectory, state, "checkout.html", form={})

    @router.post("/checkout")
    async def pay(
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
    ) -> Response:
        form = {k: str(v)[:200] for k, v in (await request.form()).items()}
        method = form.get("method", "")
        total = cart_view(catalog, (await state.get("cart")).get("items", {}))["total"]
        try:
            if not total:
                raise Refused(409, "cart", "корзина пуста — добавьте книги")
            if method not in PAY_METHODS:
                raise Refused(422, "method", "выберите способ оплаты")
            if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", form.get("email", "").strip()):
                raise Refused(422, "email", "укажите почту, на неё придёт ссылка на книги")
            number = re.sub(r"[\s-]", "", form.get("card_number", ""))
            if method == "card" and (not re.fullmatch(r"\d{16}", number) or not luhn(number)):
                raise Refused(422, "card_number", "номер карты — 16 цифр, проверьте его")
        except Refused as refused:
            if wants_json(request) or refused.status == 409:
                return await refuse(request, pages, trajectory, state, refused)
            return await page(
                pages, trajectory, state, "checkout.html", refused.status, form=form, error=refused
            )
        await emit("submit_payment", method=method, result="success", amount=total)
        await state.update("cart", lambda value: value.update(items={}))
        return await page(pages, trajectory, state, "done.html", paid=total, email=form["email"])

    assets = APIRouter()

    @assets.get("/cover/{item_id}.svg")
    async def cover(item_id: str) -> Response:
        item = catalog.item(item_id)
        author = catalog.author(item.author_id) if item else None
        if item is None or author is None:
            raise HTTPException(404, f"item_id: no book {item_id!r}")
        return Response(
            cover_svg(item, author),
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    def check_page_event(event_type: str, params: dict[str, Any]) -> None:
        if event_type == "select_pay_method" and params["method"] not in PAY_METHODS:
            raise ContractError("params.method", f"expected one of {sorted(PAY_METHODS)}")

    spec = SiteSpec(
        domain=DOMAIN,
        root=HERE,
        page_event_types=frozenset({"select_pay_method"}),
        check_page_event=check_page_event,
        ready=lambda: bool(catalog.all()),
    )
    return create_site_app(spec, settings, router, assets)
