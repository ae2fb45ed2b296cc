"""Perturbations as controls (docs/tasks.md, "Perturbations"): the keys the page shell and
the kit implement on every site, each with `none` as its default.

A perturbation re-renders a fixed task with its prompt and conditions byte-identical, as any
other control does, so a variant's drop against its donor is a paired effect of the one
thing it changes. None of them changes an event a site writes or a condition; each one's
state (a dismissed dialog, a login, a delay) is the trajectory's own.

Pure data: no web framework, no broker.
"""

from __future__ import annotations

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

# `session=expire`: the test account the trajectory's hub page shows (login, password), and
# how many actions on a site work before its session runs out (services/kit/session.py).
ACCOUNT = ("tester", "proverka-2026")
EXPIRE_AFTER = 2
# `layout=lazy`: the cards a list shows at first, and how many more each scroll to its end
# brings; `layout=paginated`: the cards on a page (services/kit/static/perturb_layout.js).
LAZY_FIRST = 4
LAZY_STEP = 4
PAGE_SIZE = 10
