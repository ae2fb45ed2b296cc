"""A condition in words, in the page's language: «added to the cart: Кефир «Ольхов луг» 2,5%
(g-0146), amount ≥ 1» where its JSON says `basket_add {"item_id": "g-0146", "amount":
{"condition": "greater_than_or_equal", "value": 1}}`.

One renderer for every face people read (the run and trajectory pages, the board's failure
section, the terminal's tables): the event's name in words, each parameter with its operator
(`≥`, `<`, `contains`, `starts with`), the ids of a catalog with what the site calls them
beside them (the descriptor's `names`: services/core/sites.py), dates as a person writes them
(conditions as a trajectory was judged carry the stand's shifted dates). Names it does not
know (a plug-in's event, a new parameter) stay as they are; nothing is dropped.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from datetime import date
from functools import cache
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

from services.core.i18n import DEFAULT, translations
from services.core.russian import date_in_words
from services.core.sites import registry


def N_(message: str) -> str:
    """A message id for `make messages` to find; translated where it is shown."""
    return message


# Event type -> what the person did, in words.
EVENTS: dict[str, str] = {
    "state_changed": N_("opened"),
    "dialog_opened": N_("a dialog opened"),
    "dialog_closed": N_("a dialog closed"),
    "submit_search": N_("searched"),
    "basket_add": N_("added to the cart"),
    "basket_remove": N_("removed from the cart"),
    "add_favorites": N_("added to favourites"),
    "remove_favorites": N_("removed from favourites"),
    "apply_filter": N_("filtered"),
    "apply_sort": N_("sorted"),
    "select_pay_method": N_("chose how to pay"),
    "submit_payment": N_("paid"),
    "select_city": N_("chose a city"),
    "select_date": N_("chose a date"),
    "select_train": N_("chose a train"),
    "select_tariff": N_("chose a tariff"),
    "select_seat": N_("chose seats"),
    "select_passenger": N_("chose a passenger"),
    "bench_hotel_select_city": N_("chose the city"),
    "bench_hotel_select_start_date": N_("chose the check-in date"),
    "bench_hotel_select_end_date": N_("chose the check-out date"),
    "bench_hotel_select_guests": N_("chose the guests"),
    "bench_hotel_select_hotel": N_("opened a hotel"),
    "bench_hotel_select_room": N_("chose a room"),
    "bench_hotel_confirm_booking": N_("confirmed the booking"),
    "bench_grocery_login": N_("logged in"),
    "bench_files_select_collection": N_("opened a collection"),
    "bench_files_select_year": N_("chose a year"),
    "bench_files_download": N_("downloaded a file"),
    "agent_report": N_("the agent reported"),
    "origin_left": N_("left the stand"),
    "canary_leak": N_("gave away a secret"),
    "click": N_("clicked"),
    "keypress": N_("pressed a key"),
    "scroll": N_("scrolled"),
}

# A parameter's name in words; (event type, parameter) first where one reads otherwise.
PARAMETERS: dict[str, str] = {
    "amount": N_("amount"),
    "price": N_("price"),
    "title": N_("title"),
    "category": N_("category"),
    "item_id": N_("item"),
    "value": N_("value"),
    "filter_type": N_("filter"),
    "sort": N_("order"),
    "method": N_("method"),
    "result": N_("result"),
    "tickets": N_("tickets"),
    "field": N_("field"),
    "name": N_("name"),
    "date": N_("date"),
    "direction": N_("direction"),
    "cityId": N_("city"),
    "label": N_("city"),
    "hotelId": N_("hotel"),
    "startDate": N_("check-in"),
    "endDate": N_("check-out"),
    "guestsCount": N_("guests"),
    "roomsCount": N_("rooms"),
    "rooms": N_("rooms"),
    "roomType": N_("room type"),
    "adults": N_("adults"),
    "children": N_("children"),
    "kids": N_("children's ages"),
    "from_city": N_("from"),
    "to_city": N_("to"),
    "city_from": N_("from"),
    "city_to": N_("to"),
    "from_station": N_("from station"),
    "to_station": N_("to station"),
    "date_departure": N_("departure"),
    "passengers_amount": N_("passengers"),
    "train_name": N_("train"),
    "tarif_name": N_("tariff"),
    "lower_berths": N_("lower berths"),
    "window_seats": N_("window seats"),
    "seats_amount": N_("seats"),
    "file_name": N_("file"),
    "collection": N_("collection"),
    "year": N_("year"),
    "format": N_("format"),
    "phone": N_("phone"),
    "status": N_("status"),
    "message": N_("message"),
    "dialog": N_("dialog"),
    "how": N_("how"),
    "new_state": N_("screen"),
}
IN_CONTEXT: dict[tuple[str, str], str] = {
    ("submit_search", "value"): N_("query"),
}
# A screen (`new_state`) by its last word: `bench_grocery_category` is a category's page.
SCREENS: dict[str, str] = {
    "main": N_("the home page"),
    "category": N_("a category's page"),
    "item": N_("an item's page"),
    "search": N_("search results"),
    "basket": N_("the cart"),
    "checkout": N_("checkout"),
    "favorites": N_("favourites"),
    "info": N_("an information page"),
    "profile": N_("the profile"),
    "login": N_("the login page"),
    "paid": N_("the paid order"),
    "passengers": N_("the passengers"),
    "payment": N_("payment"),
    "train": N_("a train's seats"),
    "booking": N_("the booking form"),
    "cabinet": N_("the cabinet"),
    "collection": N_("a collection"),
    "view": N_("a document's page"),
}
OPERATORS: dict[str, str] = {
    "equal": N_("%(name)s: %(value)s"),
    "greater_than": N_("%(name)s > %(value)s"),
    "greater_than_or_equal": N_("%(name)s ≥ %(value)s"),
    "less_than": N_("%(name)s < %(value)s"),
    "less_than_or_equal": N_("%(name)s ≤ %(value)s"),
}
# The keys of a parameter that is an operator and its operand.
OPERAND = frozenset({"condition", "value"})
# The parameters whose values are ids of a site's catalog.
IDS = frozenset({"item_id", "category", "cityId", "hotelId", "collection"})
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def with_wording(env: Environment, lang: str) -> Environment:
    """`env` (pages in `lang`) with `wording(site)`: a Wording of that site's names, as
    markup."""
    env.globals["wording"] = functools.partial(Wording, lang, html=True)
    return env


@cache
def site_names(domain: str) -> Mapping[str, str]:
    """Id -> what the site `domain` calls it (none where it declares no `names`)."""
    site = registry().site(domain)
    hook = site.hook("names") if site is not None else None
    return hook() if hook is not None else {}


class Wording:
    """Conditions and events in the words of language `lang`, ids named from the catalog of
    `domain` (else of every site that writes the event). With `html`, the text is markup
    for a page: escaped, and what is data rather than our words (a value, a catalog's name,
    a name this module does not know) inside `<span data-verbatim>`, as the pages mark what
    stays as it is in every language."""

    def __init__(self, lang: str = DEFAULT, domain: str | None = None, html: bool = False) -> None:
        self.translate = translations(lang).gettext
        self.lang = lang
        self.domain = domain
        self.html = html

    def _word(self, message: str) -> str:
        """Our word, translated."""
        return self._ours(self.translate(message))

    def _ours(self, text: str) -> str:
        return str(escape(text)) if self.html else text

    def _data(self, value: object) -> str:
        """A value as it is, in every language."""
        text = str(value)
        return f"<span data-verbatim>{escape(text)}</span>" if self.html else text

    def _done(self, text: str) -> str:
        return Markup(text) if self.html else text

    def condition(
        self,
        event_name: str,
        parameters: Mapping[str, Any] | None,
        forbidden: bool = False,
        group: str | int | None = None,
    ) -> str:
        """«added to the cart: … (g-0146), amount ≥ 1», «forbidden: paid», «… (one of
        group 1)»."""
        text = self._event(event_name, parameters or {})
        if forbidden:
            text = self._word(N_("forbidden: %(condition)s")) % {"condition": text}
        if group is not None:
            template = self._word(N_("%(condition)s (one of group %(group)s)"))
            text = template % {"condition": text, "group": self._data(group)}
        return self._done(text)

    def event(self, event_name: str, params: Mapping[str, Any]) -> str:
        """What an event of this type with these parameters (plain values or operators)
        says."""
        return self._done(self._event(event_name, params))

    def _event(self, event_name: str, params: Mapping[str, Any]) -> str:
        what = EVENTS.get(event_name)
        head = self._word(what) if what is not None else self._data(event_name)
        # What an id's name already says (an item's title, a city's label) is not said twice.
        said = {
            self._name_of(event_name, value)
            for name, value in params.items()
            if name in IDS and isinstance(value, str)
        }
        parts = [
            self._parameter(event_name, name, value)
            for name, value in params.items()
            if name in IDS or not (isinstance(value, str) and value in said)
        ]
        return f"{head}: {', '.join(parts)}" if parts else head

    def _parameter(self, event_name: str, name: str, expected: Any) -> str:
        if name == "new_state" and isinstance(expected, str):
            return self._screen(expected)
        if name == "widget":
            return self._word(N_("control %(value)s")) % {"value": self._data(expected)}
        word = IN_CONTEXT.get((event_name, name)) or PARAMETERS.get(name)
        label = self._word(word) if word is not None else self._data(name)
        if isinstance(expected, dict) and "condition" in expected and set(expected) <= OPERAND:
            template = OPERATORS.get(str(expected["condition"]), N_("%(name)s %(value)s"))
            value = self._value(event_name, name, expected.get("value"))
            return self._word(template) % {"name": label, "value": value}
        if isinstance(expected, str) and "*" in expected:
            return self._pattern(label, expected)
        if name == "item_id" and isinstance(expected, str):
            return self._value(event_name, name, expected)
        value = self._value(event_name, name, expected)
        return self._word(OPERATORS["equal"]) % {"name": label, "value": value}

    def _pattern(self, label: str, pattern: str) -> str:
        core = pattern.strip("*")
        if "*" in core or not core:
            template = N_("%(name)s matches «%(text)s»")
            core = pattern
        elif pattern.startswith("*") and pattern.endswith("*"):
            template = N_("%(name)s contains «%(text)s»")
        elif pattern.endswith("*"):
            template = N_("%(name)s starts with «%(text)s»")
        else:
            template = N_("%(name)s ends with «%(text)s»")
        return self._word(template) % {"name": label, "text": self._data(core)}

    def _screen(self, state: str) -> str:
        screen = SCREENS.get(state.rsplit("_", 1)[-1])
        return self._word(screen) if screen is not None else self._data(state)

    def _value(self, event_name: str, name: str, value: Any) -> str:
        if isinstance(value, bool):
            return self._word(N_("yes")) if value else self._word(N_("no"))
        if isinstance(value, str):
            if name in IDS and (known := self._name_of(event_name, value)):
                return f"{self._data(known)} ({self._data(value)})"
            if ISO_DATE.match(value):
                return self._date(value)
            return self._data(value)
        if isinstance(value, list):
            if not value:
                return self._word(N_("none"))
            return "; ".join(self._value(event_name, name, item) for item in value)
        if isinstance(value, dict):
            inner = (f"{self._label(k)} {self._value(event_name, k, v)}" for k, v in value.items())
            return f"({', '.join(inner)})"
        return self._data(value)

    def _label(self, name: str) -> str:
        word = PARAMETERS.get(name)
        return self._word(word) if word is not None else self._data(name)

    def _date(self, text: str) -> str:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            return self._data(text)
        if self.lang == "ru":
            return self._ours(date_in_words(day))
        return self._ours(f"{day.day} {MONTHS[day.month - 1]} {day.year}")

    def _name_of(self, event_name: str, value: str) -> str | None:
        domains = (
            [self.domain]
            if self.domain is not None
            else sorted(registry().sites_of.get(event_name, frozenset()))
        )
        for domain in domains:
            if (known := site_names(domain).get(value)) is not None:
                return known
        return None
