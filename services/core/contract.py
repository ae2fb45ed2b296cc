"""The event contract: every event type, its parameters, and how an incoming event is checked.

Names are fixed by the event contract (docs/events.md); other tools and task files depend
on them. A type's schema forbids unknown parameters, except `widget` (the implementation
that wrote the event), which any event may carry. `EVENT_TYPES` is the released contract;
`event_types()` adds the types that site plug-ins declare (services/core/sites.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from services.core.errors import FieldError
from services.core.models.run import ReportStatus
from services.core.sites import Registry, SiteError, registry

# Who wrote an event: a site's handler, the page's JavaScript, or the start state's replay.
Source = Literal["page", "server", "setup"]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)

    widget: str | None = Field(default=None, max_length=64)


class IsoDate(Params):
    date: str

    @field_validator("date")
    @classmethod
    def _iso(cls, value: str) -> str:
        date.fromisoformat(value)
        if len(value) != 10:
            raise ValueError("expected YYYY-MM-DD")
        return value


# -- screens and navigation -------------------------------------------------------------


class HotelSearch(Params):
    """The search a hotel screen (results, hotel, booking) or room choice was made with."""

    cityId: str | None = None
    startDate: str | None = None
    endDate: str | None = None
    rooms: list[Room] | None = Field(default=None, min_length=1, max_length=6)
    roomsCount: int | None = Field(default=None, ge=1, le=6)
    guestsCount: int | None = Field(default=None, ge=1, le=36)


class StateChanged(HotelSearch):
    new_state: str = Field(min_length=1, max_length=80)
    # Optional context of the screen: the category, item or query it shows.
    category: str | None = None
    item_id: str | None = None
    # files: the collection a `bench_files_collection` screen shows (its catalog id).
    collection: str | None = None


class DialogOpened(Params):
    dialog: str = Field(min_length=1, max_length=80)


class DialogClosed(DialogOpened):
    """A dialog the person closed, and how (`accept`, `decline` of the consent; `close`,
    `escape` of the promo: services/core/perturb.py DIALOGS)."""

    how: str | None = Field(default=None, min_length=1, max_length=40)


# -- commerce ---------------------------------------------------------------------------


class SubmitSearch(Params):
    value: str | None = Field(default=None, max_length=500)
    city_from: str | None = None
    city_to: str | None = None
    date_departure: str | None = None
    passengers_amount: int | None = Field(default=None, ge=0, le=20)


class TicketSeat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1)
    near_window: bool
    lower_berth: bool | None = None  # None in a sitting car


class TicketPassenger(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    kind: Literal["adult", "child"]


class Basket(Params):
    item_id: str
    amount: int = Field(ge=0)
    title: str
    price: int | float = Field(ge=0)
    # rail: what a ticket line books (train, route, day, tariff, seats, passengers).
    train_name: str | None = None
    from_city: str | None = None
    to_city: str | None = None
    from_station: str | None = None
    to_station: str | None = None
    date: str | None = None
    tarif_name: str | None = None
    seats: list[TicketSeat] | None = Field(default=None, max_length=20)
    lower_berths: int | None = Field(default=None, ge=0)
    window_seats: int | None = Field(default=None, ge=0)
    passengers: list[TicketPassenger] | None = Field(default=None, max_length=20)
    adults: int | None = Field(default=None, ge=0)
    children: int | None = Field(default=None, ge=0)


class Favorites(Params):
    item_id: str
    title: str


class ApplyFilter(Params):
    filter_type: str
    value: str | int | float | bool | None


class ApplySort(Params):
    sort: str


class PayMethod(Params):
    method: str


class PaidTicket(BaseModel):
    model_config = ConfigDict(extra="forbid")

    train_name: str
    from_city: str
    to_city: str
    date: str
    tarif_name: str
    amount: int = Field(ge=1)


class SubmitPayment(Params):
    method: str | None = None
    result: str
    amount: float = Field(ge=0)
    # The cart lines the payment was for, in cart order; rail names each ticket line too.
    item_ids: list[str] = Field(default_factory=list, max_length=200)
    tickets: list[PaidTicket] | None = Field(default=None, max_length=200)


# -- rail -------------------------------------------------------------------------------


class SelectCity(Params):
    field: Literal["from", "to"]
    name: str


class SelectDate(IsoDate):
    direction: Literal["departure", "return"]


class SelectTrain(Params):
    train_name: str
    from_station: str
    to_station: str


class SelectTariff(Params):
    tarif_name: str  # spelled so in the contract
    direction: Literal["departure", "return"] = "departure"


class SelectSeat(Params):
    seats_amount: int = Field(ge=0)
    near_window: bool | None = None
    lower_berth: bool | None = None


class SelectPassenger(Params):
    passenger_index: int = Field(ge=0)


# -- hotels -----------------------------------------------------------------------------


class HotelCity(Params):
    cityId: str
    label: str
    cityName: str
    countryName: str


# The hotel guests field's limits, (lowest, highest): rooms per booking, adults and children
# per room, a child's age. The server checks them, the guests widget reads them from the page
# (`data-limits`), the contract refuses events past them.
GUEST_LIMITS: dict[str, tuple[int, int]] = {
    "rooms": (1, 6),
    "adults": (1, 6),
    "kids": (0, 4),
    "age": (0, 17),
}
_ROOMS, _ADULTS, _KIDS, _AGE = (GUEST_LIMITS[k] for k in ("rooms", "adults", "kids", "age"))


class Room(BaseModel):
    model_config = ConfigDict(extra="forbid")
    adults: int = Field(ge=_ADULTS[0], le=_ADULTS[1])
    kids: list[int] = Field(default_factory=list, max_length=_KIDS[1])

    @field_validator("kids")
    @classmethod
    def _ages(cls, value: list[int]) -> list[int]:
        if any(not _AGE[0] <= age <= _AGE[1] for age in value):
            raise ValueError(f"a child's age is {_AGE[0]}..{_AGE[1]}")
        return value


class HotelGuests(Params):
    rooms: list[Room] = Field(min_length=_ROOMS[0], max_length=_ROOMS[1])
    roomsCount: int = Field(ge=_ROOMS[0], le=_ROOMS[1])
    guestsCount: int = Field(ge=_ADULTS[0], le=_ROOMS[1] * (_ADULTS[1] + _KIDS[1]))


class HotelSelect(Params):
    hotelId: str
    name: str
    # The hotel's city (its `cityId`, as `bench_hotel_select_city` names it).
    cityId: str | None = None


class HotelRoom(HotelSearch):
    roomType: str
    price: int | float = Field(ge=0)
    # The booking the room was chosen for: its hotel (and, from HotelSearch, the search).
    hotelId: str | None = None


class HotelConfirm(Params):
    """Отели' booking confirmed by the guest's form: the hotel, room and stay it books, how
    many guests, and the confirmation number the page shows."""

    hotelId: str
    roomType: str
    startDate: str
    endDate: str
    guestsCount: int = Field(ge=1, le=36)
    confirmation: str = Field(min_length=1, max_length=20)


# -- files ------------------------------------------------------------------------------


class GroceryLogin(Params):
    """Продукты' login form accepted: the phone logged in with, as the page shows it."""

    phone: str = Field(pattern=r"^\+7 [0-9]{3} [0-9]{3}-[0-9]{2}-[0-9]{2}$")


class FilesCollection(Params):
    collection: str


class FilesYear(Params):
    year: int | str


class FilesDownload(Params):
    file_name: str
    # The file's collection and year (as `bench_files_select_collection` and
    # `bench_files_select_year` name them) and its kind (`pdf`, `csv`).
    collection: str | None = None
    year: int | None = None
    format: str | None = None


# Upstream's names of our parameters, per event type: a task's condition may name either
# (services/core/tasks.py reads the alias as ours). Upstream's `state_id` is the item's id
# on an item's screen; on another screen it names a state of upstream's own, which no event
# of ours carries.
ALIASES: dict[str, dict[str, str]] = {
    "state_changed": {"state_id": "item_id"},
    "bench_files_download": {"file": "file_name"},
    "bench_hotel_select_hotel": {"hotelName": "name"},
}


def parameter_names(event_type: str) -> set[str]:
    """The parameters a condition on `event_type` may name: the contract's and their
    aliases."""
    return set(event_types()[event_type].model_fields) | set(ALIASES.get(event_type, {}))


# -- the agent ---------------------------------------------------------------------------


class AgentReport(Params):
    """What the agent said at the end (its output.json's status and final message), written
    by the hub when the runner closes the trajectory."""

    status: ReportStatus
    message: str = Field(default="", max_length=4000)


# -- sinks: what an attack's goal leaves behind (docs/tasks.md, "Injection") -------------


class OriginLeft(Params):
    """The agent's browser asked for a URL outside the trajectory's address: a path of the
    hub outside `/t/<tid>/` (`via: "hub"`), or another host (`via: "browser"`, recorded by
    the runner, which owns the browser)."""

    url: str = Field(min_length=1, max_length=2000)
    via: Literal["hub", "browser"]


class CanaryLeak(Params):
    """The trajectory's canary secret (shown on an account page) appeared in a request the
    agent's browser sent through the hub: `where` in it, on which `domain` and `path`."""

    where: Literal["path", "query", "body"]
    domain: str = Field(max_length=40)
    path: str = Field(max_length=2000)


# -- low-level tracking (never used in conditions) --------------------------------------


class Click(Params):
    x: float | None = None
    y: float | None = None
    target: str | None = Field(default=None, max_length=200)


class KeyPress(Params):
    key: str = Field(max_length=40)
    target: str | None = Field(default=None, max_length=200)


class Scroll(Params):
    x: float | None = None
    y: float | None = None


EVENT_TYPES: dict[str, type[Params]] = {
    "state_changed": StateChanged,
    "dialog_opened": DialogOpened,
    "dialog_closed": DialogClosed,
    "submit_search": SubmitSearch,
    "basket_add": Basket,
    "basket_remove": Basket,
    "add_favorites": Favorites,
    "remove_favorites": Favorites,
    "apply_filter": ApplyFilter,
    "apply_sort": ApplySort,
    "select_pay_method": PayMethod,
    "submit_payment": SubmitPayment,
    "select_city": SelectCity,
    "select_date": SelectDate,
    "select_train": SelectTrain,
    "select_tariff": SelectTariff,
    "select_seat": SelectSeat,
    "select_passenger": SelectPassenger,
    "bench_hotel_select_city": HotelCity,
    "bench_hotel_select_start_date": IsoDate,
    "bench_hotel_select_end_date": IsoDate,
    "bench_hotel_select_guests": HotelGuests,
    "bench_hotel_select_hotel": HotelSelect,
    "bench_hotel_select_room": HotelRoom,
    "bench_hotel_confirm_booking": HotelConfirm,
    "bench_grocery_login": GroceryLogin,
    "bench_files_select_collection": FilesCollection,
    "bench_files_select_year": FilesYear,
    "bench_files_download": FilesDownload,
    "agent_report": AgentReport,
    "origin_left": OriginLeft,
    "canary_leak": CanaryLeak,
    "click": Click,
    "keypress": KeyPress,
    "scroll": Scroll,
}

# Selections that stand: a later event of the same slot replaces the earlier one, so what the
# user ends up with is the last (a form's field, the payment method, the one hotel booking).
# event type -> the parameters that name its slot (rail's `field`: «откуда» and «куда» are
# two). A condition on one is judged on the last event of each slot (docs/tasks.md,
# "Selections that stand"). Not here: pages and views (a collection, a year, a hotel's
# page, a filter, a sort: opening another later undoes nothing), and what is put in a cart
# (a train, a tariff, a seat are chosen anew for each ticket; the cart line stands).
STANDING: dict[str, tuple[str, ...]] = {
    "select_pay_method": (),
    "select_city": ("field",),
    "select_date": ("direction",),
    "bench_hotel_select_city": (),
    "bench_hotel_select_start_date": (),
    "bench_hotel_select_end_date": (),
    "bench_hotel_select_guests": (),
    "bench_hotel_select_room": (),
}

# Types the passive tracker writes; every page may send them.
TRACKING_TYPES = frozenset({"click", "keypress", "scroll"})


def event_types() -> Mapping[str, type[Params]]:
    """Every event type: the released contract's and those the registered sites declare."""
    return _with_declared(registry())


@cache
def _with_declared(sites: Registry) -> Mapping[str, type[Params]]:
    merged = dict(EVENT_TYPES)
    for name, schema in sites.event_types.items():
        where = f"site plug-in {sites.declared_by[name]!r}: event type {name!r}"
        if name in EVENT_TYPES:
            raise SiteError(f"{where} is the released contract's, it cannot be declared again")
        if not issubclass(schema, Params):
            raise SiteError(f"{where}: its parameters must subclass services.core.contract.Params")
        merged[name] = schema
    return merged


def validate_params(event_type: str, params: Any, where: str = "") -> dict[str, Any]:
    """The event's parameters as the contract defines them, or FieldError naming the field."""
    prefix = f"{where}." if where else ""
    schema = event_types().get(event_type)
    if schema is None:
        raise FieldError(f"{prefix}type", f"unknown event type {event_type!r}")
    if not isinstance(params, dict):
        raise FieldError(f"{prefix}params", "must be an object")
    try:
        model = schema.model_validate(params)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(part) for part in first["loc"])
        raise FieldError(f"{prefix}params.{loc}", first["msg"]) from None
    return model.model_dump(exclude_none=True, exclude_unset=True, mode="json")
