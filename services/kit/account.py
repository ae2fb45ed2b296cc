"""What the shops' optional login and card form share: the phone a person logged in with (the
`user` state, which every page shows), the login form's check, and the bank card's checks.
Nothing on a task's path asks for a login; a page that offers one keeps it here."""

from __future__ import annotations

import re
from datetime import date
from typing import TypedDict

from services.core.errors import FieldError
from services.kit.commerce import card_number
from services.kit.site import Context, SiteRequest, Slot

DECLINED_CARD = "4000000000000002"  # a test card the bank always declines


class User(TypedDict, total=False):
    """The `user` state: the phone logged in with, as the page shows it."""

    phone: str


USER: Slot[User] = Slot("user")


async def logged_in(site: SiteRequest) -> Context:
    """Every page's `user`: the phone logged in with, or None (a `Commerce.request_context`)."""
    return {"user": (await site.state.get(USER)).get("phone")}


def login_phone(phone: str, password: str) -> str:
    """The phone as the page shows it once logged in; refused with the field."""
    digits = re.sub(r"\D", "", phone)
    if not re.fullmatch(r"[78]?[0-9]{10}", digits):
        raise FieldError("phone", "телефон — 10 цифр после +7")
    if not 4 <= len(password) <= 64:
        raise FieldError("password", "пароль — от 4 до 64 символов")
    return f"+7 {digits[-10:-7]} {digits[-7:-4]}-{digits[-4:-2]}-{digits[-2:]}"


async def log_in(site: SiteRequest, phone: str, password: str) -> str:
    """The form's phone and password checked and the phone kept as the `user`; the phone as
    shown. Refused: FieldError naming the field, nothing kept."""
    shown = login_phone(phone, password)
    await site.state.update(USER, lambda value: value.update({"phone": shown}))
    return shown


def check_card(form: dict[str, str], today: date) -> None:
    """The card form's fields (number, expiry, CVC, holder); refused with the field."""
    card_number(form.get("card_number", ""))
    match = re.fullmatch(r"\s*([0-9]{2})\s*/\s*([0-9]{2})\s*", form.get("card_expiry", ""))
    if not match or not 1 <= int(match[1]) <= 12:
        raise FieldError("card_expiry", "срок действия в виде ММ/ГГ")
    month, year = int(match[1]), 2000 + int(match[2])
    if (year, month) < (today.year, today.month):
        raise FieldError("card_expiry", "срок действия карты истёк")
    if not re.fullmatch(r"[0-9]{3}", form.get("card_cvc", "").strip()):
        raise FieldError("card_cvc", "код CVC — три цифры с обратной стороны карты")
    if not re.fullmatch(r"[A-Za-z][A-Za-z .'-]{1,48}", form.get("card_holder", "").strip()):
        raise FieldError("card_holder", "имя владельца латиницей, как на карте")


def is_declined(form: dict[str, str]) -> bool:
    """Whether the bank declines the form's card (`DECLINED_CARD`)."""
    return (
        form.get("method") == "card"
        and re.sub(r"\D", "", form.get("card_number", "")) == DECLINED_CARD
    )
