"""Отели's routes: parse the request, call `service`, write the event, render."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Form
from fastapi.responses import HTMLResponse, JSONResponse, Response

from services.core.contract import GUEST_LIMITS
from services.core.errors import FieldError, FormError
from services.core.models.events import Parameters
from services.hotels import service
from services.hotels.catalog import KINDS, Catalog, Hotel, Room, image_svg
from services.kit.catalog import svg_response
from services.kit.commerce import (
    FAVORITE_OPS,
    FAVORITES,
    change_favorite,
    list_events,
    redirect_back,
    wants_json,
)
from services.kit.pictures import ViewQuery
from services.kit.replay import Replay, Step
from services.kit.site import Context, SiteDep, SiteRequest, catalog, replace, site_prefix

DOMAIN = "hotels"
router = APIRouter(prefix=site_prefix(DOMAIN))
assets = APIRouter()
CatalogDep = Annotated[Catalog, Depends(catalog)]


async def page_context(site: SiteRequest) -> Context:
    """What every hotels page shows: the form's cities and today, the hotels in the
    favourites."""
    hotels: Catalog = site.catalog
    return {
        "catalog": hotels,
        "favorites": (await site.state.get(FAVORITES)).get("items", []),
        "groups": service.GROUPS,
        "sorts": service.SORTS,
        "rating_word": service.rating_word,
        "rates": service.rates,
        "aspects": service.aspects,
        "cities": hotels.city_options(),
        "today": site.trajectory.today.isoformat(),
        "required": service.REQUIRED,
        "guest_limits": GUEST_LIMITS,
    }


@router.get("/")
async def main(site: SiteDep, hotels: CatalogDep) -> HTMLResponse:
    await site.emit.screen(service.MAIN_STATE)
    # The popular cities' links search a weekend two weeks ahead, for two adults.
    friday = site.trajectory.today + timedelta(days=14 + (4 - site.trajectory.today.weekday()) % 7)
    stay = {"start": friday.isoformat(), "end": (friday + timedelta(days=2)).isoformat()}
    return await site.page(
        "main.html", form={"rooms": "2"}, destinations=hotels.popular_cities(), stay=stay
    )


@router.get("/search")
async def search(
    site: SiteDep,
    hotels: CatalogDep,
    city: str = "",
    start: str = "",
    end: str = "",
    rooms: str = "2",
) -> HTMLResponse:
    form = {"city": city, "start": start, "end": end, "rooms": rooms}
    today = site.trajectory.today
    found, errors = service.search_or_errors(hotels, today, city, start, end, rooms)
    if found is None:
        return await site.page("main.html", 422, form=form, errors=errors)
    facts = service.search_facts(found)
    await site.emit.screen("bench_hotel_search", category=found["city"].id, **facts)
    fitting = [
        h for h in hotels.hotels_in(found["city"].id) if service.hotel_fits(h, found["rooms"])
    ]
    filters, list_changed = service.parse_filters(site.request.query_params)
    await list_events(
        site, f"search?{found['query']}", filters.as_params(), filters.sort, list_changed
    )
    return await site.page(
        "results.html",
        form=form,
        search=found,
        fitting=fitting,
        hotels=(shown := filters.arrange(fitting, found)),
        pins=service.map_pins(shown),
        filters=filters,
        counts=filters.counts(fitting, found),
        kinds={
            kind: sum(h.kind == kind for h in fitting if filters.passes(h, found, but="type"))
            for kind in KINDS
        },
        here=f"{site.base}/search?{found['query']}&{filters.query()}",
    )


@router.get("/hotel/{hotel_id}")
async def hotel_page(
    hotel_id: str,
    site: SiteDep,
    hotels: CatalogDep,
    start: str = "",
    end: str = "",
    rooms: str = "2",
) -> HTMLResponse:
    hotel = hotels.hotel(hotel_id)
    if hotel is None:
        return await site.page("missing.html", 404)
    today = site.trajectory.today
    found, errors = service.search_or_errors(hotels, today, hotel.city, start, end, rooms)
    facts = service.search_facts(found) if found else {}
    await site.emit.screen("bench_hotel_item", item_id=hotel.id, **facts)
    await site.emit(
        "bench_hotel_select_hotel", hotelId=hotel.id, name=hotel.name, cityId=hotel.city
    )
    city = hotels.city(hotel.city)
    return await site.page("hotel.html", hotel=hotel, city=city, search=found, errors=errors)


@router.post("/hotel/{hotel_id}/room")
async def choose_room(
    hotel_id: str,
    site: SiteDep,
    hotels: CatalogDep,
    room_type: Annotated[str, Form()],
    start: Annotated[str, Form()] = "",
    end: Annotated[str, Form()] = "",
    rooms: Annotated[str, Form()] = "2",
    rate: Annotated[str, Form()] = "",
) -> Response:
    hotel = hotels.hotel(hotel_id)
    if hotel is None:
        return await site.page("missing.html", 404)
    room = hotel.room(room_type)
    if room is None:
        raise FieldError("room_type", f"no room {room_type!r} in {hotel.id}")
    if rate and rate not in {r.key for r in service.rates(hotel, room)}:
        raise FieldError("rate", f"no rate {rate!r} for {room.type}")
    errors = await choose(site, hotels, hotel, room, start, end, rooms, rate)
    if errors:
        city = hotels.city(hotel.city)
        return await site.page(
            "hotel.html", 422, hotel=hotel, city=city, search=None, errors=errors
        )
    return site.redirect("/booking")


async def choose(
    site: SiteRequest,
    hotels: Catalog,
    hotel: Hotel,
    room: Room,
    start: str,
    end: str,
    rooms: str,
    rate: str = "",
) -> dict[str, str]:
    """The one writer of a room choice: the booking stored with its search (as the form sent
    it) and its rate (`hotel_rates=rates`), any earlier confirmation dropped, and
    `bench_hotel_select_room` written with the room's price (a rate adds nothing to it); the
    search's errors by field instead, and nothing stored, when its dates or guests do not
    hold."""
    found, errors = service.search_or_errors(
        hotels, site.trajectory.today, hotel.city, start, end, rooms
    )
    if found is None:
        return errors
    booking: service.Booking = {
        "hotel": hotel.id,
        "room": room.type,
        "rate": rate,
        "start": start,
        "end": end,
        "rooms": rooms,
    }
    await site.state.update(service.BOOKING, lambda value: replace(value, booking))
    await site.emit(
        "bench_hotel_select_room",
        roomType=room.type,
        price=room.price,
        hotelId=hotel.id,
        **service.search_facts(found),
    )
    return {}


def make_replay(hotels: Catalog) -> Replay:
    """A start state on this site: a room chosen (`bench_hotel_select_room` with `hotelId`,
    `roomType`, `startDate`, `endDate` and `rooms`), which opens on the booking."""

    def found(params: Parameters) -> tuple[Hotel, Room]:
        hotel = hotels.hotel(str(params.get("hotelId")))
        if hotel is None:
            raise FieldError("parameters.hotelId", f"no hotel {params.get('hotelId')!r}")
        room = hotel.room(str(params.get("roomType")))
        if room is None:
            raise FieldError(
                "parameters.roomType", f"no room {params.get('roomType')!r} in {hotel.id}"
            )
        return hotel, room

    def check(params: Parameters) -> None:
        found(params)
        for name in ("startDate", "endDate", "rooms"):
            if name not in params:
                raise FieldError(f"parameters.{name}", "missing: the booking's search needs it")
        try:
            service.rooms_text(params["rooms"])
        except ValueError as exc:
            raise FieldError("parameters.rooms", str(exc)) from None

    async def apply(site: SiteRequest, params: Parameters) -> None:
        hotel, room = found(params)
        rooms = service.rooms_text(params["rooms"])
        errors = await choose(
            site, hotels, hotel, room, params["startDate"], params["endDate"], rooms
        )
        if errors:
            field, why = next(iter(errors.items()))
            raise FieldError(field, why)

    return Replay(
        DOMAIN,
        {"bench_hotel_select_room": Step(check, apply)},
        {"bench_hotel_booking": "/booking"},
    )


async def booked(
    site: SiteRequest, hotels: Catalog
) -> tuple[service.Booking, Hotel | None, service.Search | None]:
    """The `booking` state, its hotel and its search checked again (None where they do not
    hold any more)."""
    chosen = await site.state.get(service.BOOKING)
    hotel = hotels.hotel(chosen.get("hotel", ""))
    if hotel is None:
        return chosen, None, None
    found, _ = service.search_or_errors(
        hotels,
        site.trajectory.today,
        hotel.city,
        chosen["start"],
        chosen["end"],
        chosen["rooms"],
    )
    return chosen, hotel, found


@router.get("/booking")
async def booking(site: SiteDep, hotels: CatalogDep) -> HTMLResponse:
    return await booking_page(site, hotels)


async def booking_page(
    site: SiteRequest,
    hotels: Catalog,
    status: int = 200,
    guest: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
) -> HTMLResponse:
    """The booking: the room chosen, its stay and the guest's form (filled in for the
    cabinet's traveller, or as sent, with `errors`), its confirmation once sent."""
    chosen, hotel, found = await booked(site, hotels)
    room = hotel.room(chosen.get("room", "")) if hotel else None
    if hotel is not None and found is not None:
        facts = service.search_facts(found)
        await site.emit.screen("bench_hotel_booking", item_id=hotel.id, **facts)
    else:
        await site.emit.screen("bench_hotel_booking")
    city = hotels.city(hotel.city) if hotel else None
    rate = None
    if hotel is not None and room is not None:
        rate = next((r for r in service.rates(hotel, room) if r.key == chosen.get("rate")), None)
    return await site.page(
        "booking.html",
        status,
        hotel=hotel,
        room=room,
        rate=rate,
        city=city,
        search=found,
        guest=guest or service.GUEST,
        errors=errors or {},
        confirmation=chosen.get("confirmation"),
    )


@router.post("/booking")
async def confirm_booking(site: SiteDep, hotels: CatalogDep) -> Response:
    """The booking's guest form sent: its confirmation number kept with the booking and
    `bench_hotel_confirm_booking` written, back to the booking; the form again naming each
    bad field (422), or the booking page when no room is chosen (409)."""
    chosen, hotel, found = await booked(site, hotels)
    form = {k: str(v) for k, v in (await site.request.form()).items()}
    if hotel is None or found is None:
        return await booking_page(site, hotels, 409)
    try:
        service.check_guest(form)
    except FormError as refused:
        return await booking_page(site, hotels, 422, form, refused.errors)
    number = service.confirmation(site.trajectory.id, chosen)
    await site.state.update(service.BOOKING, lambda value: value.update({"confirmation": number}))
    await site.emit(
        "bench_hotel_confirm_booking",
        hotelId=hotel.id,
        roomType=chosen["room"],
        startDate=found["start"].isoformat(),
        endDate=found["end"].isoformat(),
        guestsCount=found["guests"],
        confirmation=number,
    )
    return site.redirect("/booking")


@router.post("/favorites/{hotel_id}")
async def change_favorites(
    hotel_id: str,
    site: SiteDep,
    hotels: CatalogDep,
    op: Annotated[str, Form()] = "toggle",
    next: Annotated[str, Form()] = "",
) -> Response:
    """♡ on a hotel's card (the kit's `fav` control and `/_kit/commerce.js`):
    `add_favorites` / `remove_favorites` as the shops write them."""
    hotel = hotels.hotel(hotel_id)
    if hotel is None:
        raise FieldError("hotel_id", f"no hotel {hotel_id!r}", 404)
    if op not in FAVORITE_OPS:
        raise FieldError("op", f"действие — одно из: {', '.join(FAVORITE_OPS)}")
    after = await change_favorite(site, hotel, op)
    if wants_json(site.request):
        count = len((await site.state.get(FAVORITES)).get("items", []))
        return JSONResponse({"item_id": hotel.id, "favorite": after, "count": count})
    return redirect_back(site, next)


@assets.get("/img/{hotel_id}.svg")
async def image(hotel_id: str, hotels: CatalogDep, view: ViewQuery = 1) -> Response:
    hotel = hotels.hotel(hotel_id)
    if hotel is None:
        raise FieldError("hotel_id", f"no hotel {hotel_id!r}", 404)
    return svg_response(image_svg(hotel, view))
