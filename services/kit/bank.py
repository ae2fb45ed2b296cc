"""The bank's page, the `payment=bank` implementation (docs/sites.md, "The bank's page"): where
a task's variants select it, a checkout paid by card takes no card fields itself. Its pay
button keeps the order's form (the `bank` state) and opens the bank's page, which shows the
shop and the amount and takes the card: the number (spaces every four digits, Luhn), the
expiry (ММ/ГГ, not before this month), the CVC (three digits, masked), then «Оплатить N ₽».
The page checks the fields (`/_kit/bank.js`), shows «Обрабатываем платёж…» and posts them;
the server checks them again (a 422 naming the field) and the site writes `submit_payment` as
its own form would: declined for `DECLINED_CARD` (the page says so and offers another card,
the order kept), else paid, and the site's paid screen.

The bank's page is the bank's, not the site's: it writes no `state_changed`, so the screen
that writes `submit_payment` (the checkout, rail's payment) is the same as without it."""

from __future__ import annotations

import re

from fastapi.responses import HTMLResponse
from typing_extensions import TypedDict

from services.core.errors import FieldError
from services.kit.account import DECLINED_CARD, check_card_details
from services.kit.site import SiteRequest, Slot, replace

KEY = "payment"  # the variant key; its implementations: "form" (the default), "bank"
BANK = "bank"
CARD_FIELDS = ("card_number", "card_expiry", "card_cvc")
NAME = "Банк «Семь мостов»"  # the bank's name on its page (no real bank's)


class Pending(TypedDict, total=False):
    """The `bank` state: the checkout's form, kept while the bank's page takes the card."""

    form: dict[str, str]


PENDING: Slot[Pending] = Slot("bank")


def used(site: SiteRequest) -> bool:
    """Whether this trajectory pays by card on the bank's page on this site."""
    return site.trajectory.variant(site.spec.domain, KEY) == BANK


def card(sent: dict[str, str], site: SiteRequest) -> dict[str, str]:
    """The bank's form: its card fields only, checked (`check_card_details` against the
    trajectory's today); refused with the field (422)."""
    fields = {name: str(sent.get(name, ""))[:40] for name in CARD_FIELDS}
    check_card_details(fields, site.trajectory.today)
    return fields


def declined(fields: dict[str, str]) -> bool:
    """Whether the bank declines the card (`DECLINED_CARD`)."""
    return re.sub(r"\D", "", fields.get("card_number", "")) == DECLINED_CARD


async def hold(site: SiteRequest, form: dict[str, str]) -> None:
    """Keep the checkout's form (its card fields dropped) until the bank's page pays it."""
    kept = {key: value for key, value in form.items() if key not in CARD_FIELDS}
    await site.state.update(PENDING, lambda value: replace(value, {"form": kept}))


async def held(site: SiteRequest) -> dict[str, str] | None:
    """The checkout's form the bank's page pays, or None when no checkout sent one."""
    return (await site.state.get(PENDING)).get("form")


async def release(site: SiteRequest) -> None:
    await site.state.update(PENDING, lambda value: replace(value, {}))


async def page(
    site: SiteRequest,
    amount: int,
    back: str,
    status: int = 200,
    error: FieldError | None = None,
    refused: bool = False,
) -> HTMLResponse:
    """The bank's page for `amount` roubles to this site (`back`: the site's page it came
    from), with a field's `error` or the decline (`refused`)."""
    return await site.page(
        "kit/bank.html",
        status,
        CHROME=None,  # the bank's own page: no header, footer or menus of the shop
        bank={
            "name": NAME,
            "amount": amount,
            "action": site.request.url.path,  # the page posts where it was served
            "back": back,
            "today": site.trajectory.today.isoformat(),
            "error": error,
            "declined": refused,
        },
    )
