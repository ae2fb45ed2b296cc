"""Perturbations as controls (docs/tasks.md, "Perturbations"): the keys the page shell and
the kit implement on every site, each with `none` as its default.

A perturbation re-renders a fixed task with its prompt and conditions byte-identical, as any
other control does, so a variant's drop against its donor is a paired effect of the one
thing it changes. None of them changes an event a site writes or a condition; each one's
state (a dismissed dialog, a login, a delay) is the trajectory's own.

Pure data and checks: no web framework, no broker.
"""

from __future__ import annotations

import hashlib

from services.core.errors import FieldError
from services.core.models.events import Parameters

NONE = "none"

# key -> implementations, the default first; each implemented once for every site.
KEYS: dict[str, tuple[str, ...]] = {
    # Every site response delayed by the trajectory's seeded amount, with the spinner shown;
    # or an action answered after its control already looks idle.
    "latency": (NONE, "slow", "late_accept"),
    # A cookie-consent dialog on first load, a promo modal a few seconds after load, a
    # sticky banner over the bottom of the viewport.
    "overlay": (NONE, "consent", "promo", "sticky"),
    # Lists render their first cards and load the rest on scroll; lists in pages of 10;
    # repeated controls with one visible caption (their accessible names still differ).
    "layout": (NONE, "lazy", "paginated", "dup_labels"),
    # After the Nth state-changing action the site asks to log in again.
    "session": (NONE, "expire"),
    # Item cards open in a new tab.
    "tabs": (NONE, "new_tab"),
}

# -- latency and overlay: the amounts, seeded per trajectory, and the shell's dialogs ----

# Seconds every site response of a `latency=slow` trajectory waits (docs/tasks.md).
SLOW_S = (0.5, 3.0)
# Seconds the answer to an action (a POST) of a `latency=late_accept` trajectory waits,
# after the site has done it; the page's busy indicator hides after IDLE_AFTER_MS.
LATE_S = (1.5, 2.5)
IDLE_AFTER_MS = 500
# Seconds after a page's load that the promo dialog opens.
PROMO_S = (2.0, 4.0)

# The overlays that open a dialog -> how it may be closed: the `dialog` and `how` of their
# `dialog_opened` and `dialog_closed` (docs/events.md).
DIALOGS: dict[str, tuple[str, ...]] = {
    "consent": ("accept", "decline"),
    "promo": ("close", "escape"),
}
DIALOG_EVENTS = frozenset({"dialog_opened", "dialog_closed"})


def seeded(trajectory_id: str, what: str, span: tuple[float, float]) -> float:
    """A fixed amount in `span` for one trajectory and one use (`what`): the same on every
    request and every site, seeded by the trajectory's id, so a run is reproducible."""
    low, high = span
    digest = hashlib.sha256(f"{what}:{trajectory_id}".encode()).digest()
    return low + (high - low) * int.from_bytes(digest[:4]) / 0xFFFFFFFF


def is_shell_dialog(event_type: str, params: Parameters) -> bool:
    """Whether a page event records one of the shell's dialogs (not a site's own, such as
    the shop's login)."""
    return event_type in DIALOG_EVENTS and params.get("dialog") in DIALOGS


def check_dialog_event(event_type: str, params: Parameters, overlay: str | None) -> None:
    """A shell dialog's event as a page of a trajectory whose `overlay` is given may write
    it: of the dialog that overlay shows, closed in one of its ways; FieldError otherwise."""
    dialog = params.get("dialog")
    if dialog not in DIALOGS:
        raise FieldError("params.dialog", f"expected one of {sorted(DIALOGS)}")
    if dialog != overlay:
        raise FieldError("params.dialog", f"this trajectory's pages show no {dialog!r} dialog")
    how = params.get("how")
    if event_type == "dialog_closed" and how not in DIALOGS[dialog]:
        raise FieldError("params.how", f"expected one of {list(DIALOGS[dialog])}")


# `session=expire`: the test account the trajectory's hub page shows (login, password), and
# how many actions on a site work before its session runs out (services/kit/session.py).
ACCOUNT = ("tester", "proverka-2026")
EXPIRE_AFTER = 2
# `layout=lazy`: the cards a list shows at first, and how many more each scroll to its end
# brings; `layout=paginated`: the cards on a page (services/kit/static/perturb_layout.js).
LAZY_FIRST = 4
LAZY_STEP = 4
PAGE_SIZE = 10
