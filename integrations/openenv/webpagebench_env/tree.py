"""Element ids from an observation's `axtree` (Playwright's snapshot: a line per element,
its role, its name in quotes and `[ref=…]`), for scripted policies:

    button = ref(observation.axtree, "button", "В корзину: Чай чёрный «Крупяной ряд»")
    env.step(WebpagebenchAction(action=f"click({button!r})"))
"""

from __future__ import annotations

import re


def ref(tree: str, role: str, name: str) -> str:
    """The id of the first `role` named exactly `name`; LookupError (with the tree's start)
    where there is none."""
    found = re.search(rf'{role} "{re.escape(name)}"[^\n]*?\[ref=(\w+)\]', tree)
    if found is None:
        raise LookupError(f"no {role} {name!r} in:\n{tree[:3000]}")
    return found.group(1)


def refs(tree: str, role: str, prefix: str = "") -> list[tuple[str, str]]:
    """Every `role` (a regular expression: `link|button`) whose name starts with `prefix`:
    (name, id), in the tree's order."""
    pattern = rf'(?:{role}) "({re.escape(prefix)}[^"]*)"[^\n]*?\[ref=(\w+)\]'
    return re.findall(pattern, tree)
