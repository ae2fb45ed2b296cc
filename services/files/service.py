"""Файлы's rules, without HTTP: the download's file names and the widget a link came from."""

from __future__ import annotations

from urllib.parse import quote

from services.files.plugin import SITE

DOMAIN = "files"

_LATIN = "a b v g d e e zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya"
_TRANSLIT = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя", _LATIN.split(" "), strict=True))


def ascii_name(name: str) -> str:
    """A Latin fallback for the `filename` of old clients (`filename*` carries the real one)."""
    out = []
    for char in name:
        lower = char.lower()
        if lower in _TRANSLIT:
            latin = _TRANSLIT[lower].strip("-")
            out.append(latin.capitalize() if char != lower else latin)
        elif char.isascii() and (char.isalnum() or char in "._-"):
            out.append(char)
        else:
            out.append("_")
    return "".join(out)


def disposition(kind: str, name: str) -> str:
    return f"{kind}; filename=\"{ascii_name(name)}\"; filename*=UTF-8''{quote(name, safe='')}"


def attachment(name: str) -> str:
    return disposition("attachment", name)


def inline(name: str) -> str:
    """Shown in the browser (a file's view), under its name if saved from there."""
    return disposition("inline", name)


def widget_of(key: str, value: str | None) -> dict[str, str]:
    """`widget=<impl>` for the event when the link said which implementation it came from."""
    return {"widget": value} if value in SITE.controls[key] else {}
