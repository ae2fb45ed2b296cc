"""What the shops share (grocery, shop, books): the cart, favourites and checkout routes,
the page render that adds the cart summary, refusals answered as a page or as JSON, and the
`apply_filter` / `apply_sort` of a list. A site builds one `Commerce` with its catalog
lookup, screen names, limits and templates and calls `add_routes(router)`.

Routes (under the site prefix):
- `GET /cart`, `POST /cart/{item_id}` (`op`: add, inc, dec, remove, set with `amount`;
  `next`: where to go back) — `basket_add` / `basket_remove` with the resulting amount;
- with a `favorites` screen: `GET /favorites`, `POST /favorites/{item_id}` (`op`: add,
  remove, toggle) — `add_favorites` / `remove_favorites`;
- with a `Checkout`: `GET /checkout`, `POST /checkout` — `submit_payment`;
- with `suggest`: `GET /suggest?q=` — the search field's suggestions as JSON.

A POST with `Accept: application/json` (the page's `/_kit/commerce.js`) gets JSON; a plain form
post is redirected back to `next` (303). Refusals name the field: JSON
`{"detail", "field", "message"}` or the site's `missing.html` (404) / `error.html` page.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from services.kit.site import EmitDep, Emitter, Pages, PagesDep, SiteState, StateDep, TrajectoryDep
from services.kit.trajectory import Trajectory

CART_OPS = ("add", "inc", "dec", "remove", "set")
FAVORITE_OPS = ("add", "remove", "toggle")
MAX_QUERY = 200  # a search query is cut to this many characters
DECLINED = "банк отклонил платёж — попробуйте другую карту"


class Goods(Protocol):
    """What a shop sells: the fields the cart events carry."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def price(self) -> int: ...


class Refused(Exception):
    """A request the site refuses: answered as a page or as JSON, naming the field."""

    def __init__(self, status: int, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status, self.field, self.message = status, field, message


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def search_query(request: Request) -> str:
    """The search field's text: white space folded, cut to `MAX_QUERY` characters."""
    return " ".join((request.query_params.get("q") or "").split())[:MAX_QUERY]


def luhn(number: str) -> bool:
    digits = [int(d) for d in reversed(number)]
    return (sum(digits[0::2]) + sum(sum(divmod(2 * d, 10)) for d in digits[1::2])) % 10 == 0


def card_number(raw: str) -> str:
    """The card number without spaces and dashes; refused unless 16 digits passing Luhn."""
    number = re.sub(r"[\s-]", "", raw)
    if not re.fullmatch(r"\d{16}", number) or not luhn(number):
        raise Refused(422, "card_number", "номер карты — 16 цифр, проверьте его")
    return number


async def list_events(
    emit: Emitter,
    state: SiteState,
    where: str,
    shown: dict[str, Any],
    sort: str,
    refined: bool,
) -> None:
    """`apply_filter` for each filter new to this list, `apply_sort` for a new sort.

    `shown` maps a filter key to the value `apply_filter` writes; the filter type is the
    key up to a `:` (so one key a brand: `brand:Ярогор`). The list's last filters and sort
    are kept in the `list` state; a list of another `where` starts afresh."""
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
            await emit("apply_filter", filter_type=key.split(":")[0], value=value)
    if sort != previous.get("sort", "popular"):
        await emit("apply_sort", sort=sort)


@dataclass(frozen=True)
class Checkout:
    """A shop's checkout: its payment methods and what it checks beyond them."""

    methods: dict[str, str]  # method -> caption
    empty: str  # why an empty cart cannot be paid
    check: Callable[[dict[str, str]], None]  # the site's own fields; raises Refused
    receipt: Callable[[dict[str, str], Trajectory], dict[str, Any]]  # extra done.html context
    declined: Callable[[dict[str, str]], bool] = lambda form: False  # the bank says no


@dataclass
class Commerce:
    domain: str
    lookup: Callable[[str], Goods | None]  # an item by id
    missing: str  # the 404 message for an unknown item id
    limit: Callable[[Any], int]  # the most units of an item one cart may hold
    over: Callable[[Any], str]  # why more than `limit` is refused
    screens: dict[str, str]  # "basket" (and "favorites", "checkout", "search") -> `new_state`
    context: dict[str, Any] = field(default_factory=dict)  # for every page
    more: Callable[[SiteState], Awaitable[dict[str, Any]]] | None = None  # per-request context
    checkout: Checkout | None = None
    suggest: Callable[[str], list[dict[str, str]]] | None = None  # GET /suggest?q=

    def cart_view(self, cart: dict[str, int]) -> dict[str, Any]:
        lines = [
            (item, amount)
            for item_id, amount in cart.items()
            if amount and (item := self.lookup(item_id)) is not None
        ]
        return {
            "lines": lines,
            "count": sum(amount for _, amount in lines),
            "total": sum(item.price * amount for item, amount in lines),
        }

    async def page(
        self,
        pages: Pages,
        trajectory: Trajectory,
        state: SiteState,
        template: str,
        status_code: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        """A page with the cart (`cart`, `summary`) and, where kept, the `favorites`."""
        cart = (await state.get("cart")).get("items", {})
        common: dict[str, Any] = {"cart": cart, "summary": self.cart_view(cart)}
        if "favorites" in self.screens:
            common["favorites"] = (await state.get("favorites")).get("items", [])
        if self.more is not None:
            common |= await self.more(state)
        return pages.render(trajectory, template, status_code, **self.context, **common, **context)

    async def refuse(
        self,
        request: Request,
        pages: Pages,
        trajectory: Trajectory,
        state: SiteState,
        refused: Refused,
    ) -> Response:
        if wants_json(request):
            return JSONResponse(
                {"detail": str(refused), "field": refused.field, "message": refused.message},
                refused.status,
            )
        template = "missing.html" if refused.status == 404 else "error.html"
        return await self.page(pages, trajectory, state, template, refused.status, refused=refused)

    def back(self, trajectory: Trajectory, target: str) -> RedirectResponse:
        """Back to `target` when it is a page of this site and trajectory, else home."""
        base = f"/t/{trajectory.id}/{self.domain}"
        return RedirectResponse(target if target.startswith(base + "/") else base + "/", 303)

    async def search_events(
        self,
        emit: Emitter,
        state: SiteState,
        query: str,
        shown: dict[str, Any],
        sort: str,
        refined: bool,
    ) -> None:
        """A results page served: `submit_search` when it came from the search field (no
        list key sent), the `search` screen, then the list's `list_events`."""
        if not refined:
            widget = emit.trajectory.variant(self.domain, "text_search") or "standard"
            await emit("submit_search", value=query, widget=widget)
        await emit.screen(self.screens["search"])
        await list_events(emit, state, f"search:{query}", shown, sort, refined)

    def find(self, item_id: str) -> Goods:
        item = self.lookup(item_id)
        if item is None:
            raise Refused(404, "item_id", self.missing)
        return item

    def add_routes(self, router: APIRouter) -> None:
        self._cart_routes(router)
        if "favorites" in self.screens:
            self._favorite_routes(router)
        if self.checkout is not None:
            self._checkout_routes(router, self.checkout)
        if self.suggest is not None:
            suggest = self.suggest

            @router.get("/suggest")
            async def suggestions(trajectory: TrajectoryDep, q: str = "") -> dict[str, Any]:
                return {"suggestions": suggest(q[:MAX_QUERY])}

    def _cart_routes(self, router: APIRouter) -> None:
        @router.get("/cart")
        async def cart_page(
            pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
        ) -> HTMLResponse:
            await emit.screen(self.screens["basket"])
            return await self.page(pages, trajectory, state, "cart.html")

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
            try:
                item = self.find(item_id)
                if op not in CART_OPS:
                    raise Refused(422, "op", f"действие — одно из: {', '.join(CART_OPS)}")
                wanted = 0
                if op == "set":
                    if not re.fullmatch(r"-?\d{1,6}", amount.strip()):
                        raise Refused(422, "amount", "количество — целое число")
                    wanted = int(amount.strip())
                    if wanted < 0:
                        raise Refused(422, "amount", "количество не может быть меньше нуля")

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
                    if after > self.limit(item):
                        raise Refused(409, "stock", self.over(item))
                    if after:
                        items[item_id] = after
                    else:
                        items.pop(item_id, None)
                    return before, after

                before, after = await state.update("cart", apply)
            except Refused as refused:
                return await self.refuse(request, pages, trajectory, state, refused)
            if after != before:
                await emit(
                    "basket_add" if after > before else "basket_remove",
                    item_id=item.id,
                    amount=after,
                    title=item.title,
                    price=item.price,
                )
            if wants_json(request):
                summary = self.cart_view((await state.get("cart")).get("items", {}))
                return JSONResponse(
                    {"item_id": item_id, "amount": after}
                    | {"count": summary["count"], "total": summary["total"]}
                )
            return self.back(trajectory, next)

    def _favorite_routes(self, router: APIRouter) -> None:
        @router.get("/favorites")
        async def favorites_page(
            pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
        ) -> HTMLResponse:
            await emit.screen(self.screens["favorites"])
            return await self.page(pages, trajectory, state, "favorites.html")

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
            try:
                item = self.find(item_id)
                if op not in FAVORITE_OPS:
                    raise Refused(422, "op", f"действие — одно из: {', '.join(FAVORITE_OPS)}")
            except Refused as refused:
                return await self.refuse(request, pages, trajectory, state, refused)

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
                    item_id=item.id,
                    title=item.title,
                )
            if wants_json(request):
                count = len((await state.get("favorites")).get("items", []))
                return JSONResponse({"item_id": item_id, "favorite": after, "count": count})
            return self.back(trajectory, next)

    def _checkout_routes(self, router: APIRouter, checkout: Checkout) -> None:
        @router.get("/checkout")
        async def checkout_page(
            pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
        ) -> HTMLResponse:
            await emit.screen(self.screens["checkout"])
            return await self.page(pages, trajectory, state, "checkout.html", form={})

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
            summary = self.cart_view((await state.get("cart")).get("items", {}))
            total = summary["total"]
            try:
                if not total:
                    raise Refused(409, "cart", checkout.empty)
                if method not in checkout.methods:
                    raise Refused(422, "method", "выберите способ оплаты")
                checkout.check(form)
            except Refused as refused:
                if wants_json(request) or refused.status == 409:
                    return await self.refuse(request, pages, trajectory, state, refused)
                return await self.page(
                    pages,
                    trajectory,
                    state,
                    "checkout.html",
                    refused.status,
                    form=form,
                    error=refused,
                )
            declined = checkout.declined(form)
            result = "declined" if declined else "success"
            await emit(
                "submit_payment",
                method=method,
                result=result,
                amount=total,
                item_ids=[item.id for item, _ in summary["lines"]],
            )
            if declined:
                error = Refused(
                    402, "card_number", "банк отклонил платёж — попробуйте другую карту"
                )
                return await self.page(
                    pages, trajectory, state, "checkout.html", 402, form=form, error=error
                )
            await state.update("cart", lambda value: value.update(items={}))
            return await self.page(
                pages,
                trajectory,
                state,
                "done.html",
                paid=total,
                method=method,
                **checkout.receipt(form, trajectory),
            )
