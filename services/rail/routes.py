"""Поезда's routes: parse the request, call `service`, store, write one event, render."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Form
from fastapi.responses import HTMLResponse, Response

from services.core.errors import FieldError, FormError
from services.kit import bank
from services.kit import cart as carts
from services.kit.cart import CART
from services.kit.commerce import CHECKOUT, choose_pay_method, wants_json
from services.kit.site import Context, SiteDep, SiteRequest, catalog, replace, site_prefix
from services.rail import service
from services.rail.catalog import TARIFF_FACTS, Catalog, Train

DOMAIN = "rail"
router = APIRouter(prefix=site_prefix(DOMAIN))
CatalogDep = Annotated[Catalog, Depends(catalog)]


async def page_context(site: SiteRequest) -> Context:
    """What every rail page shows: the form's stations and today, the cart."""
    rail: Catalog = site.catalog
    cart = await site.state.get(CART)
    return {
        "catalog": rail,
        "stations": rail.station_options(),
        "today": site.trajectory.today.isoformat(),
        "cart": carts.lines(cart),
        "cart_total": carts.total(cart),
        "pay_methods": service.PAY_METHODS,
        "required": service.REQUIRED,
        "tariff_facts": TARIFF_FACTS,
    }


async def chosen_method(site: SiteRequest) -> str:
    return str((await site.state.get(CHECKOUT)).get("method", ""))


# -- what the handlers do, each the one writer of its event (the start state's replay too) --


async def choose_train(site: SiteRequest, train: Train, trip: service.Trip) -> None:
    """A new trip on `train` (`service.chosen_train`) stored, and `select_train` written."""
    await site.state.update(service.TRIP, lambda value: replace(value, trip))
    await site.emit("select_train", **service.train_params(train))


async def choose_tariff_of(site: SiteRequest, train: Train, tariff: str) -> None:
    """The trip's tariff (its seats and passengers chosen afresh), and `select_tariff`."""
    if train.car_for(tariff) is None:
        raise FieldError("tariff", f"the train has no tariff {tariff!r}")
    service.own_trip(await site.state.get(service.TRIP), train)
    await site.state.update(
        service.TRIP, lambda value: value.update({"tariff": tariff, "seats": [], "passengers": []})
    )
    await site.emit("select_tariff", tarif_name=tariff, direction="departure")


async def toggle_seat_of(site: SiteRequest, train: Train, seat: int) -> None:
    """A free seat of the trip's car taken or given back, and `select_seat`."""
    chosen = service.free_seat(
        train, service.own_trip(await site.state.get(service.TRIP), train), seat
    )
    amount = await site.state.update(service.TRIP, lambda value: service.toggle_seat(value, seat))
    await site.emit(
        "select_seat", seats_amount=amount, near_window=chosen.window, lower_berth=chosen.lower
    )


async def toggle_passenger_of(site: SiteRequest, rail: Catalog, index: int) -> None:
    """A saved passenger chosen for a seat or unchosen; `select_passenger` when chosen."""
    if not 0 <= index < len(rail.passengers):
        raise FieldError("passenger_index", f"no passenger {index}", 404)
    kinds = [service.PASSENGER_KINDS[p.kind] for p in rail.passengers]
    if await site.state.update(
        service.TRIP, lambda value: service.toggle_passenger(value, index, kinds)
    ):
        await site.emit("select_passenger", passenger_index=index)


async def add_ticket(site: SiteRequest, rail: Catalog) -> None:
    """The booked trip put in the cart as a ticket line, the trip emptied, `basket_add`."""
    line, added = service.ticket_line(rail, await site.state.get(service.TRIP))
    await site.state.update(CART, lambda value: carts.put(value, line))
    await site.state.update(service.TRIP, lambda value: replace(value, {}))
    await site.emit("basket_add", **added.model_dump(exclude_none=True))


async def pay_tickets(site: SiteRequest, declined: bool = False) -> None:
    """The cart's tickets paid with the chosen method (409 without either), settled, and
    `submit_payment`; a card the bank declined (`payment=bank`) writes it declined and
    leaves the cart and the method as they were."""
    method = await chosen_method(site)
    cart = await site.state.get(CART)
    if not method or not carts.lines(cart):
        raise FieldError("payment", "choose a pay method and have tickets in the cart", 409)
    if declined:
        held = list(carts.selected(cart).values())
        await site.emit("submit_payment", **service.payment_params(method, held, "declined"))
        return
    tickets = await site.state.update(CART, carts.settle)
    await site.state.update(CHECKOUT, lambda value: replace(value, {}))
    await site.emit("submit_payment", **service.payment_params(method, tickets))


# -- the pages and forms -------------------------------------------------------------------


@router.get("/")
async def main(site: SiteDep, rail: CatalogDep) -> HTMLResponse:
    await site.emit.screen("bench_rail_main")
    tomorrow = (site.trajectory.today + timedelta(days=1)).isoformat()
    return await site.page(
        "main.html", form={"adults": "1"}, routes=rail.popular_routes(), tomorrow=tomorrow
    )


@router.get("/search")
async def search(site: SiteDep, rail: CatalogDep) -> HTMLResponse:
    query = dict(site.request.query_params)
    try:
        found = service.parse_search(rail, site.trajectory.today, query)
        trains = rail.trains_between(found["from"], found["to"])
        groups = service.filter_groups(trains)
        chosen = {k: site.request.query_params.getlist(k) for k in site.request.query_params}
        filters = service.parse_filters(groups, chosen)
    except FormError as exc:
        return await site.page("main.html", 422, form=query, errors=exc.errors)
    event_type, params = service.search_event(found, filters, query.get("act", ""))
    await site.emit(event_type, **params)
    await site.emit.screen("bench_rail_search")
    tariff = found["tariff"]
    shown = [t for t in trains if service.passes(t, groups, filters, tariff)]
    return await site.page(
        "results.html",
        form=query,
        search=found,
        trains=service.ordered(shown, tariff, found["sort"]),
        route_trains=trains,
        groups=groups,
        filters=filters,
        counts=service.box_counts(trains, groups, filters, tariff),
        carried=service.filter_fields(filters),
        days=service.date_strip(found, site.trajectory.today, trains),
    )


@router.get("/train/{train_id}")
async def train_page(train_id: str, site: SiteDep, rail: CatalogDep) -> HTMLResponse:
    train = rail.train(train_id)
    if train is None:
        return await site.page("missing.html", 404)
    trip = await site.state.get(service.TRIP)
    query = dict(site.request.query_params)
    if "date" in query:  # arriving from the results: a new choice of train
        try:
            fresh = service.chosen_train(rail, site.trajectory.today, train, query)
        except FormError as exc:
            return await site.page("main.html", 422, form=query, errors=exc.errors)
        if not service.is_same_trip(trip, fresh):
            await choose_train(site, train, fresh)
            trip = fresh
    if trip.get("train") != train.id:
        return await site.page("train.html", train=train, trip=None, search=None)
    await site.emit.screen("bench_rail_train", item_id=train.id)
    return await site.page(
        "train.html",
        train=train,
        trip=trip,
        search=service.trip_search(rail, site.trajectory.today, trip),
        car=train.car_for(trip.get("tariff", "")),
    )


@router.post("/train/{train_id}/tariff")
async def choose_tariff(
    train_id: str, site: SiteDep, rail: CatalogDep, tariff: Annotated[str, Form()]
) -> Response:
    train = service.known_train(rail, train_id)
    await choose_tariff_of(site, train, tariff)
    return site.redirect(f"/train/{train.id}#seats")


@router.post("/train/{train_id}/seat")
async def toggle_seat(
    train_id: str, site: SiteDep, rail: CatalogDep, seat: Annotated[int, Form()]
) -> Response:
    train = service.known_train(rail, train_id)
    await toggle_seat_of(site, train, seat)
    return site.redirect(f"/train/{train.id}#seats")


@router.get("/passengers")
async def passengers(site: SiteDep, rail: CatalogDep) -> HTMLResponse:
    trip = await site.state.get(service.TRIP)
    train = rail.train(trip.get("train", ""))
    await site.emit.screen("bench_rail_passengers")
    return await site.page(
        "passengers.html",
        trip=trip if train else None,
        train=train,
        car=train.car_for(trip.get("tariff", "")) if train else None,
        kinds=service.PASSENGER_KINDS,
    )


@router.post("/passengers/{index}")
async def choose_passenger(index: int, site: SiteDep, rail: CatalogDep) -> Response:
    await toggle_passenger_of(site, rail, index)
    return site.redirect("/passengers")


@router.post("/basket")
async def add_to_basket(site: SiteDep, rail: CatalogDep) -> Response:
    await add_ticket(site, rail)
    return site.redirect("/cart")


@router.post("/cart/remove")
async def remove_from_basket(site: SiteDep, item_id: Annotated[str, Form()]) -> Response:
    line = await site.state.update(CART, lambda value: carts.remove(value, item_id))
    if line is None:
        raise FieldError("item_id", f"no {item_id!r} in the cart", 404)
    await site.emit("basket_remove", item_id=item_id, amount=0, title=line["title"], price=0)
    return site.redirect("/cart")


@router.get("/cart")
async def cart_page(site: SiteDep) -> HTMLResponse:
    await site.emit.screen("bench_rail_basket")
    return await site.page("cart.html")


@router.get("/checkout")
async def checkout(site: SiteDep) -> HTMLResponse:
    await site.emit.screen("bench_rail_checkout")
    return await site.page("checkout.html", method=await chosen_method(site))


@router.post("/checkout/method")
async def pay_method(site: SiteDep, method: Annotated[str, Form()]) -> Response:
    await choose_pay_method(site, service.PAY_METHODS, method)
    return site.redirect("/checkout")


@router.get("/payment")
async def payment(site: SiteDep) -> Response:
    method = await chosen_method(site)
    if not method:
        return site.redirect("/checkout")
    await site.emit.screen("bench_rail_payment")
    return await site.page("payment.html", method=method)


@router.post("/payment")
async def pay(site: SiteDep) -> Response:
    if await chosen_method(site) == "card" and bank.used(site):
        await bank.hold(site, {"method": "card"})
        return site.redirect("/payment/bank")
    await pay_tickets(site)
    return site.redirect("/paid")


@router.get("/payment/bank")
async def bank_page(site: SiteDep) -> Response:
    """The bank's page for the tickets (`payment=bank`); without a card payment sent, the
    payment screen."""
    cart = await site.state.get(CART)
    sent = await bank.held(site) is not None and await chosen_method(site) == "card"
    if not sent or not carts.lines(cart):
        return site.redirect("/payment")
    return await bank.page(site, carts.total(cart), f"{site.base}/payment")


@router.post("/payment/bank")
async def bank_pay(site: SiteDep) -> Response:
    """The bank's page's card: the tickets paid (the paid screen), or refused with the field
    (the bank's page again), or declined (the bank's page saying so)."""
    if await bank.held(site) is None:
        raise FieldError("payment", "оплата не начата — вернитесь к оплате", 409)
    total, back = carts.total(await site.state.get(CART)), f"{site.base}/payment"
    sent = {key: str(value) for key, value in (await site.request.form()).items()}
    try:
        card = bank.card(sent, site)
    except FieldError as refused:
        if wants_json(site.request):
            raise
        return await bank.page(site, total, back, refused.status, error=refused)
    declined = bank.declined(card)
    await pay_tickets(site, declined)
    if declined:
        return await bank.page(site, total, back, 402, refused=True)
    await bank.release(site)
    return site.redirect("/paid")


@router.get("/paid")
async def paid(site: SiteDep) -> HTMLResponse:
    await site.emit.screen("bench_rail_paid")
    tickets = carts.paid(await site.state.get(CART))
    return await site.page("paid.html", tickets=tickets)
