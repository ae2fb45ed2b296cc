"""Игрушки declared as a site: the descriptor its entry point names (`toy` in
`webpagebench.sites`), with the event type it adds to the contract."""

from __future__ import annotations

from pydantic import Field

from services.core.contract import Params
from services.core.sites import Evidence, SiteDescriptor

SCREEN = "bench_toy_main"
BELLS = ("Колокольчик", "Бубенец")


class ToyRing(Params):
    """`toy_ring`: a toy's bell was rung."""

    bell: str = Field(min_length=1, max_length=40)


def screens() -> set[str]:
    return {SCREEN}


def vocabulary() -> dict[str, set[str]]:
    return {"bell": set(BELLS)}


SITE = SiteDescriptor(
    domain="toy",
    caption="Игрушки",
    order=70,
    app="toysite.app",
    events=frozenset({"state_changed", "toy_ring"}),
    screens="toysite.plugin:screens",
    vocabulary="toysite.plugin:vocabulary",
    controls={"bell_style": ("round", "square")},
    evidence=(Evidence("CARD", "toy_ring"),),
    event_types={"toy_ring": ToyRing},
)
