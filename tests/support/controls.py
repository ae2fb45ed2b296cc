"""The controls of a page's part as the accessibility tree names them: every one named, and
none taking a name a released task's path looks for (Playwright matches names by
substring) or a site's tab caption."""

from __future__ import annotations

import re

from playwright.sync_api import Locator

from services.core.sites import registry
from services.kit.chrome import RESERVED

# A control without an accessible name, as the accessibility snapshot shows it.
UNNAMED = re.compile(
    r"^\s*- (button|link|checkbox|radio|combobox|textbox|spinbutton)( \[[^\]]*\])?:?$"
)
CONTROL = re.compile(r'^\s*- (button|link|checkbox|radio|combobox|textbox|spinbutton) "([^"]+)"')
TAKEN = [*RESERVED, "поиск", "выбрать", "подтвердить заказ"] + [
    caption.casefold() for caption in registry().captions.values()
]


def names(region: Locator) -> list[str]:
    """The accessible names of the controls in `region`; it fails on an unnamed one."""
    lines = region.aria_snapshot().splitlines()
    unnamed = [line for line in lines if UNNAMED.match(line)]
    assert not unnamed, unnamed
    return [match[2] for line in lines if (match := CONTROL.match(line))]


def assert_free(captions: list[str]) -> None:
    """No caption contains a name a path looks for."""
    clashes = [(c, name) for c in captions for name in TAKEN if name in c.casefold()]
    assert not clashes, clashes
