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
from fastapi.responses import HTMLResponse, Response

from services.kit.catalog import svg_response
from services.kit.commerce import (
    Checkout,
    Commerce,
    Refused,
    card_number,
    list_events,
    search_query,
)
from services.kit.errors import FieldError
from services.kit.settings import SiteSettings
from services.kit.site import (
    EmitDep,
    PagesDep,
    SiteSpec,
    SiteState,
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
    arrange,
    image_svg,
    load_catalog,
)

DOMAIN = "shop"
HERE = Path(__file__).parent
# payment method -> caption
PAY_METHODS: dict[str, str] = {
    "card": "Банковская карта",
    "sbp": "Система быстрых платежей",
    "on_delivery": "При получении",
}
DIALOGS = frozenset({"login"})
DECLINED_CARD = "4000000000000002"  # a test card the bank always declines
LIST_KEYS = ("brand", "price_min", "price_max", "rating", "sort")


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


def check_card(form: dict[str, str], today: date) -> None:
    card_number(form.get("card_number", ""))
    match = re.fullmatch(r"\s*(\d{2})\s*/\s*(\d{2})\s*", form.get("card_expiry", ""))
    if not match or not 1 <= int(match[1]) <= 12:
        raise Refused(422, "card_expiry", "срок действия в виде ММ/ГГ")
    month, year = int(match[1]), 2000 + int(match[2])
    if (year, month) < (today.year, today.month):
        raise Refused(422, "card_expiry", "срок действия карты истёк")
    if not re.fullmatch(r"\d{3}", form.get("card_cvc", "").strip()):
        raise Refused(422, "card_cvc", "код CVC — три цифры с обратной стороны карты")
    if not re.fullmatch(r"[A-Za-z][A-Za-z .'-]{1,48}", form.get("card_holder", "").strip()):
        raise Refused(422, "card_holder", "имя владельца латиницей, как на карте")


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    def check_order(form: dict[str, str]) -> None:
        if len(form.get("address", "").strip()) < 5:
            raise Refused(422, "address", "укажите адрес доставки")
        if form.get("method") == "card":
            check_card(form, settings.stand_today())

    async def user(state: SiteState) -> dict[str, Any]:
        return {"user": (await state.get("user")).get("phone")}

    shop = Commerce(
        domain=DOMAIN,
        lookup=catalog.product,
        missing="нет такого товара",
        limit=lambda product: product.stock,
        over=lambda product: f"в наличии только {product.stock} шт.",
        screens={
            "basket": "bench_catalog_basket",
            "favorites": "bench_catalog_favorites",
            "checkout": "bench_catalog_checkout",
            "search": "bench_catalog_search",
        },
        context={"catalog": catalog, "sorts": SORTS, "pay_methods": PAY_METHODS},
        suggest=catalog.suggest,
        more=user,
        checkout=Checkout(
            methods=PAY_METHODS,
            empty="корзина пуста — добавьте товары",
            check=check_order,
            declined=lambda form: (
                form.get("method") == "card"
                and re.sub(r"\D", "", form.get("card_number", "")) == DECLINED_CARD
            ),
            receipt=lambda form, trajectory: {
                "order": f"{int(trajectory.id[:8], 16) % 900000 + 100000}"
            },
        ),
    )
    page, refuse = shop.page, shop.refuse

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
        await list_events(emit, state, f"c/{found.id}", filters.as_params(), sort, refined)
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
        query = search_query(request)
        try:
            filters, sort, refined = parse_list(request.query_params, catalog)
        except Refused as refused:
            return await refuse(request, pages, trajectory, state, refused)
        await shop.search_events(emit, state, query, filters.as_params(), sort, refined)
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
        return shop.back(trajectory, next)

    shop.add_routes(router)

    assets = APIRouter()

    @assets.get("/img/{item_id}.svg")
    async def image(item_id: str) -> Response:
        product = catalog.product(item_id)
        if product is None:
            raise HTTPException(404, f"item_id: no product {item_id!r}")
        return svg_response(image_svg(product))

    def check_page_event(event_type: str, params: dict[str, Any], _: Trajectory) -> None:
        if event_type == "select_pay_method" and params["method"] not in PAY_METHODS:
            raise FieldError("params.method", f"expected one of {sorted(PAY_METHODS)}")
        if event_type == "dialog_opened" and params["dialog"] not in DIALOGS:
            raise FieldError("params.dialog", f"expected one of {sorted(DIALOGS)}")

    spec = SiteSpec(
        domain=DOMAIN,
        root=HERE,
        page_event_types=frozenset({"dialog_opened", "select_pay_method"}),
        check_page_event=check_page_event,
        ready=lambda: bool(catalog.all()),
    )
    return create_site_app(spec, settings, router, assets)
