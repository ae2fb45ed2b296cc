"""Отели (domain `hotels`): city, dates and guests search; results; hotel page; room choice.

The search form's widgets (city, dates, guests) write their own page events; the server
writes the screens, the hotel opened and the room chosen.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Form, HTTPException
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from services.hotels.catalog import Catalog, Hotel, image_svg, load_catalog
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

DOMAIN = "hotels"
HERE = Path(__file__).parent
MAIN_STATE = "state_hotels_main"  # the name task files use as bench_first_state
MAX_NIGHTS = 30
LIMITS = {"rooms": (1, 6), "adults": (1, 6), "kids": (0, 4), "age": (0, 17)}
ROOMS_RE = re.compile(r"^\d{1,2}(:(\d{1,2})?(,\d{1,2})*)?(;\d{1,2}(:(\d{1,2})?(,\d{1,2})*)?)*$")

Rooms = list[dict[str, Any]]


def parse_rooms(text: str) -> Rooms:
    """ "2:7,5;1" -> [{"adults": 2, "kids": [7, 5]}, {"adults": 1, "kids": []}]."""
    if not ROOMS_RE.match(text or ""):
        raise ValueError("Укажите гостей: взрослых и детей по номерам")
    rooms: Rooms = []
    for part in text.split(";"):
        adults, _, kids = part.partition(":")
        ages = [int(a) for a in kids.split(",") if a != ""] if kids else []
        rooms.append({"adults": int(adults), "kids": ages})
    low, high = LIMITS["rooms"]
    if not low <= len(rooms) <= high:
        raise ValueError(f"Номеров можно выбрать от {low} до {high}")
    for room in rooms:
        if not LIMITS["adults"][0] <= room["adults"] <= LIMITS["adults"][1]:
            raise ValueError("В номере от 1 до 6 взрослых")
        if len(room["kids"]) > LIMITS["kids"][1]:
            raise ValueError("В номере не больше 4 детей")
        if any(not 0 <= age <= 17 for age in room["kids"]):
            raise ValueError("Возраст ребёнка — от 0 до 17 лет")
    return rooms


def guests_count(rooms: Rooms) -> int:
    return sum(r["adults"] + len(r["kids"]) for r in rooms)


def parse_search(
    catalog: Catalog, today: date, city: str, start: str, end: str, rooms: str
) -> dict[str, Any]:
    """The checked search, or FormError naming each bad field in Russian."""
    errors: dict[str, str] = {}
    found = catalog.city(city) if city else None
    if not city:
        errors["city"] = "Выберите город"
    elif found is None:
        errors["city"] = "Такого города нет в списке"
    dates: dict[str, date] = {}
    for name, value, caption in (("start", start, "заезда"), ("end", end, "выезда")):
        if not value:
            errors[name] = f"Укажите дату {caption}"
            continue
        try:
            dates[name] = date.fromisoformat(value)
        except ValueError:
            errors[name] = f"Такой даты нет: {value}"
            continue
        if dates[name] < today:
            errors[name] = f"Дата {caption} уже прошла"
    if "start" in dates and "end" in dates and "end" not in errors:
        nights = (dates["end"] - dates["start"]).days
        if nights < 1:
            errors["end"] = "Дата выезда должна быть позже даты заезда"
        elif nights > MAX_NIGHTS:
            errors["end"] = f"Не больше {MAX_NIGHTS} ночей"
    try:
        parsed = parse_rooms(rooms)
    except ValueError as exc:
        errors["rooms"] = str(exc)
        parsed = []
    if errors:
        raise FormError(errors)
    assert found is not None
    return {
        "city": found,
        "start": dates["start"],
        "end": dates["end"],
        "nights": (dates["end"] - dates["start"]).days,
        "rooms": parsed,
        "rooms_text": rooms,
        "guests": guests_count(parsed),
        "query": urlencode({"city": city, "start": start, "end": end, "rooms": rooms}),
    }


def search_facts(found: dict[str, Any]) -> dict[str, Any]:
    """The values a search was made with, as the search and booking events carry them."""
    return {
        "cityId": found["city"].id,
        "startDate": found["start"].isoformat(),
        "endDate": found["end"].isoformat(),
        "rooms": found["rooms"],
        "roomsCount": len(found["rooms"]),
        "guestsCount": found["guests"],
    }


def hotel_fits(hotel: Hotel, rooms: Rooms) -> bool:
    return all(any(room.fits(r["adults"], len(r["kids"])) for room in hotel.rooms) for r in rooms)


def make_check_page_event(catalog: Catalog) -> Any:
    def check(event_type: str, params: dict[str, Any], trajectory: Trajectory) -> None:
        if event_type == "bench_hotel_select_city":
            city = catalog.city(params["cityId"])
            if city is None:
                raise FieldError("params.cityId", f"no city {params['cityId']!r}")
            for key, value in (
                ("label", city.label),
                ("cityName", city.name),
                ("countryName", city.country),
            ):
                if params[key] != value:
                    raise FieldError(f"params.{key}", f"expected {value!r} for {city.id}")
        elif event_type in ("bench_hotel_select_start_date", "bench_hotel_select_end_date"):
            if date.fromisoformat(params["date"]) < trajectory.today:
                raise FieldError("params.date", "a date in the past cannot be picked")
        elif event_type == "bench_hotel_select_guests":
            rooms = params["rooms"]
            if params["roomsCount"] != len(rooms):
                raise FieldError("params.roomsCount", "must equal the number of rooms")
            if params["guestsCount"] != guests_count(rooms):
                raise FieldError("params.guestsCount", "must equal adults plus children")
            if any(len(r["kids"]) > LIMITS["kids"][1] for r in rooms):
                raise FieldError("params.rooms", "at most 4 children per room")

    return check


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    def render(
        pages: PagesDep, trajectory: TrajectoryDep, template: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse:
        return pages.render(
            trajectory,
            template,
            status,
            catalog=catalog,
            cities=catalog.city_options(),
            today=trajectory.today.isoformat(),
            **ctx,
        )

    def search_or_errors(
        trajectory: Trajectory, city: str, start: str, end: str, rooms: str
    ) -> tuple[dict[str, Any] | None, dict[str, str]]:
        try:
            today = trajectory.today
            return parse_search(catalog, today, city, start, end, rooms), {}
        except FormError as exc:
            return None, exc.errors

    @router.get("/")
    async def main(pages: PagesDep, trajectory: TrajectoryDep, emit: EmitDep) -> HTMLResponse:
        await emit.screen(MAIN_STATE)
        return render(pages, trajectory, "main.html", form={"rooms": "2"})

    @router.get("/search")
    async def search(
        pages: PagesDep,
        trajectory: TrajectoryDep,
        emit: EmitDep,
        city: str = "",
        start: str = "",
        end: str = "",
        rooms: str = "2",
    ) -> HTMLResponse:
        form = {"city": city, "start": start, "end": end, "rooms": rooms}
        found, errors = search_or_errors(trajectory, city, start, end, rooms)
        if found is None:
            return render(pages, trajectory, "main.html", 422, form=form, errors=errors)
        await emit.screen("bench_hotel_search", category=found["city"].id, **search_facts(found))
        hotels = [h for h in catalog.hotels_in(found["city"].id) if hotel_fits(h, found["rooms"])]
        return render(pages, trajectory, "results.html", form=form, search=found, hotels=hotels)

    @router.get("/hotel/{hotel_id}")
    async def hotel_page(
        hotel_id: str,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        emit: EmitDep,
        start: str = "",
        end: str = "",
        rooms: str = "2",
    ) -> HTMLResponse:
        hotel = catalog.hotel(hotel_id)
        if hotel is None:
            return render(pages, trajectory, "missing.html", 404)
        found, errors = search_or_errors(trajectory, hotel.city, start, end, rooms)
        facts = search_facts(found) if found else {}
        await emit.screen("bench_hotel_item", item_id=hotel.id, **facts)
        await emit("bench_hotel_select_hotel", hotelId=hotel.id, name=hotel.name)
        return render(
            pages,
            trajectory,
            "hotel.html",
            hotel=hotel,
            city=catalog.city(hotel.city),
            search=found,
            errors=errors,
        )

    @router.post("/hotel/{hotel_id}/room")
    async def choose_room(
        hotel_id: str,
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        emit: EmitDep,
        room_type: Annotated[str, Form()],
        start: Annotated[str, Form()] = "",
        end: Annotated[str, Form()] = "",
        rooms: Annotated[str, Form()] = "2",
    ) -> Response:
        hotel = catalog.hotel(hotel_id)
        if hotel is None:
            return render(pages, trajectory, "missing.html", 404)
        room = hotel.room(room_type)
        if room is None:
            raise HTTPException(422, f"room_type: no room {room_type!r} in {hotel.id}")
        found, errors = search_or_errors(trajectory, hotel.city, start, end, rooms)
        if found is None:
            return render(
                pages,
                trajectory,
                "hotel.html",
                422,
                hotel=hotel,
                city=catalog.city(hotel.city),
                search=None,
                errors=errors,
            )

        def keep(value: dict[str, Any]) -> None:
            value.update(hotel=hotel.id, room=room.type, start=start, end=end, rooms=rooms)

        await state.update("booking", keep)
        await emit(
            "bench_hotel_select_room",
            roomType=room.type,
            price=room.price,
            hotelId=hotel.id,
            **search_facts(found),
        )
        return RedirectResponse(f"/t/{trajectory.id}/{DOMAIN}/booking", 303)

    @router.get("/booking")
    async def booking(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        chosen = await state.get("booking")
        hotel = catalog.hotel(chosen.get("hotel", ""))
        room = hotel.room(chosen.get("room", "")) if hotel else None
        found = None
        if hotel is not None:
            found, _ = search_or_errors(
                trajectory, hotel.city, chosen["start"], chosen["end"], chosen["rooms"]
            )
        if hotel is not None and found is not None:
            await emit.screen("bench_hotel_booking", item_id=hotel.id, **search_facts(found))
        else:
            await emit.screen("bench_hotel_booking")
        return render(
            pages,
            trajectory,
            "booking.html",
            hotel=hotel,
            room=room,
            city=catalog.city(hotel.city) if hotel else None,
            search=found,
        )

    assets = APIRouter()

    @assets.get("/img/{hotel_id}.svg")
    async def image(hotel_id: str) -> Response:
        hotel = catalog.hotel(hotel_id)
        if hotel is None:
            raise HTTPException(404, f"hotel_id: no hotel {hotel_id!r}")
        return Response(
            image_svg(hotel),
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    spec = SiteSpec(
        domain=DOMAIN,
        root=HERE,
        page_event_types=frozenset(
            {
                "bench_hotel_select_city",
                "bench_hotel_select_start_date",
                "bench_hotel_select_end_date",
                "bench_hotel_select_guests",
            }
        ),
        check_page_event=make_check_page_event(catalog),
        ready=lambda: bool(catalog.hotels),
    )
    return create_site_app(spec, settings, router, assets)
