"""The language of the pages for people (the board, the comparison, the hub's runs, run and
trajectory pages): English by default, Russian on request (docs/results.md, "Language").

One message catalog: the English text in the templates and the Python that draws the pages
is the message id (gettext), `locale/ru/LC_MESSAGES/messages.po` its Russian, read with
Babel when first asked for (no compiled file to keep in step). `make messages` brings the
catalog in line with the sources; tests/services/hub/test_i18n.py fails while a message has
no translation. The sites, the agent's pages and the tasks' prompts are not translated.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from jinja2 import BaseLoader, Environment, select_autoescape

from services.core.errors import FieldError

LOCALE = Path(__file__).parent / "locale"
DOMAIN = "messages"
DEFAULT = "en"
# Each language named in itself, as the switch shows it.
LANGUAGES = {"en": "English", "ru": "Русский"}
# Where the hub remembers a person's choice.
COOKIE = "wpb_lang"
COOKIE_S = 365 * 24 * 3600


def catalog_path(code: str) -> Path:
    return LOCALE / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(code: str) -> gettext.NullTranslations:
    """The messages of language `code`: the ids themselves for English, else its catalog
    (with its plural forms: Russian has one, few and many)."""
    if code == DEFAULT:
        return gettext.NullTranslations()
    with catalog_path(code).open("rb") as po:
        catalog = read_po(po, locale=code, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def checked(code: str | None, field: str = "lang") -> str:
    """`code` when it names a language, the default when absent; refused otherwise."""
    if code is None or code == "":
        return DEFAULT
    if code not in LANGUAGES:
        raise FieldError(field, f"unknown language {code!r}; one of {', '.join(LANGUAGES)}")
    return code


def environment(loader: BaseLoader, code: str) -> Environment:
    """Jinja2 templates in language `code`: `_()`, `gettext()`, `ngettext()` and
    `{% trans %}` (new style: `%(name)s` placeholders filled and escaped by the call)."""
    env = Environment(loader=loader, autoescape=select_autoescape(), extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(translations(code), newstyle=True)  # type: ignore[attr-defined]
    env.globals["lang"] = code
    return env


@dataclass(frozen=True)
class Choice:
    """One language of the switch: its code, its name in itself, the address of this very
    page in it, and whether it is the page's."""

    code: str
    name: str
    href: str
    current: bool


def switch(current: str, href: Callable[[str], str]) -> Sequence[Choice]:
    """The switch a page shows: every language, `href(code)` this page in it."""
    return [Choice(code, name, href(code), code == current) for code, name in LANGUAGES.items()]
