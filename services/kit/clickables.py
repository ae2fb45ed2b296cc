"""The `clickables` step (docs/tasks.md, "Steps"): the shops' cart and favourite controls
and Файлы' download control as real sites' accessibility debt, off by default.

`semantic` is what the sites show: buttons and links named by their item. `divs` draws the
same controls as `div`s with a click handler and no role (`/_kit/clickables.js`): «В корзину»
a caption the cards repeat with no item in it, −, +, ♡ and the download arrow icons with no
name at all. Each still takes a click, and Enter or Space once focused, and does what the
button does: the same request, the same event.
"""

from __future__ import annotations

KEY = "clickables"
IMPLEMENTATIONS = ("semantic", "divs")
