"""The site registry (services/core/sites.py): the six sites declared in pyproject.toml in
tab order, and a plug-in that cannot be used refused with a message that names it."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.stand import site_plugins

from services.core.contract import EVENT_TYPES, event_types
from services.core.sites import SiteError, registry

# A module of plug-ins beside the distribution that declares them (on sys.path with it).
BAD = """
from pydantic import BaseModel

from services.core.contract import Params
from services.core.sites import Evidence, SiteDescriptor
from toysite.plugin import SITE

FIELDS = SiteDescriptor(
    domain="Bad Key", caption=" ", order=1, app="bad.app:create_app",
    events=frozenset({"state_changed"}), search="bad.search",
    controls={"theme": ("light",), "size": ()},
    evidence=(Evidence("CARD", "bad_event"), Evidence("CARD", "state_changed", at_least=2)),
)
CLASH = SiteDescriptor(
    domain="clash", caption="Столкновение", order=1, app="bad.app",
    events=frozenset({"basket_add"}), event_types={"basket_add": Params},
)
PLAIN = SiteDescriptor(
    domain="plain", caption="Просто", order=1, app="bad.app",
    events=frozenset({"plain_event"}), event_types={"plain_event": BaseModel},
)
NOT_A_SITE = {"domain": "toy"}
"""


def test_the_released_sites_in_tab_order() -> None:
    assert registry().captions == {
        "shop": "Маркет",
        "books": "Книги",
        "grocery": "Продукты",
        "rail": "Поезда",
        "hotels": "Отели",
        "files": "Файлы",
    }
    assert event_types() == EVENT_TYPES  # no built-in site extends the released contract


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"shop": "services.market.plugin:SITE"}, "'shop' (services.market.plugin:SITE): domain"),
        ({"shop2": "toysite.plugin:SITE"}, "declares domain 'toy', its entry point is 'shop2'"),
        ({"toy": "badsites:NOT_A_SITE"}, "'toy' (badsites:NOT_A_SITE): is dict, not a Site"),
        ({"toy": "badsites:MISSING"}, "'toy' (badsites:MISSING): cannot be loaded"),
        ({"gone": "nosuchmodule:SITE"}, "'gone' (nosuchmodule:SITE): cannot be loaded"),
    ],
)
def test_a_plugin_that_cannot_be_used_is_named(
    processes, tmp_path: Path, entries: dict[str, str], message: str
) -> None:
    (tmp_path / "badsites.py").write_text(BAD)
    with site_plugins(tmp_path, entries), pytest.raises(SiteError, match="site plug-in") as raised:
        registry()
    assert message in str(raised.value)


def test_bad_fields_are_named_each(processes, tmp_path: Path) -> None:
    (tmp_path / "badsites.py").write_text(BAD)
    with site_plugins(tmp_path, {"Bad Key": "badsites:FIELDS"}), pytest.raises(SiteError) as bad:
        registry()
    for problem in (
        "site plug-in 'Bad Key' (badsites:FIELDS)",
        "domain 'Bad Key' is not a key",
        "caption is empty",
        "app 'bad.app:create_app' must name a module",
        "search 'bad.search' is not a 'module:function' reference",
        "control 'theme' is the page shell's",
        "control 'size': implementations must be distinct, at least one",
        "evidence names 'bad_event', an event the site does not write",
        "evidence for 'state_changed': at_least needs the parameter having",
    ):
        assert problem in str(bad.value)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"clash": "badsites:CLASH"}, "'clash': event type 'basket_add' is the released"),
        ({"plain": "badsites:PLAIN"}, "'plain': event type 'plain_event': its parameters must"),
    ],
)
def test_an_event_type_a_plugin_may_not_declare(
    processes, tmp_path: Path, entries: dict[str, str], message: str
) -> None:
    (tmp_path / "badsites.py").write_text(BAD)
    with site_plugins(tmp_path, entries), pytest.raises(SiteError) as raised:
        event_types()
    assert message in str(raised.value)
