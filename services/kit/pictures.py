"""Pictures drawn from shapes, as the sites show their products, covers and rooms: a few
SVG primitives, colour shades, a random generator seeded by the item's id (a picture is the
same on every request and every machine), the things the shops sell drawn in a 100×100 box,
and a product's gallery of `VIEWS` pictures (front, back with its label, close-up, on a
table). Nothing is fetched and no font needs an emoji: every picture is flat shapes and a
little text (docs/sites.md, "Pictures")."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Annotated
from xml.sax.saxutils import escape

from fastapi import Query

from services.kit.catalog import fold, svg_picture

VIEWS = 4  # pictures in an item's gallery: `?view=1..VIEWS`, 1 the one cards show

# The gallery's picture a URL asks for (`?view=N`); another number is a 422 naming `view`.
ViewQuery = Annotated[int, Query(ge=1, le=VIEWS, description="the picture of the gallery")]


def seeded(key: str) -> random.Random:
    """A generator that draws the same numbers for the same key in every process."""
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def shade(color: str, factor: float) -> str:
    """`color` (`#rrggbb`) darker (`factor` < 1) or mixed toward white (`factor` > 1)."""
    channels = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    if factor <= 1:
        mixed = [round(c * factor) for c in channels]
    else:
        mixed = [round(c + (255 - c) * min(factor - 1, 1)) for c in channels]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _n(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def rect(x: float, y: float, w: float, h: float, fill: str, rx: float = 0, extra: str = "") -> str:
    corner = f' rx="{_n(rx)}"' if rx else ""
    return (
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"{corner} '
        f'fill="{fill}"{extra}/>'
    )


def circle(cx: float, cy: float, r: float, fill: str, extra: str = "") -> str:
    return f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" fill="{fill}"{extra}/>'


def ellipse(cx: float, cy: float, rx: float, ry: float, fill: str, extra: str = "") -> str:
    return (
        f'<ellipse cx="{_n(cx)}" cy="{_n(cy)}" rx="{_n(rx)}" ry="{_n(ry)}" fill="{fill}"{extra}/>'
    )


def path(d: str, fill: str, extra: str = "") -> str:
    return f'<path d="{d}" fill="{fill}"{extra}/>'


def stroke(color: str, width: float) -> str:
    """The attributes of an outline (`extra` of a shape whose fill is "none")."""
    return f' stroke="{color}" stroke-width="{_n(width)}" stroke-linecap="round"'


def text(
    x: float,
    y: float,
    caption: str,
    size: float,
    fill: str,
    extra: str = "",
    font: str = "sans-serif",
) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="middle" '
        f'font-family="{font}" fill="{fill}"{extra}>{escape(caption)}</text>'
    )


def place(body: str, x: float, y: float, sx: float, sy: float | None = None) -> str:
    """`body` drawn with its origin at (x, y), scaled by `sx` (and `sy`, else the same)."""
    scale = f"{sx:.3g}" if sy is None else f"{sx:.3g} {sy:.3g}"
    return f'<g transform="translate({_n(x)} {_n(y)}) scale({scale})">{body}</g>'


LIGHT = ' fill-opacity="0.35"'  # a highlight: white over a body
SOFT = ' fill-opacity="0.18"'  # a shadow: black under a thing


# -- the things the shops sell, each in a 100×100 box standing on y≈90 --------------------

Shape = Callable[[random.Random, str], str]  # (the item's generator, its colour) -> markup


def _label(x: float, y: float, w: float, h: float, color: str) -> str:
    """A pack's label: a white panel with a stripe of the pack's colour and two lines."""
    return (
        rect(x, y, w, h, "#ffffff", 3, ' fill-opacity="0.9"')
        + rect(x, y + h * 0.62, w, h * 0.14, color)
        + rect(x + w * 0.15, y + h * 0.22, w * 0.7, 3, shade(color, 0.55))
        + rect(x + w * 0.25, y + h * 0.4, w * 0.5, 2, "#9aa3ad")
    )


def headphones(_: random.Random, color: str) -> str:
    dark = shade(color, 0.5)
    return (
        path("M22 62 V48 A28 28 0 0 1 78 48 V62", "none", stroke(dark, 6))
        + rect(14, 56, 18, 30, color, 8)
        + rect(68, 56, 18, 30, color, 8)
        + rect(18, 60, 6, 22, "#ffffff", 3, LIGHT)
        + rect(72, 60, 6, 22, "#ffffff", 3, LIGHT)
    )


def speaker(_: random.Random, color: str) -> str:
    grille = "".join(circle(50, 58, r, "none", stroke(shade(color, 0.4), 2)) for r in (8, 16))
    return rect(24, 28, 52, 62, color, 14) + circle(50, 58, 20, shade(color, 0.7)) + grille


def watch(_: random.Random, color: str) -> str:
    return (
        rect(40, 10, 20, 82, shade(color, 0.6), 6)
        + rect(30, 32, 40, 40, "#2b2f36", 10)
        + rect(34, 36, 32, 32, "#3d6f9e", 7)
        + text(50, 56, "12:45", 9, "#ffffff")
    )


def powerbank(_: random.Random, color: str) -> str:
    leds = "".join(circle(38 + 8 * i, 34, 2.5, "#7be08a") for i in range(4))
    return (
        rect(26, 18, 48, 72, color, 10)
        + rect(30, 22, 12, 64, "#ffffff", 6, LIGHT)
        + leds
        + rect(44, 84, 12, 4, "#2b2f36", 1)
    )


def kettle(_: random.Random, color: str) -> str:
    return (
        path("M30 88 L34 36 Q50 28 66 36 L70 88 Z", color)
        + path("M66 42 Q86 46 80 74 L70 74", "none", stroke(shade(color, 0.55), 6))
        + path("M34 44 L20 34 L22 30 L36 38 Z", shade(color, 0.8))
        + rect(26, 86, 48, 6, "#2b2f36", 3)
        + rect(38, 44, 6, 34, "#ffffff", 3, LIGHT)
        + rect(44, 26, 12, 6, shade(color, 0.55), 3)
    )


def keyboard(_: random.Random, color: str) -> str:
    keys = "".join(
        rect(12 + col * 8, 46 + row * 9, 6, 6, "#ffffff", 1.5, ' fill-opacity="0.8"')
        for row in range(3)
        for col in range(10)
    )
    return rect(6, 40, 88, 40, color, 6) + keys + rect(30, 73, 40, 5, "#ffffff", 1.5)


def bag(rng: random.Random, color: str) -> str:
    """A soft pack: coffee, pet food, cereal, flour, pasta, frozen goods."""
    top = "".join(f"L{24 + 4 * i} {14 + 3 * (i % 2)} " for i in range(14))
    return (
        path(f"M24 20 {top}L76 20 L80 88 Q50 94 20 88 Z", color)
        + rect(26, 22, 8, 60, "#ffffff", 4, LIGHT)
        + _label(32, 42 + rng.uniform(-4, 4), 36, 30, shade(color, 0.7))
    )


def box(rng: random.Random, color: str) -> str:
    """A carton: tea, tablets, washing powder, crispbread."""
    return (
        path("M22 30 L40 20 L84 20 L66 30 Z", shade(color, 1.3))
        + path("M66 30 L84 20 L84 80 L66 90 Z", shade(color, 0.7))
        + rect(22, 30, 44, 60, color)
        + _label(26, 44 + rng.uniform(-3, 3), 36, 28, shade(color, 0.6))
    )


def bottle(rng: random.Random, color: str) -> str:
    """A bottle: detergent, oil, drinking yoghurt, a sports bottle."""
    neck = rng.choice((8, 10, 12))
    return (
        rect(50 - neck / 2, 8, neck, 12, shade(color, 0.5), 2)
        + path(
            f"M{50 - neck / 2} 20 Q30 28 32 42 L32 86 Q50 92 68 86 L68 42 "
            f"Q70 28 {50 + neck / 2} 20 Z",
            color,
        )
        + rect(36, 36, 6, 46, "#ffffff", 3, LIGHT)
        + _label(34, 50, 32, 26, shade(color, 0.6))
    )


def jar(rng: random.Random, color: str) -> str:
    """A jar: honey, jam, peanut butter, tomato paste."""
    return (
        rect(26, 32, 48, 58, color, 10)
        + rect(28, 20, 44, 14, shade(color, 0.45) if rng.random() < 0.5 else "#c9a14a", 3)
        + rect(30, 40, 6, 40, "#ffffff", 3, LIGHT)
        + _label(32, 50, 36, 26, shade(color, 0.6))
    )


def can(_: random.Random, color: str) -> str:
    return (
        rect(28, 26, 44, 64, "#c7ccd3", 4)
        + rect(28, 34, 44, 48, color)
        + ellipse(50, 26, 22, 5, "#e2e5ea")
        + _label(34, 42, 32, 30, shade(color, 0.6))
    )


def carton(_: random.Random, color: str) -> str:
    """A gable-top carton: milk, kefir, cream, juice."""
    return (
        path("M30 34 L50 18 L70 34 Z", shade(color, 0.8))
        + rect(46, 12, 8, 8, shade(color, 0.5), 2)
        + rect(30, 34, 40, 56, "#f4f6f8")
        + path("M30 60 Q50 50 70 60 L70 90 L30 90 Z", color)
        + rect(36, 40, 28, 8, color, 2)
    )


def cup(_: random.Random, color: str) -> str:
    """A tub: yoghurt, cottage cheese, sour cream."""
    return (
        path("M24 44 L76 44 L70 88 L30 88 Z", "#f4f6f8")
        + path("M26 56 L74 56 L71 76 L29 76 Z", color)
        + ellipse(50, 44, 28, 7, shade(color, 0.8))
        + ellipse(50, 43, 22, 4, "#ffffff", LIGHT)
    )


def bar(rng: random.Random, color: str) -> str:
    """A bar in its wrapper: chocolate, butter, a curd snack."""
    squares = "".join(
        rect(18 + 12 * col, 30 + 12 * row, 10, 10, shade(color, 0.8), 2)
        for row in range(2)
        for col in range(rng.choice((2, 3)))
    )
    return (
        rect(14, 26, 72, 56, shade(color, 0.65), 4)
        + squares
        + rect(52, 26, 34, 56, "#ffffff", 0, ' fill-opacity="0.85"')
        + rect(52, 48, 34, 10, color)
    )


def fruit(rng: random.Random, color: str) -> str:
    """Round produce, two or three of them: apples, oranges, tomatoes, potatoes, onions."""
    body = ""
    for x, y, r in ((34, 66, 20), (66, 66, 20), (50, 48, 22))[: rng.choice((2, 3))]:
        body += (
            circle(x, y, r, color)
            + ellipse(x - r / 3, y - r / 3, r / 3, r / 4, "#ffffff", LIGHT)
            + path(f"M{x} {y - r} q4 -8 10 -6 q-4 6 -10 6", "#4f8a3a")
        )
    return body


def cabbage(_: random.Random, color: str) -> str:
    return (
        circle(50, 58, 32, color)
        + path("M50 26 Q30 50 40 88 M50 26 Q70 50 60 88", "none", stroke(shade(color, 0.7), 3))
        + circle(50, 58, 32, "none", stroke(shade(color, 0.6), 2))
    )


def mushroom(_: random.Random, color: str) -> str:
    return "".join(
        rect(x - 6, y, 12, 22, "#efe6d8", 5)
        + path(f"M{x - 20} {y + 2} A20 16 0 0 1 {x + 20} {y + 2} Z", color)
        for x, y in ((36, 62), (64, 56))
    )


def berries(rng: random.Random, color: str) -> str:
    """A punnet of berries."""
    dots = "".join(
        circle(28 + 7 * col + rng.uniform(-2, 2), 52 + 6 * row + rng.uniform(-2, 2), 6, color)
        for row in range(3)
        for col in range(7)
    )
    return (
        dots + path("M18 58 L82 58 L76 90 L24 90 Z", "#dfe6ee") + rect(24, 66, 52, 8, "#ffffff", 2)
    )


def grapes(_: random.Random, color: str) -> str:
    rows = ((4, 30), (4, 42), (3, 54), (2, 66), (1, 78))
    dots = "".join(
        circle(50 + 11 * (i - (n - 1) / 2), y, 7, color)
        + circle(48 + 11 * (i - (n - 1) / 2), y - 2, 2, "#ffffff", LIGHT)
        for n, y in rows
        for i in range(n)
    )
    return path("M50 24 L50 12 q10 -2 14 4", "none", stroke("#6b8e3a", 3)) + dots


def banana(_: random.Random, color: str) -> str:
    return "".join(
        path(
            f"M20 {y} Q50 {y + 34} 84 {y - 14} Q52 {y + 20} 20 {y} Z",
            color,
            f' stroke="{shade(color, 0.7)}"',
        )
        for y in (44, 52, 60)
    ) + rect(80, 26, 6, 10, "#6b5a2e", 2)


def vegetable(_: random.Random, color: str) -> str:
    """A long vegetable: carrot, cucumber, aubergine, corn."""
    return "".join(
        path(f"M16 {y} Q50 {y - 14} 84 {y - 4} Q50 {y + 14} 16 {y} Z", color)
        + path(f"M78 {y - 6} l10 -6 M80 {y - 4} l10 0", "none", stroke("#4f8a3a", 3))
        for y in (50, 70)
    )


def fish(_: random.Random, color: str) -> str:
    return (
        path("M12 58 Q44 26 78 58 Q44 86 12 58 Z", color)
        + path("M76 58 L94 42 L94 74 Z", shade(color, 0.8))
        + circle(26, 54, 3, "#2b2f36")
        + path("M20 62 Q44 72 70 60", "none", stroke("#ffffff", 2))
    )


def fillet(_: random.Random, color: str) -> str:
    lines = "".join(
        path(f"M{26 + 10 * i} 44 q-6 18 0 36", "none", stroke("#ffffff", 2)) for i in range(5)
    )
    return rect(10, 38, 80, 50, "#dfe6ee", 6) + path("M18 48 L84 44 L80 80 L20 84 Z", color) + lines


def sausage(_: random.Random, color: str) -> str:
    return "".join(
        rect(14, y, 72, 16, color, 8) + rect(20, y + 3, 50, 4, "#ffffff", 2, LIGHT)
        for y in (44, 62)
    )


def shrimp(_: random.Random, color: str) -> str:
    return "".join(
        path(f"M{x} 40 A18 18 0 1 1 {x - 4} 74 L{x - 2} 64 A9 9 0 1 0 {x} 50 Z", color)
        + path(f"M{x - 6} 74 l-8 6 l10 2 Z", shade(color, 0.8))
        for x in (36, 70)
    )


def meat(rng: random.Random, color: str) -> str:
    """A cut on a tray: pork, beef, mince, chicken fillet, bacon."""
    return (
        rect(10, 44, 80, 46, "#dfe6ee", 6)
        + path(
            f"M18 {60 + rng.uniform(-4, 4)} Q30 40 60 46 Q86 50 82 70 Q70 90 34 84 Q14 80 18 60 Z",
            color,
        )
        + path("M24 66 Q44 58 72 66", "none", stroke("#fbe9e4", 4))
    )


def bun(_: random.Random, color: str) -> str:
    seeds = "".join(ellipse(34 + 8 * i, 48 + 4 * (i % 2), 2, 1.2, "#fff6dc") for i in range(5))
    return (
        ellipse(50, 70, 36, 18, shade(color, 0.85)) + path("M16 68 Q50 20 84 68 Z", color) + seeds
    )


def ring(_: random.Random, color: str) -> str:
    """A ring: bagels, doughnuts, resistance bands."""
    return (
        circle(50, 60, 28, color)
        + circle(50, 60, 10, "#ffffff")
        + path("M28 52 Q50 30 72 52", "none", stroke("#ffffff", 4) + ' stroke-opacity="0.5"')
    )


def loaf(_: random.Random, color: str) -> str:
    cuts = "".join(
        path(f"M{30 + 14 * i} 46 l8 12", "none", stroke(shade(color, 1.4), 3)) for i in range(3)
    )
    return rect(14, 44, 72, 44, color, 14) + path("M14 60 Q50 30 86 60", shade(color, 1.2)) + cuts


def baguette(_: random.Random, color: str) -> str:
    cuts = "".join(
        path(f"M{24 + 14 * i} 62 l10 -8", "none", stroke(shade(color, 1.4), 3)) for i in range(5)
    )
    return (
        path("M10 72 Q10 56 24 54 L82 46 Q94 46 92 58 Q90 66 78 66 L22 74 Q10 78 10 72 Z", color)
        + cuts
    )


def cake(_: random.Random, color: str) -> str:
    return (
        rect(18, 50, 64, 38, shade(color, 0.85), 4)
        + rect(18, 62, 64, 6, "#fff6dc")
        + path("M18 54 Q26 40 34 54 Q42 40 50 54 Q58 40 66 54 Q74 40 82 54 L82 48 L18 48 Z", color)
        + circle(50, 40, 5, "#c0392b")
    )


def cookies(rng: random.Random, color: str) -> str:
    return "".join(
        circle(x, y, 16, color)
        + "".join(
            circle(x + rng.uniform(-9, 9), y + rng.uniform(-9, 9), 2, shade(color, 0.6))
            for _ in range(4)
        )
        for x, y in ((34, 70), (64, 66), (50, 46))
    )


def croissant(_: random.Random, color: str) -> str:
    return path("M12 70 Q30 34 50 34 Q70 34 88 70 Q70 60 50 62 Q30 60 12 70 Z", color) + "".join(
        path(f"M{x} 38 q4 12 0 24", "none", stroke(shade(color, 0.75), 2.5)) for x in (36, 50, 64)
    )


def cheese(rng: random.Random, color: str) -> str:
    holes = "".join(
        ellipse(rng.uniform(26, 70), rng.uniform(60, 80), 4, 3, shade(color, 0.8)) for _ in range(4)
    )
    return (
        path("M14 56 L86 40 L86 86 L14 86 Z", color)
        + path("M14 56 L86 40 L70 34 Z", shade(color, 1.3))
        + holes
    )


def eggs(_: random.Random, color: str) -> str:
    """Eggs in an open carton."""
    shells = "".join(
        ellipse(24 + 13 * i, 50, 7, 10, color) + ellipse(22 + 13 * i, 46, 2, 3, "#ffffff", LIGHT)
        for i in range(5)
    )
    return rect(12, 56, 76, 30, "#c9b79c", 4) + shells + rect(12, 60, 76, 6, "#b19c7c")


def ball(_: random.Random, color: str) -> str:
    patches = "".join(
        path(f"M{x} {y} l6 -4 l6 4 l-2 7 l-8 0 Z", "#2b2f36")
        for x, y in ((44, 52), (28, 44), (60, 44), (32, 70), (56, 72))
    )
    return (
        circle(50, 58, 32, "#ffffff", stroke("#2b2f36", 2))
        + patches
        + circle(50, 58, 32, color, ' fill-opacity="0.15"')
    )


def dumbbell(_: random.Random, color: str) -> str:
    return "".join(
        rect(24, y - 3, 52, 6, "#9aa3ad", 3)
        + rect(14, y - 12, 14, 24, color, 5)
        + rect(72, y - 12, 14, 24, color, 5)
        for y in (48, 76)
    )


def rope(_: random.Random, color: str) -> str:
    """A cord with handles: a skipping rope, a leash."""
    return (
        path("M24 44 Q12 96 50 88 Q88 80 76 44", "none", stroke(shade(color, 0.5), 3))
        + rect(18, 20, 12, 26, color, 5)
        + rect(70, 20, 12, 26, color, 5)
    )


def mat(_: random.Random, color: str) -> str:
    """A rolled mat."""
    return (
        rect(20, 50, 66, 36, color, 0)
        + ellipse(20, 68, 10, 18, shade(color, 0.8))
        + ellipse(20, 68, 5, 9, shade(color, 0.6))
        + ellipse(86, 68, 10, 18, color)
        + rect(44, 50, 4, 36, "#ffffff", 0, LIGHT)
    )


def helmet(_: random.Random, color: str) -> str:
    vents = "".join(rect(36 + 10 * i, 38, 4, 14, "#2b2f36", 2) for i in range(3))
    return (
        path("M14 74 Q14 28 52 28 Q88 28 88 74 Z", color)
        + vents
        + rect(14, 72, 74, 6, shade(color, 0.6), 3)
    )


def wheel(_: random.Random, color: str) -> str:
    return (
        rect(8, 56, 84, 6, "#9aa3ad", 3)
        + rect(4, 52, 10, 14, "#2b2f36", 4)
        + rect(86, 52, 10, 14, "#2b2f36", 4)
        + circle(38, 60, 20, color)
        + circle(62, 60, 20, color)
        + circle(38, 60, 8, "#2b2f36")
        + circle(62, 60, 8, "#2b2f36")
    )


def post(_: random.Random, color: str) -> str:
    """A scratching post."""
    turns = "".join(
        path(f"M40 {y} l20 -4", "none", stroke(shade(color, 0.7), 2)) for y in range(30, 80, 6)
    )
    return (
        rect(22, 82, 56, 10, shade(color, 0.6), 3)
        + rect(40, 20, 20, 64, "#d8c29a")
        + turns
        + rect(30, 14, 40, 8, color, 3)
    )


def cushion(_: random.Random, color: str) -> str:
    """A pet bed."""
    return (
        ellipse(50, 70, 42, 20, shade(color, 0.7))
        + ellipse(50, 66, 30, 12, color)
        + ellipse(44, 62, 14, 4, "#ffffff", LIGHT)
    )


def toy(_: random.Random, color: str) -> str:
    """A toy mouse."""
    return (
        path("M20 80 Q60 60 84 86", "none", stroke("#9aa3ad", 2))
        + ellipse(46, 68, 26, 16, color)
        + circle(30, 54, 8, shade(color, 0.8))
        + circle(24, 66, 2, "#2b2f36")
    )


SHAPES: dict[str, Shape] = {
    f.__name__: f
    for f in (
        headphones, speaker, watch, powerbank, kettle, keyboard, bag, box, bottle, jar, can,
        carton, cup, bar, fruit, cabbage, mushroom, berries, grapes, banana, vegetable, fish,
        fillet, sausage, shrimp, meat, bun, ring, loaf, baguette, cake, cookies, croissant,
        cheese, eggs, ball, dumbbell, rope, mat, helmet, wheel, post, cushion, toy,
    )
}  # fmt: skip

# What a title starts with (folded) -> the shape that draws it and its colour ("" for the
# product's own, darkened). The first that matches wins, so longer beginnings come first.
KINDS: tuple[tuple[str, str, str], ...] = (
    ("наушники", "headphones", ""), ("колонка", "speaker", ""), ("умные часы", "watch", ""),
    ("фитнес-браслет", "watch", ""), ("внешний аккумулятор", "powerbank", ""),
    ("электрочайник", "kettle", ""), ("клавиатура", "keyboard", "#4a5360"),
    ("корм", "bag", ""), ("наполнитель", "bag", ""), ("когтеточка", "post", ""),
    ("лежанка", "cushion", ""), ("игрушка", "toy", "#9aa3ad"), ("поводок", "rope", ""),
    ("коврик", "mat", ""), ("гантели", "dumbbell", ""), ("скакалка", "rope", ""),
    ("мяч", "ball", ""), ("бутылка", "bottle", ""), ("эспандер", "ring", ""),
    ("шлем", "helmet", ""), ("ролик", "wheel", ""), ("средство", "bottle", "#f2c230"),
    ("гель", "bottle", ""), ("чистящий", "bottle", ""), ("кондиционер", "bottle", "#9b7fd1"),
    ("стиральный порошок", "box", ""),
    ("таблетки", "box", ""), ("кофе", "bag", "#6f4e37"), ("чай", "box", ""),
    ("гранола", "bag", ""), ("макароны", "bag", "#e8c36a"), ("шоколад", "bar", "#5a3a2a"),
    ("мед", "jar", "#e0a030"), ("паста арахисовая", "jar", "#b07a46"),
    ("варенье", "jar", "#b8323f"), ("томатная паста", "can", "#c8402c"),
    ("масло сливочное", "bar", "#f2d36b"), ("масло", "bottle", "#e8c13a"),
    ("сок", "carton", "#f0a030"), ("йогурт питьевой", "bottle", ""), ("йогурт", "cup", ""),
    ("творог", "cup", ""), ("сметана", "cup", ""), ("сырок", "bar", "#5a3a2a"),
    ("сыр", "cheese", "#f4c84a"), ("брынза", "cheese", "#f3efe2"), ("молоко", "carton", ""),
    ("кефир", "carton", ""), ("ряженка", "carton", "#d9a26a"), ("сливки", "carton", ""),
    ("яйца", "eggs", "#f3e2c8"), ("семга", "fillet", "#f08a5d"), ("форель", "fillet", "#f08a5d"),
    ("филе трески", "fillet", "#f3ede0"), ("филе минтая", "fillet", "#f3ede0"),
    ("сельдь", "fish", "#8a9aa8"), ("скумбрия", "fish", "#b08a4a"), ("кальмар", "fish", "#efe0e8"),
    ("креветки", "shrimp", "#f28c6a"), ("крабовые", "sausage", "#e0483c"),
    ("сосиски", "sausage", "#e8a08a"), ("колбаса", "sausage", "#e89a9a"),
    ("бекон", "meat", "#d8655a"), ("филе", "meat", "#f2c4b4"), ("грудки", "meat", "#f2c4b4"),
    ("крылья", "meat", "#e8b48a"), ("бедра", "meat", "#e8b48a"), ("тушка", "meat", "#f0c9a0"),
    ("шейка", "meat", "#d9786a"), ("ребра", "meat", "#c9665a"), ("фарш", "meat", "#d9786a"),
    ("вырезка", "meat", "#b8473c"), ("пшено", "bag", "#f2c94c"), ("хлопья", "bag", "#d9a860"),
    ("сахар", "bag", "#5b8fd6"), ("мука", "bag", "#e8dcc0"), ("соль", "bag", "#4f7fb5"),
    ("арахис", "bag", "#c0392b"), ("крупа", "bag", "#8a5a3a"), ("рис", "bag", "#2fa36b"),
    ("пельмени", "bag", "#3f6fb5"), ("яблоки гала", "fruit", "#d0392b"),
    ("яблоки", "fruit", "#8cc63f"), ("груши", "fruit", "#c9c94a"),
    ("апельсины", "fruit", "#f39c12"), ("мандарины", "fruit", "#f39c12"),
    ("лимоны", "fruit", "#f4d03f"), ("томаты", "fruit", "#e74c3c"), ("киви", "fruit", "#8a6a3a"),
    ("авокадо", "fruit", "#4f7a2a"), ("картофель", "fruit", "#c9a66b"),
    ("лук", "fruit", "#d9a441"), ("чеснок", "fruit", "#f1ece0"), ("перец", "fruit", "#d9342b"),
    ("капуста", "cabbage", "#a8d08d"), ("брокколи", "cabbage", "#3f7a2e"),
    ("шампиньоны", "mushroom", "#e9dfcf"), ("голубика", "berries", "#4a5a9a"),
    ("клубника", "berries", "#d9342b"), ("виноград", "grapes", "#b5c96a"),
    ("бананы", "banana", "#f4d03f"), ("морковь", "vegetable", "#f08a24"),
    ("огурцы", "vegetable", "#4f9a3a"), ("баклажаны", "vegetable", "#5b3a6e"),
    ("кукуруза в початках", "vegetable", "#f4d03f"), ("кукуруза", "can", "#f4d03f"),
    ("фасоль", "can", "#a33b2e"), ("горошек", "can", "#6aa84f"), ("булочки", "bun", "#e0a860"),
    ("пирожки", "bun", "#d99a50"), ("ватрушка", "bun", "#e8b070"), ("баранки", "ring", "#d9a050"),
    ("пончики", "ring", "#e07a9a"), ("багет", "baguette", "#d9a050"), ("батон", "loaf", "#e0b070"),
    ("хлебцы", "box", ""), ("хлеб бородинский", "loaf", "#5a3a2a"), ("хлеб", "loaf", "#c98a4a"),
    ("лаваш", "bar", "#f0deb0"), ("рулет", "cake", "#e8b070"), ("кекс", "cake", "#c98a4a"),
    ("торт", "cake", "#e8c070"), ("пряники", "cookies", "#c98a4a"),
    ("печенье", "cookies", "#d9a860"), ("круассаны", "croissant", "#e0a050"),
)  # fmt: skip


# The colours of the things whose kind has none of its own, one chosen by the item's id.
PALETTE = ("#2f6fd6", "#d6452f", "#2fa36b", "#8e44ad", "#e67e22", "#34495e", "#d63c7a", "#16a085")


def product_shape(title: str, fallback: str) -> tuple[str, str]:
    """The shape that draws a product of this title and its colour ("" for the card's own);
    `fallback` (a shape) for a title no kind begins."""
    folded = fold(title)
    for start, shape, color in KINDS:
        if folded.startswith(start):
            return shape, color
    return fallback, ""


def product_picture(
    key: str,
    size: tuple[int, int],
    label: str,
    shape: tuple[str, str],
    background: str,
    captions: tuple[str, ...],
    view: int,
) -> str:
    """Picture `view` (1..VIEWS) of a product's gallery, `size` pixels: 1 the product in
    front on its card with `captions` under it, 2 beside its label with a barcode, 3 a
    close-up, 4 two of it on a table. `shape` is `product_shape`'s answer; without a colour
    of its own the thing takes one of `PALETTE`."""
    width, height = size
    name, color = shape
    rng = seeded(f"{key}/{view}")
    thing = SHAPES[name](seeded(key), color or seeded(key).choice(PALETTE))
    room = height - 16 * len(captions) - 18  # the height left above the captions
    scale = room / 100
    if view == 1:
        body = ellipse(width / 2, room - 2, 38 * scale, 5 * scale, "#000000", SOFT) + place(
            thing, width / 2 - 50 * scale, 6, scale
        )
    elif view == 2:
        left = width * 0.55
        body = (
            place(thing, width * 0.3 - 40 * scale, 10, scale * 0.8)
            + rect(left - 6, 16, width * 0.42, room - 8, "#ffffff", 8, ' fill-opacity="0.9"')
            + "".join(
                rect(left, 26 + 10 * i, width * rng.uniform(0.22, 0.36), 4, "#9aa3ad", 2)
                for i in range(5)
            )
            + "".join(
                rect(left + 3 * i, room - 34, rng.choice((1, 1, 2)), 22, "#2b2f36")
                for i in range(14)
            )
        )
    elif view == 3:
        zoom = scale * 1.9
        x, y = rng.uniform(40, 60) * zoom, rng.uniform(45, 60) * zoom
        body = place(thing, width / 2 - x, height / 2 - y, zoom)
        captions = ()
    else:
        table, top = shade(background, 0.62), height * 0.72
        body = (
            rect(0, top, width, height - top, table)
            + rect(0, top, width, 4, shade(table, 0.8))
            + place(thing, width * 0.5, top - 80 * scale * 0.55, scale * 0.55)
            + place(thing, width * 0.12, top + 10 - 90 * scale * 0.75, scale * 0.75)
        )
        captions = ()
    lines = "".join(
        text(width / 2, height - 12 - 16 * (len(captions) - 1 - i), caption, 13 if i else 14,
             "#33383f", ' font-weight="700"' if i == 0 and len(captions) > 1 else "")
        for i, caption in enumerate(captions)
    )  # fmt: skip
    card = rect(0, 0, width, height, background, 16)
    return svg_picture(width, height, label, card + body + lines)
