"""What the shops share (grocery, shop, books): the cart, favourites and checkout routes,
the page context that adds the cart summary, refusals answered as a page or as JSON, and the
`apply_filter` / `apply_sort` of a list. A site builds one `Commerce` with its catalog
lookup, screen names, limits and templates; its router includes the shared routers it
offers (`cart_router`, and with the matching settings `favorites_router`, `checkout_router`,
`suggest_router`; `SHOP_ROUTERS` holds all four); it passes `commerce.page_context` in its
`SiteSpec` and the `Commerce` to `create_site_app`.

Routes (under the site prefix):
- `GET /cart`, `POST /cart/{item_id}` (`op`: add, inc, dec, remove, set with `amount`;
  `next`: where to go back) — `basket_add` / `basket_remove` with the resulting amount;
- `POST /cart/select` (`item_id` repeated: the lines to order, the others unselected; `all`
  set: every line; `next`) — no event: the checkout pays the selected lines only and leaves
  the others in the cart (a line added or changed is selected again; every line is selected
  until a person unselects one);
- with a `favorites` screen: `GET /favorites`, `POST /favorites/{item_id}` (`op`: add,
  remove, toggle) — `add_favorites` / `remove_favorites`;
- with a `Checkout`: `GET /checkout`, `POST /checkout/method` (`method`) —
  `select_pay_method`, `POST /checkout` — `submit_payment` for the selected lines (the
  form's other fields, such as delivery, date, comment, are the site's to check or ignore);
  under `payment=bank` a card is paid on the bank's page instead (services/kit/bank.py):
  `POST /checkout` keeps the order and redirects to `GET /checkout/bank`, whose
  `POST /checkout/bank` (`card_number`, `card_expiry`, `card_cvc`) writes `submit_payment`;
- with `suggest`: `GET /suggest?q=` — the search field's suggestions as JSON.

A POST with `Accept: application/json` (the page's `/_kit/commerce.js`) gets JSON; a plain form
post is redirected back to `next` (303). Refusals name the field: JSON
`{"detail", "field", "message"}` or the site's `missing.html` (404) / `error.html` page.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

# FastAPI (pydantic) reads `Suggestions`, and wants typing_extensions' before Python 3.12.
from typing_extensions import TypedDict

from services.core.errors import FieldError
from services.core.models.events import Parameters
from services.kit import bank
from services.kit import cart as carts
from services.kit.cart import CART, Cart
from services.kit.catalog import FilterParams
from services.kit.replay import Replay, Step
from services.kit.site import Context, SiteDep, SiteRequest, Slot, replace
from services.kit.trajectory import Trajectory

CART_OPS = ("add", "inc", "dec", "remove", "set")
FAVORITE_OPS = ("add", "remove", "toggle")
MAX_QUERY = 200  # a search query is cut to this many characters


class Goods(Protocol):
    """What a shop sells: the fields the cart events carry."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def price(self) -> int: ...


class ListState(TypedDict, total=False):
    """The `list` state: the last list served (`where`), its filters and sort."""

    where: str
    filters: FilterParams
    sort: str


class FavoritesState(TypedDict, total=False):
    """The `favorites` state: the item ids, in the order they were added."""

    items: list[str]


class CheckoutState(TypedDict, total=False):
    """The `checkout` state: the payment method chosen."""

    method: str


LIST: Slot[ListState] = Slot("list")
FAVORITES: Slot[FavoritesState] = Slot("favorites")
CHECKOUT: Slot[CheckoutState] = Slot("checkout")


class CartView(TypedDict):
    """The cart as its page and every page's summary show it: every line, and the lines
    selected to be ordered (what the checkout pays)."""

    lines: list[tuple[Goods, int]]  # (catalog item, amount)
    count: int
    total: int
    selected: list[str]  # item ids
    selected_lines: list[tuple[Goods, int]]
    selected_count: int
    selected_total: int


class Suggestions(TypedDict):
    """What `GET /suggest` answers: the search field's suggestions."""

    suggestions: list[dict[str, str]]


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def search_query(request: Request) -> str:
    """The search field's text: white space folded, cut to `MAX_QUERY` characters."""
    return " ".join((request.query_params.get("q") or "").split())[:MAX_QUERY]


async def list_events(
    site: SiteRequest,
    where: str,
    filter_params: FilterParams,
    sort: str,
    list_changed: bool,
) -> None:
    """`apply_filter` for each filter new to this list, `apply_sort` for a new sort.

    `filter_params` maps a filter key to the value `apply_filter` writes; the filter type is
    the key up to a `:` (so one key a brand: `brand:Ярогор`). `list_changed`: the request
    sent a list key (a filter or sort form), not only opened the list. The list's last
    filters and sort are kept in the `list` state; a list of another `where` starts afresh."""
    current: ListState = {"where": where, "filters": filter_params, "sort": sort}

    def swap(value: ListState) -> ListState:
        previous = value.copy()
        replace(value, current)
        return previous

    previous = await site.state.update(LIST, swap)
    if previous.get("where") != where:
        previous = {}
    if not list_changed:
        return
    before = previous.get("filters", {})
    for key, value in filter_params.items():
        if before.get(key) != value:
            await site.emit("apply_filter", filter_type=key.split(":")[0], value=value)
    if sort != previous.get("sort", "popular"):
        await site.emit("apply_sort", sort=sort)


async def nothing() -> dict[str, Any]:
    """An empty context, read from nowhere (one of `page_context`'s reads not taken)."""
    return {}


@dataclass(frozen=True)
class Checkout:
    """A shop's checkout: its payment methods and what it checks beyond them."""

    methods: dict[str, str]  # method -> caption
    empty_cart: str  # why an empty cart cannot be paid
    check: Callable[[dict[str, str]], None]  # the site's own fields; raises FieldError
    receipt: Callable[[dict[str, str], Trajectory], Context]  # extra done.html context
    declined: Callable[[dict[str, str]], bool] = lambda form: False  # the bank says no
    # The card's fields of the site's own form (`payment=form`), for a card; raises FieldError.
    card: Callable[[dict[str, str]], None] = lambda form: None
    # The fields a start state's payment is replayed with (the method is the event's).
    setup_form: dict[str, str] = field(default_factory=dict)


@dataclass
class Commerce:
    domain: str
    lookup: Callable[[str], Goods | None]  # an item by id
    unknown_item: str  # the 404 message for an unknown item id
    limit: Callable[[Any], int]  # the most units of an item one cart may hold
    over_limit: Callable[[Any], str]  # why more than `limit` is refused
    screens: dict[str, str]  # "basket" (and "favorites", "checkout", "search") -> `new_state`
    context: Context = field(default_factory=dict)  # for every page
    # What every page shows besides, read per request (the logged-in user).
    request_context: Callable[[SiteRequest], Awaitable[Context]] | None = None
    checkout: Checkout | None = None
    suggest: Callable[[str], list[dict[str, str]]] | None = None  # GET /suggest?q=

    def cart_view(self, cart: Cart) -> CartView:
        """The cart's lines as (catalog item, amount) for its page, its count and total."""
        shown = [
            (item, int(line["amount"]))
            for item_id, line in carts.lines(cart).items()
            if (item := self.lookup(item_id)) is not None
        ]
        chosen = carts.selected(cart)
        chosen_count, chosen_total = carts.summed(chosen)
        return {
            "lines": shown,
            "count": carts.count(cart),
            "total": carts.total(cart),
            "selected": list(chosen),
            "selected_lines": [(item, amount) for item, amount in shown if item.id in chosen],
            "selected_count": chosen_count,
            "selected_total": chosen_total,
        }

    async def page_context(self, site: SiteRequest) -> Context:
        """What every page of the shop shows: the cart (`cart`: each item's amount,
        `summary`), the `orders` paid in this trajectory and, where kept, the `favorites`
        (the site's `SiteSpec.page_context`)."""
        kept = "favorites" in self.screens
        cart, favorites, extra = await asyncio.gather(
            site.state.get(CART),
            site.state.get(FAVORITES) if kept else nothing(),
            self.request_context(site) if self.request_context else nothing(),
        )
        common: Context = {
            **self.context,
            "cart": carts.amounts(cart),
            "summary": self.cart_view(cart),
            "orders": carts.orders(cart),
            **extra,
        }
        if kept:
            common["favorites"] = favorites.get("items", [])
        return common

    async def refuse(self, site: SiteRequest, refused: FieldError) -> Response:
        if wants_json(site.request):
            return JSONResponse(
                {"detail": str(refused), "field": refused.field, "message": refused.message},
                refused.status,
            )
        template = "missing.html" if refused.status == 404 else "error.html"
        return await site.page(template, refused.status, refused=refused)

    async def search_events(
        self,
        site: SiteRequest,
        query: str,
        filter_params: FilterParams,
        sort: str,
        list_changed: bool,
    ) -> None:
        """A results page served: `submit_search` when it came from the search field (no
        list key sent), the `search` screen, then the list's `list_events`."""
        if not list_changed:
            widget = site.trajectory.variant(self.domain, "text_search") or "standard"
            await site.emit("submit_search", value=query, widget=widget)
        await site.emit.screen(self.screens["search"])
        await list_events(site, f"search:{query}", filter_params, sort, list_changed)

    def find(self, item_id: str) -> Goods:
        item = self.lookup(item_id)
        if item is None:
            raise FieldError("item_id", self.unknown_item, 404)
        return item

    def replay(self) -> Replay:
        """What a start state may hold on this shop (services/kit/replay.py): cart lines,
        and with its screens favourites, a payment method and a payment made."""
        steps = {"basket_add": Step(self._check_line, self._replay_line)}
        if "favorites" in self.screens:
            steps["add_favorites"] = Step(self._check_item, self._replay_favorite)
        if self.checkout is not None:
            steps["select_pay_method"] = Step(self._check_method, self._replay_method)
            steps["submit_payment"] = Step(self._check_payment, self._replay_payment)
        paths = {"basket": "/cart", "favorites": "/favorites", "checkout": "/checkout"}
        screens = {
            state: paths[screen] for screen, state in self.screens.items() if screen in paths
        }
        return Replay(self.domain, steps, screens)

    def _check_item(self, params: Parameters) -> None:
        item_id = params.get("item_id")
        if not isinstance(item_id, str) or self.lookup(item_id) is None:
            raise FieldError("parameters.item_id", f"{self.unknown_item}: {item_id!r}")

    def _check_line(self, params: Parameters) -> None:
        self._check_item(params)
        amount = params.setdefault("amount", 1)
        item = self.find(params["item_id"])
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
            raise FieldError("parameters.amount", "a whole number of units, at least 1")
        if amount > self.limit(item):
            raise FieldError("parameters.amount", self.over_limit(item))

    async def _replay_line(self, site: SiteRequest, params: Parameters) -> None:
        await change_line(site, self, self.find(params["item_id"]), "set", params["amount"])

    async def _replay_favorite(self, site: SiteRequest, params: Parameters) -> None:
        await change_favorite(site, self.find(params["item_id"]), "add")

    def _check_method(self, params: Parameters) -> None:
        assert self.checkout is not None
        if params.get("method") not in self.checkout.methods:
            methods = ", ".join(self.checkout.methods)
            raise FieldError("parameters.method", f"expected one of {methods}")

    async def _replay_method(self, site: SiteRequest, params: Parameters) -> None:
        assert self.checkout is not None
        await choose_pay_method(site, self.checkout.methods, params["method"])

    def _check_payment(self, params: Parameters) -> None:
        self._check_method(params)
        if params.setdefault("result", "success") != "success":
            raise FieldError("parameters.result", "only a successful payment is replayed")

    async def _replay_payment(self, site: SiteRequest, params: Parameters) -> None:
        assert self.checkout is not None
        form = {**self.checkout.setup_form, "method": params["method"]}
        await place_payment(site, self.checkout, form)


def redirect_back(site: SiteRequest, target: str) -> RedirectResponse:
    """Back to `target` when it is a page of this site and trajectory, else its home."""
    return RedirectResponse(target if target.startswith(site.base + "/") else site.base + "/", 303)


async def commerce(request: Request) -> Commerce:
    return request.app.state.commerce  # type: ignore[no-any-return]


CommerceDep = Annotated[Commerce, Depends(commerce)]


def cart_amount(before: int, op: str, wanted: int) -> int:
    """A cart line's amount after `op` (add, inc, dec, remove, set to `wanted`)."""
    return {
        "add": before + 1,
        "inc": before + 1,
        "dec": max(0, before - 1),
        "remove": 0,
        "set": wanted,
    }[op]


def parse_cart_change(op: str, amount: str) -> int:
    """The `set` amount of a cart change (0 for the other ops); refused with the field."""
    if op not in CART_OPS:
        raise FieldError("op", f"действие — одно из: {', '.join(CART_OPS)}")
    if op != "set":
        return 0
    if not re.fullmatch(r"-?[0-9]{1,6}", amount.strip()):
        raise FieldError("amount", "количество — целое число")
    wanted = int(amount.strip())
    if wanted < 0:
        raise FieldError("amount", "количество не может быть меньше нуля")
    return wanted


def favorite_after(before: bool, op: str) -> bool:
    return {"add": True, "remove": False, "toggle": not before}[op]


# -- the shared routes (included under the site's prefix) --------------------------------

cart_router = APIRouter()
favorites_router = APIRouter()
checkout_router = APIRouter()
suggest_router = APIRouter()


@cart_router.get("/cart")
async def cart_page(site: SiteDep, shop: CommerceDep) -> HTMLResponse:
    await site.emit.screen(shop.screens["basket"])
    return await site.page("cart.html")


async def change_line(site: SiteRequest, shop: Commerce, item: Goods, op: str, wanted: int) -> int:
    """The one writer of a shop's cart lines: the item's amount after `op` (`wanted` for
    `set`) stored, and `basket_add` / `basket_remove` written when it changed; the amount
    after. Over the site's limit: FieldError (409)."""

    def apply(value: Cart) -> tuple[int, int]:
        after = cart_amount(carts.amounts(value).get(item.id, 0), op, wanted)
        if after > shop.limit(item):
            raise FieldError("stock", shop.over_limit(item), 409)
        return carts.set_amount(value, item.id, item.title, item.price, after), after

    before, after = await site.state.update(CART, apply)
    if after != before:
        await site.emit(
            "basket_add" if after > before else "basket_remove",
            item_id=item.id,
            amount=after,
            title=item.title,
            price=item.price,
        )
    return after


@cart_router.post("/cart/select")
async def select_lines(site: SiteDep, next: Annotated[str, Form()] = "") -> Response:
    """Which lines the checkout pays: the form's `item_id`s, or every line with `all`."""
    form = await site.request.form()
    chosen = None if form.get("all") else [str(i) for i in form.getlist("item_id")]
    picked = await site.state.update(CART, lambda value: carts.select(value, chosen))
    if wants_json(site.request):
        count, total = carts.summed(picked)
        return JSONResponse({"selected": list(picked), "count": count, "total": total})
    return redirect_back(site, next)


@cart_router.post("/cart/{item_id}")
async def change_cart(
    item_id: str,
    site: SiteDep,
    shop: CommerceDep,
    op: Annotated[str, Form()] = "",
    amount: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> Response:
    try:
        item = shop.find(item_id)
        after = await change_line(site, shop, item, op, parse_cart_change(op, amount))
    except FieldError as refused:
        return await shop.refuse(site, refused)
    if wants_json(site.request):
        cart = await site.state.get(CART)
        return JSONResponse(
            {"item_id": item_id, "amount": after}
            | {"count": carts.count(cart), "total": carts.total(cart)}
        )
    return redirect_back(site, next)


@favorites_router.get("/favorites")
async def favorites_page(site: SiteDep, shop: CommerceDep) -> HTMLResponse:
    await site.emit.screen(shop.screens["favorites"])
    return await site.page("favorites.html")


async def change_favorite(site: SiteRequest, item: Goods, op: str) -> bool:
    """The one writer of a shop's favourites: the item in them after `op` or not, stored,
    and `add_favorites` / `remove_favorites` written when that changed."""

    def apply(value: FavoritesState) -> tuple[bool, bool]:
        items = value.setdefault("items", [])
        before = item.id in items
        after = favorite_after(before, op)
        if after and not before:
            items.append(item.id)
        elif before and not after:
            items.remove(item.id)
        return before, after

    before, after = await site.state.update(FAVORITES, apply)
    if after != before:
        await site.emit(
            "add_favorites" if after else "remove_favorites", item_id=item.id, title=item.title
        )
    return after


@favorites_router.post("/favorites/{item_id}")
async def change_favorites(
    item_id: str,
    site: SiteDep,
    shop: CommerceDep,
    op: Annotated[str, Form()] = "toggle",
    next: Annotated[str, Form()] = "",
) -> Response:
    try:
        item = shop.find(item_id)
        if op not in FAVORITE_OPS:
            raise FieldError("op", f"действие — одно из: {', '.join(FAVORITE_OPS)}")
    except FieldError as refused:
        return await shop.refuse(site, refused)
    after = await change_favorite(site, item, op)
    if wants_json(site.request):
        count = len((await site.state.get(FAVORITES)).get("items", []))
        return JSONResponse({"item_id": item_id, "favorite": after, "count": count})
    return redirect_back(site, next)


@checkout_router.get("/checkout")
async def checkout_page(site: SiteDep, shop: CommerceDep) -> HTMLResponse:
    await site.emit.screen(shop.screens["checkout"])
    return await site.page("checkout.html", form={})


async def choose_pay_method(site: SiteRequest, methods: dict[str, str], method: str) -> None:
    """The one writer of `select_pay_method` (every site's checkout): the method is kept in
    the `checkout` state and the event written; an unknown method is a 422 naming it."""
    if method not in methods:
        raise FieldError("method", f"expected one of {', '.join(methods)}")
    await site.state.update(CHECKOUT, lambda value: value.update({"method": method}))
    await site.emit("select_pay_method", method=method)


@checkout_router.post("/checkout/method")
async def pay_method(
    site: SiteDep, shop: CommerceDep, method: Annotated[str, Form()] = ""
) -> Response:
    assert shop.checkout is not None
    await choose_pay_method(site, shop.checkout.methods, method)
    if wants_json(site.request):
        return JSONResponse({"method": method})
    return redirect_back(site, f"{site.base}/checkout")


async def check_order(
    site: SiteRequest, checkout: Checkout, form: dict[str, str]
) -> tuple[list[str], int]:
    """The order before it is paid: the cart's selected lines (409 for an empty cart or none
    selected), the method and the site's fields (FieldError naming the field); the lines'
    item ids and total."""
    cart = await site.state.get(CART)
    if not carts.total(cart):
        raise FieldError("cart", checkout.empty_cart, 409)
    chosen = carts.selected(cart)
    total = carts.summed(chosen)[1]
    if not total:
        raise FieldError("cart", "не выбрано ни одного товара — отметьте их в корзине", 409)
    if form.get("method", "") not in checkout.methods:
        raise FieldError("method", "выберите способ оплаты")
    checkout.check(form)
    return list(chosen), total


async def place_payment(
    site: SiteRequest,
    checkout: Checkout,
    form: dict[str, str],
    bank_card: dict[str, str] | None = None,
) -> tuple[bool, int]:
    """The one writer of a shop's `submit_payment`: the cart's selected lines paid with the
    form's method and fields (`check_order`; a card's fields the form's, or `bank_card`, the
    bank's page's, checked by `bank.card`), those lines settled unless the bank declined;
    whether it declined, and the total. A start state's cart has every line selected, so its
    payment pays them all."""
    method = form.get("method", "")
    chosen, total = await check_order(site, checkout, form)
    if bank_card is None:
        if method == "card":
            checkout.card(form)
        declined = checkout.declined(form)
    else:
        declined = bank.declined(bank_card)
    await site.emit(
        "submit_payment",
        method=method,
        result="declined" if declined else "success",
        amount=total,
        item_ids=chosen,
    )
    if not declined:
        await site.state.update(CART, lambda value: carts.settle(value, method))
    return declined, total


def sent_form(form: Any) -> dict[str, str]:
    return {key: str(value)[:200] for key, value in form.items()}


@checkout_router.post("/checkout")
async def pay(site: SiteDep, shop: CommerceDep) -> Response:
    checkout = shop.checkout
    assert checkout is not None
    form = sent_form(await site.request.form())
    method = form.get("method", "")
    try:
        if method == "card" and bank.used(site):
            await check_order(site, checkout, form)
            await bank.hold(site, form)
            return site.redirect("/checkout/bank")
        declined, total = await place_payment(site, checkout, form)
    except FieldError as refused:
        if wants_json(site.request) or refused.status == 409:
            return await shop.refuse(site, refused)
        return await site.page("checkout.html", refused.status, form=form, error=refused)
    if declined:
        error = FieldError("card_number", "банк отклонил платёж — попробуйте другую карту", 402)
        return await site.page("checkout.html", 402, form=form, error=error)
    receipt = checkout.receipt(form, site.trajectory)
    return await site.page("done.html", paid=total, method=method, form=form, **receipt)


@checkout_router.get("/checkout/bank")
async def bank_page(site: SiteDep) -> Response:
    """The bank's page for the order its checkout sent; without one, the checkout."""
    total = carts.summed(carts.selected(await site.state.get(CART)))[1]
    if await bank.held(site) is None or not total:
        return site.redirect("/checkout")
    return await bank.page(site, total, f"{site.base}/checkout")


@checkout_router.post("/checkout/bank")
async def bank_pay(site: SiteDep, shop: CommerceDep) -> Response:
    """The bank's page's card: the order its checkout sent paid, or refused with the field
    (the bank's page again), or declined (the bank's page saying so, the order kept)."""
    checkout = shop.checkout
    assert checkout is not None
    form = await bank.held(site)
    total = carts.summed(carts.selected(await site.state.get(CART)))[1]
    back = f"{site.base}/checkout"
    try:
        if form is None:
            raise FieldError("payment", "заказ не оформлен — вернитесь к оформлению", 409)
        card = bank.card(sent_form(await site.request.form()), site)
        declined, total = await place_payment(site, checkout, form, card)
    except FieldError as refused:
        if wants_json(site.request) or refused.field not in bank.CARD_FIELDS:
            return await shop.refuse(site, refused)
        return await bank.page(site, total, back, refused.status, error=refused)
    if declined:
        return await bank.page(site, total, back, 402, refused=True)
    await bank.release(site)
    receipt = checkout.receipt(form, site.trajectory)
    return await site.page("done.html", paid=total, method=form["method"], form=form, **receipt)


@suggest_router.get("/suggest")
async def suggestions(site: SiteDep, shop: CommerceDep, q: str = "") -> Suggestions:
    assert shop.suggest is not None
    return {"suggestions": shop.suggest(q[:MAX_QUERY])}


# Every shared route: a shop with favourites, a checkout and suggestions includes them all.
SHOP_ROUTERS = (cart_router, favorites_router, checkout_router, suggest_router)
