"""Продукты' rules, without HTTP: the checkout's payment methods, delivery slots and order
checks, and what the receipt shows."""

from __future__ import annotations

from services.core.errors import FieldError
from services.kit.site import Context
from services.kit.trajectory import Trajectory

# payment method -> caption (the two a grocery service takes online)
PAY_METHODS: dict[str, str] = {"card": "Банковская карта", "sbp": "СБП"}
# delivery slot -> caption; the first is preselected
SLOTS: dict[str, str] = {
    "asap": "Как можно скорее, 45–60 минут",
    "evening": "Сегодня, 19:00–20:00",
    "late": "Сегодня, 21:00–22:00",
    "morning": "Завтра, 09:00–10:00",
}
# The order form a start state's payment is placed with (services/kit/replay.py).
SETUP_ORDER = {
    "address": "ул. Липовая, 7, кв. 12",
    "slot": "asap",
    "card_number": "4111 1111 1111 1111",
    "card_expiry": "12/39",
    "card_cvc": "123",
    "card_holder": "IVAN PETROV",
}


def check_order(form: dict[str, str]) -> None:
    """The address, the slot and the promo code (a card's fields are the kit's:
    `Checkout.card`); refused with the field."""
    if len(form.get("address", "").strip()) < 5:
        raise FieldError("address", "укажите адрес доставки: улицу, дом и квартиру")
    if form.get("slot", "asap") not in SLOTS:
        raise FieldError("slot", f"время доставки — одно из: {', '.join(SLOTS)}")
    if form.get("promo", "").strip():
        # No code is on sale in the stand's catalog: each one typed is refused, by name.
        raise FieldError("promo", "такого промокода нет или его срок истёк")


def receipt(form: dict[str, str], trajectory: Trajectory) -> Context:
    """The order's number, its delivery slot and whether it is left at the door."""
    return {
        "order": f"{int(trajectory.id[:8], 16) % 900000 + 100000}",
        "slot": SLOTS.get(form.get("slot", "asap"), SLOTS["asap"]),
        "at_door": bool(form.get("at_door")),
    }
