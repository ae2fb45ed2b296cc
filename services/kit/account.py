"""What the shops' optional login and card form share: the phone a person logged in with (the
`user` state, which every page shows), the login form's check, and the bank card's checks
(the checkout's card form and the bank's page of `payment=bank`, services/kit/bank.py).
Nothing on a task's path asks for a login; a page that offers one keeps it here."""

from __future__ import annotations

import re
from datetime import date
from typing import TypedDict

from services.core.errors import FieldError
from services.kit.site import Context, SiteRequest, Slot

DECLINED_CARD = "4000000000000002"  # a test card the bank always declines
# The test card the bank accepts (number, expiry, CVC): the hub page shows it beside the
# account where a task's variants send the payment to the bank's page.
TEST_CARD = ("4111 1111 1111 1111", "12/39", "123")


def luhn(number: str) -> bool:
    digits = [int(d) for d in reversed(number)]
    return (sum(digits[0::2]) + sum(sum(divmod(2 * d, 10)) for d in digits[1::2])) % 10 == 0


def card_number(raw: str) -> str:
    """The card number without spaces and dashes; refused unless 16 digits passing Luhn."""
    number = re.sub(r"[\s-]", "", raw)
    if not re.fullmatch(r"[0-9]{16}", number) or not luhn(number):
        raise FieldError("card_number", "номер карты — 16 цифр, проверьте его")
    return number


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


def check_card_number(form: dict[str, str]) -> None:
    """A form's card number alone (Книги' checkout asks no more); refused with the field."""
    card_number(form.get("card_number", ""))


def check_card_details(form: dict[str, str], today: date) -> None:
    """A card's number (16 digits passing Luhn), expiry (ММ/ГГ, not before this month) and
    CVC (three digits); refused with the field."""
    card_number(form.get("card_number", ""))
    match = re.fullmatch(r"\s*([0-9]{2})\s*/\s*([0-9]{2})\s*", form.get("card_expiry", ""))
    if not match or not 1 <= int(match[1]) <= 12:
        raise FieldError("card_expiry", "срок действия в виде ММ/ГГ")
    month, year = int(match[1]), 2000 + int(match[2])
    if (year, month) < (today.year, today.month):
        raise FieldError("card_expiry", "срок действия карты истёк")
    if not re.fullmatch(r"[0-9]{3}", form.get("card_cvc", "").strip()):
        raise FieldError("card_cvc", "код CVC — три цифры с обратной стороны карты")


def check_card(form: dict[str, str], today: date) -> None:
    """The checkout's card form (`check_card_details` and the holder); refused with the
    field."""
    check_card_details(form, today)
    if not re.fullmatch(r"[A-Za-z][A-Za-z .'-]{1,48}", form.get("card_holder", "").strip()):
        raise FieldError("card_holder", "имя владельца латиницей, как на карте")


def is_declined(form: dict[str, str]) -> bool:
    """Whether the bank declines the form's card (`DECLINED_CARD`)."""
    return (
        form.get("method") == "card"
        and re.sub(r"\D", "", form.get("card_number", "")) == DECLINED_CARD
    )
