"""Поезда (domain `rail`): search form, results with filter and sort, train page with tariff
and seat map, passengers, cart, checkout with a pay method and a payment step.

The form's widgets (stations, dates) write their own page events; every other action is a
handler here that changes the trajectory's state and writes one event.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from services.kit.errors import FieldError, FormError
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
from services.rail.catalog import Catalog, Train, load_catalog

DOMAIN = "rail"
HERE = Path(__file__).parent
ADULTS, CHILDREN, MAX_PASSENGERS = (1, 4), (0, 3), 4
SORTS = {"departure": "по времени отправления", "price": "по цене", "duration": "по времени в пути"}
# The saved passengers' kinds (catalog, in Russian) as a ticket line names them.
PASSENGER_KINDS = {"взрослый": "adult", "детский": "child"}
PAY_METHODS = {"card": "Банковская карта", "sbp": "СБП", "wallet": "Электронный кошелёк"}


def _int(value: str, low: int, high: int, field: str, caption: str, errors: dict[str, str]) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if not low <= number <= high:
        errors[field] = f"{caption}: от {low} до {high}"
    return number


def parse_search(catalog: Catalog, today: date, query: dict[str, str]) -> dict[str, Any]:
    """The checked search, or FormError naming each bad field in Russian."""
    errors: dict[str, str] = {}
    origin, dest = query.get("from", ""), query.get("to", "")
    for field, value, caption in (("from", origin, "отправления"), ("to", dest, "прибытия")):
        if not value:
            errors[field] = f"Выберите станцию {caption}"
        elif value not in catalog.cities:
            errors[field] = f"Такой станции нет: {value}"
    if origin and origin == dest:
        errors["to"] = "Станции отправления и прибытия совпадают"
    dates: dict[str, date] = {}
    for field, caption in (("date", "отправления"), ("return", "обратно")):
        value = query.get(field, "")
        if not value:
            if field == "date":
                errors[field] = f"Укажите дату {caption}"
            continue
        try:
            dates[field] = date.fromisoformat(value)
        except ValueError:
            errors[field] = f"Такой даты нет: {value}"
            continue
        if dates[field] < today:
            errors[field] = "Эта дата уже прошла"
    if "date" in dates and "return" in dates and dates["return"] < dates["date"]:
        errors["return"] = "Дата обратно не может быть раньше даты отправления"
    adults = _int(query.get("adults", "1"), *ADULTS, "adults", "Взрослых", errors)
    children = _int(query.get("children", "0"), *CHILDREN, "children", "Детей", errors)
    if "adults" not in errors and "children" not in errors and adults + children > MAX_PASSENGERS:
        errors["children"] = f"Не больше {MAX_PASSENGERS} пассажиров в заказе"
    tariff = query.get("tariff", "")
    if tariff and tariff not in catalog.tariffs():
        errors["tariff"] = f"Нет такого тарифа: {tariff}"
    sort = query.get("sort", "") or "departure"
    if sort not in SORTS:
        errors["sort"] = "Нет такой сортировки"
    if errors:
        raise FormError(errors)
    base = {
        "from": origin,
        "to": dest,
        "date": dates["date"].isoformat(),
        "return": dates["return"].isoformat() if "return" in dates else "",
        "adults": str(adults),
        "children": str(children),
    }
    return {
        **base,
        "day": dates["date"],
        "passengers": adults + children,
        "tariff": tariff,
        "sort": sort,
        "query": urlencode(base),
        "trip_query": urlencode({k: base[k] for k in ("date", "adults", "children")}),
    }


def ordered(trains: list[Train], tariff: str, sort: str) -> list[Train]:
    if tariff:
        trains = [t for t in trains if t.car_for(tariff)]

    def price(t: Train) -> int:
        car = t.car_for(tariff) if tariff else None
        return car.price if car else t.min_price

    keys = {"price": price, "duration": lambda t: t.duration_min}
    return sorted(trains, key=keys[sort]) if sort in keys else trains


def make_check_page_event(catalog: Catalog) -> Any:
    def check(event_type: str, params: dict[str, Any], trajectory: Trajectory) -> None:
        if event_type == "select_city" and params["name"] not in catalog.cities:
            raise FieldError("params.name", f"no station {params['name']!r}")
        if event_type == "select_date" and date.fromisoformat(params["date"]) < trajectory.today:
            raise FieldError("params.date", "a date in the past cannot be picked")

    return check


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    async def render(
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        template: str,
        status: int = 200,
        **ctx: Any,
    ) -> HTMLResponse:
        cart = (await state.get("cart")).get("items", {})
        return pages.render(
            trajectory,
            template,
            status,
            catalog=catalog,
            stations=catalog.station_options(),
            today=trajectory.today.isoformat(),
            cart=cart,
            cart_total=sum(line["price"] for line in cart.values()),
            pay_methods=PAY_METHODS,
            **ctx,
        )

    def back(trajectory: Trajectory, path: str) -> RedirectResponse:
        return RedirectResponse(f"/t/{trajectory.id}/{DOMAIN}{path}", 303)

    def trip_search(trajectory: Trajectory, trip: dict[str, Any]) -> dict[str, Any] | None:
        train = catalog.train(trip.get("train", ""))
        if train is None:
            return None
        query = {
            "from": train.from_city,
            "to": train.to_city,
            "date": trip["date"],
            "adults": trip["adults"],
            "children": trip["children"],
        }
        try:
            return parse_search(catalog, trajectory.today, query)
        except FormError:
            return None

    @router.get("/")
    async def main(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_rail_main")
        return await render(pages, trajectory, state, "main.html", form={"adults": "1"})

    @router.get("/search")
    async def search(
        request: Request, pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        query = dict(request.query_params)
        try:
            found = parse_search(catalog, trajectory.today, query)
        except FormError as exc:
            return await render(
                pages, trajectory, state, "main.html", 422, form=query, errors=exc.errors
            )
        act = query.get("act", "")
        if act == "filter":
            await emit("apply_filter", filter_type="tariff", value=found["tariff"] or "all")
        elif act == "sort":
            await emit("apply_sort", sort=found["sort"])
        else:
            await emit(
                "submit_search",
                city_from=found["from"],
                city_to=found["to"],
                date_departure=found["date"],
                passengers_amount=found["passengers"],
            )
        await emit.screen("bench_rail_search")
        trains = ordered(
            catalog.trains_between(found["from"], found["to"]), found["tariff"], found["sort"]
        )
        return await render(
            pages, trajectory, state, "results.html", form=query, search=found, trains=trains
        )

    @router.get("/train/{train_id}")
    async def train_page(
        train_id: str,
        request: Request,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
    ) -> HTMLResponse:
        train = catalog.train(train_id)
        if train is None:
            return await render(pages, trajectory, state, "missing.html", 404)
        trip = await state.get("trip")
        query = dict(request.query_params)
        if "date" in query:  # arriving from the results: a new choice of train
            query.update({"from": train.from_city, "to": train.to_city})
            try:
                found = parse_search(catalog, trajectory.today, query)
            except FormError as exc:
                return await render(
                    pages, trajectory, state, "main.html", 422, form=query, errors=exc.errors
                )
            fresh = {
                "train": train.id,
                "date": found["date"],
                "adults": found["adults"],
                "children": found["children"],
                "tariff": "",
                "seats": [],
                "passengers": [],
            }
            if any(trip.get(k) != fresh[k] for k in ("train", "date", "adults", "children")):

                def reset(value: dict[str, Any]) -> None:
                    value.clear()
                    value.update(fresh)

                await state.update("trip", reset)
                trip = fresh
                await emit(
                    "select_train",
                    train_name=train.name,
                    from_station=train.from_station,
                    to_station=train.to_station,
                )
        if trip.get("train") != train.id:
            return await render(
                pages, trajectory, state, "train.html", train=train, trip=None, search=None
            )
        await emit.screen("bench_rail_train", item_id=train.id)
        return await render(
            pages,
            trajectory,
            state,
            "train.html",
            train=train,
            trip=trip,
            search=trip_search(trajectory, trip),
            car=train.car_for(trip.get("tariff", "")),
        )

    async def own_trip(state: StateDep, train: Train) -> dict[str, Any]:
        trip = await state.get("trip")
        if trip.get("train") != train.id:
            raise HTTPException(409, "train: choose the train from the search results first")
        return trip

    @router.post("/train/{train_id}/tariff")
    async def choose_tariff(
        train_id: str,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
        tariff: Annotated[str, Form()],
    ) -> Response:
        train = catalog.train(train_id)
        if train is None:
            raise HTTPException(404, f"train_id: no train {train_id!r}")
        if train.car_for(tariff) is None:
            raise HTTPException(422, f"tariff: the train has no tariff {tariff!r}")
        await own_trip(state, train)

        def choose(value: dict[str, Any]) -> None:
            value.update(tariff=tariff, seats=[], passengers=[])

        await state.update("trip", choose)
        await emit("select_tariff", tarif_name=tariff, direction="departure")
        return back(trajectory, f"/train/{train.id}#seats")

    @router.post("/train/{train_id}/seat")
    async def toggle_seat(
        train_id: str,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
        seat: Annotated[int, Form()],
    ) -> Response:
        train = catalog.train(train_id)
        if train is None:
            raise HTTPException(404, f"train_id: no train {train_id!r}")
        trip = await own_trip(state, train)
        car = train.car_for(trip.get("tariff", ""))
        if car is None:
            raise HTTPException(409, "tariff: choose a tariff first")
        chosen = car.seat(seat)
        if chosen is None:
            raise HTTPException(404, f"seat: no seat {seat} in car {car.car}")
        if chosen.taken:
            raise HTTPException(409, f"seat: seat {seat} is taken")
        limit = int(trip["adults"]) + int(trip["children"])

        def toggle(value: dict[str, Any]) -> int:
            seats = value.setdefault("seats", [])
            if seat in seats:
                seats.remove(seat)
            elif len(seats) >= limit:
                raise HTTPException(409, f"seat: {limit} seats already chosen, one per passenger")
            else:
                seats.append(seat)
            value["passengers"] = []
            return len(seats)

        amount = await state.update("trip", toggle)
        await emit(
            "select_seat",
            seats_amount=amount,
            near_window=chosen.window,
            lower_berth=chosen.lower,
        )
        return back(trajectory, f"/train/{train.id}#seats")

    @router.get("/passengers")
    async def passengers(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        trip = await state.get("trip")
        train = catalog.train(trip.get("train", ""))
        await emit.screen("bench_rail_passengers")
        return await render(
            pages,
            trajectory,
            state,
            "passengers.html",
            trip=trip if train else None,
            train=train,
            car=train.car_for(trip.get("tariff", "")) if train else None,
            kinds=PASSENGER_KINDS,
        )

    @router.post("/passengers/{index}")
    async def choose_passenger(
        index: int, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> Response:
        if not 0 <= index < len(catalog.passengers):
            raise HTTPException(404, f"passenger_index: no passenger {index}")

        def toggle(value: dict[str, Any]) -> bool:
            chosen = value.setdefault("passengers", [])
            if index in chosen:
                chosen.remove(index)
                return False
            if len(chosen) >= len(value.get("seats", [])):
                raise HTTPException(409, "passenger_index: one passenger per chosen seat")
            chosen.append(index)
            return True

        if await state.update("trip", toggle):
            await emit("select_passenger", passenger_index=index)
        return back(trajectory, "/passengers")

    @router.post("/basket")
    async def add_to_basket(trajectory: TrajectoryDep, state: StateDep, emit: EmitDep) -> Response:
        trip = await state.get("trip")
        train = catalog.train(trip.get("train", ""))
        car = train.car_for(trip.get("tariff", "")) if train else None
        seats = trip.get("seats", [])
        if train is None or car is None or not seats:
            raise HTTPException(409, "trip: choose a train, a tariff and seats first")
        if len(trip.get("passengers", [])) != len(seats):
            raise HTTPException(409, "passengers: choose a passenger for every seat")
        # One line per booking: the same car booked again is another line, never a lost one.
        item_id = f"{train.id}:{trip['date']}:{car.car}:{'-'.join(map(str, sorted(seats)))}"
        day = date.fromisoformat(trip["date"]).strftime("%d.%m.%Y")
        title = f"«{train.name}» {train.number}, {train.from_city} — {train.to_city}, {day}"
        booked = [seat for n in sorted(seats) if (seat := car.seat(n))]
        people = [catalog.passengers[i] for i in trip["passengers"]]
        # What a payment names of the line (`submit_payment`'s `tickets`).
        paid_as = {
            "train_name": train.name,
            "from_city": train.from_city,
            "to_city": train.to_city,
            "date": trip["date"],
            "tarif_name": car.tariff,
            "amount": len(seats),
        }
        line = {
            "item_id": item_id,
            "title": f"{title}, {car.tariff}",
            "amount": len(seats),
            "price": car.price * len(seats),
            "seats": sorted(seats),
            "passengers": [p.name for p in people],
            "paid_as": paid_as,
        }
        # What the tickets book, for conditions to bind to one line.
        kinds = [PASSENGER_KINDS[p.kind] for p in people]
        ticket = {
            "train_name": train.name,
            "from_city": train.from_city,
            "to_city": train.to_city,
            "from_station": train.from_station,
            "to_station": train.to_station,
            "date": trip["date"],
            "tarif_name": car.tariff,
            "seats": [
                {"number": s.n, "near_window": s.window, "lower_berth": s.lower} for s in booked
            ],
            "lower_berths": sum(1 for s in booked if s.lower),
            "window_seats": sum(1 for s in booked if s.window),
            "passengers": [
                {"name": p.name, "kind": kind} for p, kind in zip(people, kinds, strict=True)
            ],
            "adults": kinds.count("adult"),
            "children": kinds.count("child"),
        }

        def add(value: dict[str, Any]) -> None:
            value.setdefault("items", {})[item_id] = line

        await state.update("cart", add)
        await state.update("trip", lambda value: value.clear())
        await emit(
            "basket_add",
            item_id=item_id,
            amount=line["amount"],
            title=line["title"],
            price=line["price"],
            **ticket,
        )
        return back(trajectory, "/cart")

    @router.post("/cart/remove")
    async def remove_from_basket(
        trajectory: TrajectoryDep, state: StateDep, emit: EmitDep, item_id: Annotated[str, Form()]
    ) -> Response:
        def remove(value: dict[str, Any]) -> dict[str, Any] | None:
            return value.setdefault("items", {}).pop(item_id, None)

        line = await state.update("cart", remove)
        if line is None:
            raise HTTPException(404, f"item_id: no {item_id!r} in the cart")
        await emit("basket_remove", item_id=item_id, amount=0, title=line["title"], price=0)
        return back(trajectory, "/cart")

    @router.get("/cart")
    async def cart(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_rail_basket")
        return await render(pages, trajectory, state, "cart.html")

    @router.get("/checkout")
    async def checkout(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_rail_checkout")
        method = (await state.get("checkout")).get("method", "")
        return await render(pages, trajectory, state, "checkout.html", method=method)

    @router.post("/checkout/method")
    async def pay_method(
        trajectory: TrajectoryDep, state: StateDep, emit: EmitDep, method: Annotated[str, Form()]
    ) -> Response:
        if method not in PAY_METHODS:
            raise HTTPException(422, f"method: expected one of {', '.join(PAY_METHODS)}")
        await state.update("checkout", lambda value: value.update(method=method))
        await emit("select_pay_method", method=method)
        return back(trajectory, "/checkout")

    @router.get("/payment")
    async def payment(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> Response:
        method = (await state.get("checkout")).get("method", "")
        if not method:
            return back(trajectory, "/checkout")
        await emit.screen("bench_rail_payment")
        return await render(pages, trajectory, state, "payment.html", method=method)

    @router.post("/payment")
    async def pay(trajectory: TrajectoryDep, state: StateDep, emit: EmitDep) -> Response:
        method = (await state.get("checkout")).get("method", "")
        items = (await state.get("cart")).get("items", {})
        if not method or not items:
            raise HTTPException(409, "payment: choose a pay method and have tickets in the cart")
        total = sum(line["price"] for line in items.values())

        def settle(value: dict[str, Any]) -> None:
            value["paid"] = [*value.get("paid", []), *items.values()]
            value["items"] = {}

        await state.update("cart", settle)
        await state.update("checkout", lambda value: value.clear())
        await emit(
            "submit_payment",
            method=method,
            result="success",
            amount=total,
            item_ids=list(items),
            tickets=[line["paid_as"] for line in items.values()],
        )
        return back(trajectory, "/paid")

    @router.get("/paid")
    async def paid(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_rail_paid")
        tickets = (await state.get("cart")).get("paid", [])
        return await render(pages, trajectory, state, "paid.html", tickets=tickets)

    spec = SiteSpec(
        domain=DOMAIN,
        root=HERE,
        page_event_types=frozenset({"select_city", "select_date"}),
        check_page_event=make_check_page_event(catalog),
        ready=lambda: bool(catalog.trains),
    )
    return create_site_app(spec, settings, router)
