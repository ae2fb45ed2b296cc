"""Маркет (domain `shop`): showcase with a carousel, categories, search with suggestions,
product pages, favourites, cart with quantities, filters and sort, login dialog, checkout.

Server-written events: `state_changed` (every screen served), `submit_search` (a results
page served for the search field), `apply_filter` / `apply_sort` (a list served with a new
filter or sort), `basket_add` / `basket_remove`, `add_favorites` / `remove_favorites`,
`submit_payment`. Page-written: `dialog_opened` (the login dialog), `select_pay_method`.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

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
from services.market.catalog import (
    RATINGS,
    SORTS,
    Catalog,
    Filters,
    Product,
    arrange,
    image_svg,
    load_catalog,
)

DOMAIN = "shop"
HERE = Path(__file__).parent
CART_OPS = ("add", "inc", "dec", "remove", "set")
FAVORITE_OPS = ("add", "remove", "toggle")
# payment method -> caption
PAY_METHODS: dict[str, str] = {
    "card": "Банковская карта",
    "sbp": "Система быстрых платежей",
    "on_delivery": "При получении",
}
DIALOGS = frozenset({"login"})
DECLINED_CARD = "4000000000000002"  # a test card the bank always declines
LIST_KEYS = ("brand", "price_min", "price_max", "rating", "sort")
MAX_QUERY = 200


class Refused(Exception):
    """A request the site refuses: answered as a page or as JSON, naming the field."""

    def __init__(self, status: int, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status, self.field, self.message = status, field, message


def cart_view(catalog: Catalog, cart: dict[str, int]) -> dict[str, Any]:
    lines = [
        (product, amount)
        for item_id, amount in cart.items()
        if amount and (product := catalog.product(item_id)) is not None
    ]
    return {
        "lines": lines,
        "count": sum(amount for _, amount in lines),
        "total": sum(product.price * amount for product, amount in lines),
    }


def parse_list(query: Any, catalog: Catalog) -> tuple[Filters, str, bool]:
    """Filters and sort from the query string; `refined` when any list key was sent."""
    brands = tuple(b for b in query.getlist("brand") if b)
    known = set(catalog.all_brands())
    for brand in brands:
        if brand not in known:
            raise Refused(422, "brand", f"нет такого производителя: «{brand[:60]}»")

    def money(name: str) -> int | None:
        raw = (query.get(name) or "").strip().replace(" ", "")
        if not raw:
            return None
        if not raw.isdigit() or len(raw) > 9:
            raise Refused(422, name, "цена — целое число рублей, не меньше нуля")
        return int(raw)

    price_min, price_max = money("price_min"), money("price_max")
    if price_min is not None and price_max is not None and price_min > price_max:
        raise Refused(422, "price_max", "верхняя граница цены меньше нижней")
    rating = query.get("rating") or None
    if rating is not None and rating not in RATINGS:
        raise Refused(422, "rating", f"рейтинг — одно из: {', '.join(RATINGS)}")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise Refused(422, "sort", f"сортировка — одна из: {', '.join(SORTS)}")
    refined = any(key in query for key in LIST_KEYS)
    return Filters(tuple(dict.fromkeys(brands)), price_min, price_max, rating), sort, refined


def luhn(number: str) -> bool:
    digits = [int(d) for d in reversed(number)]
    total = sum(digits[0::2]) + sum(sum(divmod(2 * d, 10)) for d in digits[1::2])
    return total % 10 == 0


def check_card(number: str, expiry: str, cvc: str, holder: str, today: date) -> None:
    number = re.sub(r"[\s-]", "", number)
    if not re.fullmatch(r"\d{16}", number) or not luhn(number):
        raise Refused(422, "card_number", "номер карты — 16 цифр, проверьте его")
    match = re.fullmatch(r"\s*(\d{2})\s*/\s*(\d{2})\s*", expiry)
    if not match or not 1 <= int(match[1]) <= 12:
        raise Refused(422, "card_expiry", "срок действия в виде ММ/ГГ")
    month, year = int(match[1]), 2000 + int(match[2])
    if (year, month) < (today.year, today.month):
        raise Refused(422, "card_expiry", "срок действия карты истёк")
    if not re.fullmatch(r"\d{3}", cvc.strip()):
        raise Refused(422, "card_cvc", "код CVC — три цифры с обратной стороны карты")
    if not re.fullmatch(r"[A-Za-z][A-Za-z .'-]{1,48}", holder.strip()):
        raise Refused(422, "card_holder", "имя владельца латиницей, как на карте")


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
        user = (await state.get("user")).get("phone")
        return pages.render(
            trajectory,
            template,
            status_code,
            catalog=catalog,
            cart=cart,
            favorites=favorites,
            user=user,
            summary=cart_view(catalog, cart),
            sorts=SORTS,
            pay_methods=PAY_METHODS,
            **context,
        )

    def wants_json(request: Request) -> bool:
        return "application/json" in request.headers.get("accept", "")

    async def refuse(
        request: Request,
        pages: PagesDep,
        trajectory: Trajectory,
        state: StateDep,
        refused: Refused,
    ) -> Response:
        if wants_json(request):
            return JSONResponse(
                {"detail": str(refused), "field": refused.field, "message": refused.message},
                refused.status,
            )
        template = "missing.html" if refused.status == 404 else "error.html"
        return await page(pages, trajectory, state, template, refused.status, refused=refused)

    def back(trajectory: Trajectory, target: str) -> RedirectResponse:
        base = f"/t/{trajectory.id}/{DOMAIN}"
        return RedirectResponse(target if target.startswith(base + "/") else base + "/", 303)

    async def list_events(
        emit: EmitDep, state: StateDep, where: str, filters: Filters, sort: str, refined: bool
    ) -> None:
        """`apply_filter` for each filter new to this list, `apply_sort` for a new sort."""
        current: dict[str, Any] = {"where": where, "filters": filters.as_params(), "sort": sort}

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
        for key, value in current["filters"].items():
            if before.get(key) != value:
                await emit("apply_filter", filter_type=key.split(":")[0], value=value)
        if sort != previous.get("sort", "popular"):
            await emit("apply_sort", sort=sort)

    @router.get("/")
    async def main(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_catalog_main")
        return await page(
            pages,
            trajectory,
            state,
            "main.html",
            products=catalog.showcase(),
            deals=catalog.deals(),
        )

    @router.get("/c/{category_id}")
    async def category(
        category_id: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
    ) -> Response:
        found = catalog.category(category_id)
        try:
            if found is None:
                raise Refused(404, "category", "нет такого раздела")
            filters, sort, refined = parse_list(request.query_params, catalog)
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)
        await emit.screen("bench_catalog_category", category=found.id)
        await list_events(emit, state, f"c/{found.id}", filters, sort, refined)
        items = catalog.in_category(found.id)
        return await page(
            pages,
            trajectory,
            state,
            "category.html",
            category=found,
            products=arrange(items, filters, sort),
            brands=sorted({p.brand for p in items}),
            filters=filters,
            sort=sort,
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
        await emit.screen("bench_catalog_search")
        await list_events(emit, state, f"search:{query}", filters, sort, refined)
        found, exact = catalog.search(query)
        return await page(
            pages,
            trajectory,
            state,
            "search.html",
            query=query,
            exact=exact,
            products=arrange(found, filters, sort),
            brands=sorted({p.brand for p in found}),
            filters=filters,
            sort=sort,
        )

    @router.get("/suggest")
    async def suggest(trajectory: TrajectoryDep, q: str = "") -> dict[str, Any]:
        return {"suggestions": catalog.suggest(q[:MAX_QUERY])}

    @router.get("/p/{item_id}")
    async def product_page(
        item_id: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
    ) -> Response:
        product = catalog.product(item_id)
        if product is None:
            return await refuse(
                request, pages, trajectory, state, Refused(404, "item_id", "нет такого товара")
            )
        await emit.screen("bench_catalog_item", item_id=product.id)
        return await page(
            pages,
            trajectory,
            state,
            "product.html",
            product=product,
            category=catalog.category(product.category),
            similar=[p for p in catalog.in_category(product.category) if p.id != product.id][:4],
        )

    @router.get("/favorites")
    async def favorites_page(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_catalog_favorites")
        return await page(pages, trajectory, state, "favorites.html")

    @router.get("/cart")
    async def cart_page(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_catalog_basket")
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
        product = catalog.product(item_id)
        try:
            if product is None:
                raise Refused(404, "item_id", "нет такого товара")
            if op not in CART_OPS:
                raise Refused(422, "op", f"действие — одно из: {', '.join(CART_OPS)}")
            wanted: int | None = None
            if op == "set":
                raw = amount.strip()
                if not re.fullmatch(r"-?\d{1,6}", raw):
                    raise Refused(422, "amount", "количество — целое число")
                wanted = int(raw)
                if wanted < 0:
                    raise Refused(422, "amount", "количество не может быть меньше нуля")
                if wanted > product.stock:
                    raise Refused(409, "amount", f"в наличии только {product.stock} шт.")

            def apply(value: dict[str, Any]) -> tuple[int, int]:
                items = value.setdefault("items", {})
                before = int(items.get(item_id, 0))
                after = {
                    "add": before + 1,
                    "inc": before + 1,
                    "dec": max(0, before - 1),
                    "remove": 0,
                    "set": wanted or 0,
                }[op]
                if after > product.stock:
                    raise Refused(409, "amount", f"в наличии только {product.stock} шт.")
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
                item_id=product.id,
                amount=after,
                title=product.title,
                price=product.price,
            )
        if wants_json(request):
            summary = cart_view(catalog, (await state.get("cart")).get("items", {}))
            return JSONResponse(
                {
                    "item_id": item_id,
                    "amount": after,
                    "count": summary["count"],
                    "total": summary["total"],
                }
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
        product = catalog.product(item_id)
        try:
            if product is None:
                raise Refused(404, "item_id", "нет такого товара")
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
                "add_favorites" if after else "remove_favorites",
                item_id=product.id,
                title=product.title,
            )
        if wants_json(request):
            count = len((await state.get("favorites")).get("items", []))
            return JSONResponse({"item_id": item_id, "favorite": after, "count": count})
        return back(trajectory, next)

    @router.post("/login")
    async def login(
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        phone: Annotated[str, Form()] = "",
        password: Annotated[str, Form()] = "",
        next: Annotated[str, Form()] = "",
    ) -> Response:
        digits = re.sub(r"\D", "", phone)
        try:
            if not re.fullmatch(r"[78]?\d{10}", digits):
                raise Refused(422, "phone", "телефон — 10 цифр после +7")
            if not 4 <= len(password) <= 64:
                raise Refused(422, "password", "пароль — от 4 до 64 символов")
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)
        shown = f"+7 {digits[-10:-7]} {digits[-7:-4]}-{digits[-4:-2]}-{digits[-2:]}"
        await state.update("user", lambda value: value.update(phone=shown))
        return back(trajectory, next)

    @router.get("/checkout")
    async def checkout(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_catalog_checkout")
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
        cart = (await state.get("cart")).get("items", {})
        total = cart_view(catalog, cart)["total"]
        try:
            if not total:
                raise Refused(409, "cart", "корзина пуста — добавьте товары")
            if method not in PAY_METHODS:
                raise Refused(422, "method", "выберите способ оплаты")
            if len(form.get("address", "").strip()) < 5:
                raise Refused(422, "address", "укажите адрес доставки")
            if method == "card":
                check_card(
                    form.get("card_number", ""),
                    form.get("card_expiry", ""),
                    form.get("card_cvc", ""),
                    form.get("card_holder", ""),
                    settings.stand_today(),
                )
        except Refused as refused:
            if wants_json(request) or refused.status == 409:
                return await refuse(request, pages, trajectory, state, refused)
            return await page(
                pages, trajectory, state, "checkout.html", refused.status, form=form, error=refused
            )
        number = re.sub(r"\D", "", form.get("card_number", ""))
        result = "declined" if method == "card" and number == DECLINED_CARD else "success"
        await emit("submit_payment", method=method, result=result, amount=total)
        if result != "success":
            declined = Refused(402, "card_number", "банк отклонил платёж — попробуйте другую карту")
            return await page(
                pages, trajectory, state, "checkout.html", 402, form=form, error=declined
            )
        order = f"{int(trajectory.id[:8], 16) % 900000 + 100000}"
        await state.update("cart", lambda value: value.update(items={}))
        return await page(
            pages, trajectory, state, "done.html", order=order, paid=total, method=method
        )

    assets = APIRouter()

    @assets.get("/img/{item_id}.svg")
    async def image(item_id: str) -> Response:
        product: Product | None = catalog.product(item_id)
        if product is None:
            raise HTTPException(404, f"item_id: no product {item_id!r}")
        return Response(
            image_svg(product),
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    def check_page_event(event_type: str, params: dict[str, Any]) -> None:
        if event_type == "select_pay_method" and params["method"] not in PAY_METHODS:
            raise ContractError("params.method", f"expected one of {sorted(PAY_METHODS)}")
        if event_type == "dialog_opened" and params["dialog"] not in DIALOGS:
            raise ContractError("params.dialog", f"expected one of {sorted(DIALOGS)}")

    spec = SiteSpec(
        domain=DOMAIN,
        root=HERE,
        page_event_types=frozenset({"dialog_opened", "select_pay_method"}),
        check_page_event=check_page_event,
        ready=lambda: bool(catalog.all()),
    )
    return create_site_app(spec, settings, router, assets)
