"""Move the dates of a task into the future of the stand's today.

Every date in a task (the Russian prompt and the ISO dates in its conditions)
is shifted by one common number of days, a multiple of 7 so that weekdays are
kept. The prompt is rewritten in the spelling each date was found in.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from typing import Any

from services.core.models.events import Condition
from services.core.models.task import TestData
from services.core.russian import MONTHS_GENITIVE as MONTHS

__all__ = [
    "MONTHS",
    "compute_shift",
    "find_dates",
    "shift_conditions",
    "shift_prompt",
    "shift_task",
]


_M = "|".join(MONTHS)
_DASHES = "-–—"
# The alternatives below that stand for two dates.
RANGES = ("sr", "dr", "nr")

# One combined pattern: ranges come first, so at a given position a range wins over
# the single date inside it, and re.sub never visits the same text twice.
_PROMPT_RE = re.compile(
    "|".join(
        [
            # с 15 [сентября] по 20 сентября 2026
            rf"(?P<sr>(?<!\w)(?P<sr_c>[сС])\s+(?P<sr_d1>\d{{1,2}})(?:\s+(?P<sr_m1>{_M}))?"
            rf"\s+по\s+(?P<sr_d2>\d{{1,2}})\s+(?P<sr_m2>{_M})\s+(?P<sr_y>\d{{4}})(?!\d))",
            # 15[ сентября] – 20 сентября 2026
            rf"(?P<dr>(?<![\d.])(?P<dr_d1>\d{{1,2}})(?:\s+(?P<dr_m1>{_M}))?"
            rf"(?P<dr_sep>\s*[{_DASHES}]\s*)(?P<dr_d2>\d{{1,2}})\s+(?P<dr_m2>{_M})"
            rf"\s+(?P<dr_y>\d{{4}})(?!\d))",
            # 12–16.09.2026 / 28.09–02.10.2026 (upstream's spelling of a stay)
            rf"(?P<nr>(?<![\d.])(?P<nr_d1>\d{{1,2}})(?:\.(?P<nr_m1>\d{{1,2}}))?"
            rf"(?P<nr_sep>\s*[{_DASHES}]\s*)(?P<nr_d2>\d{{1,2}})\.(?P<nr_m2>\d{{1,2}})"
            rf"\.(?P<nr_y>\d{{4}})(?!\d))",
            # 4 октября 2026
            rf"(?P<w>(?<![\d.])(?P<w_d>\d{{1,2}})\s+(?P<w_m>{_M})\s+(?P<w_y>\d{{4}})(?!\d))",
            # 04.10.2026 / 4.10.2026
            r"(?P<n>(?<![\d.])(?P<n_d>\d{1,2})\.(?P<n_m>\d{1,2})\.(?P<n_y>\d{4})(?!\d))",
            # 2026-10-04
            r"(?P<i>(?<!\d)(?P<i_y>\d{4})-(?P<i_m>\d{2})-(?P<i_d>\d{2})(?!\d))",
        ]
    )
)

_ISO_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _make_date(year: int, month: int, day: int) -> date | None:
    """A date, or None when the triple is not a real calendar date."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_number(name: str) -> int:
    """A month's number from its name or its digits."""
    return int(name) if name.isdigit() else MONTHS.index(name) + 1


def _range_dates(m: re.Match[str], p: str) -> tuple[date, date] | None:
    """Both ends of a range match; the first end may omit its month."""
    year = int(m.group(f"{p}_y"))
    end = _make_date(year, _month_number(m.group(f"{p}_m2")), int(m.group(f"{p}_d2")))
    if end is None:
        return None
    day1 = int(m.group(f"{p}_d1"))
    month1_name = m.group(f"{p}_m1")
    if month1_name is None:
        start = _make_date(year, end.month, day1)
    else:
        month1 = _month_number(month1_name)
        year1 = year if (month1, day1) <= (end.month, end.day) else year - 1
        start = _make_date(year1, month1, day1)
    if start is None or start > end:
        return None
    return start, end


def _match_dates(m: re.Match[str]) -> tuple[date, ...] | None:
    """The dates one prompt match stands for, or None if it is not a valid date."""
    kind = m.lastgroup  # the outer named group of the alternative that matched
    if kind in RANGES:
        return _range_dates(m, kind)
    if kind == "w":
        found = _make_date(int(m["w_y"]), _month_number(m["w_m"]), int(m["w_d"]))
    elif kind == "n":
        found = _make_date(int(m["n_y"]), int(m["n_m"]), int(m["n_d"]))
    else:
        found = _make_date(int(m["i_y"]), int(m["i_m"]), int(m["i_d"]))
    return None if found is None else (found,)


def _splice(m: re.Match[str], subs: dict[str, str]) -> str:
    """The matched text with the named groups replaced in place."""
    text, base, out, pos = m.group(0), m.start(), [], 0
    for name, new in sorted(subs.items(), key=lambda item: m.start(item[0])):
        start, end = m.start(name) - base, m.end(name) - base
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _render_range(m: re.Match[str], p: str, start: date, end: date) -> str:
    """A shifted range: compact when it still fits one month, else both ends in full."""
    compact = m.group(f"{p}_m1") is None
    same_month = (start.year, start.month) == (end.year, end.month)
    if start.year == end.year and (same_month or not compact):
        subs = {
            f"{p}_d1": str(start.day),
            f"{p}_d2": str(end.day),
            f"{p}_m2": MONTHS[end.month - 1],
            f"{p}_y": str(end.year),
        }
        if not compact:
            subs[f"{p}_m1"] = MONTHS[start.month - 1]
        return _splice(m, subs)
    head = f"{start.day} {MONTHS[start.month - 1]}"
    if start.year != end.year:
        head += f" {start.year}"
    tail = f"{end.day} {MONTHS[end.month - 1]} {end.year}"
    if p == "sr":
        return f"{m['sr_c']} {head} по {tail}"
    return f"{head} {m['dr_sep'].strip()} {tail}"


def _render_numeric_range(m: re.Match[str], start: date, end: date) -> str:
    """A shifted `12–16.09.2026`: the first end's month written where the range no longer
    fits one month (its year where not one year), digits padded as the last end's were."""
    fmt = "02d" if len(m["nr_d2"]) == 2 and len(m["nr_m2"]) == 2 else "d"

    def day_month(day: date) -> str:
        return f"{day.day:{fmt}}.{day.month:{fmt}}"

    if start.year != end.year:
        head = f"{day_month(start)}.{start.year}"
    elif m["nr_m1"] is None and start.month == end.month:
        head = format(start.day, fmt)
    else:
        head = day_month(start)
    return f"{head}{m['nr_sep']}{day_month(end)}.{end.year}"


def _render(m: re.Match[str], new: tuple[date, ...]) -> str:
    """The match rewritten with the shifted dates, in its original spelling."""
    kind = m.lastgroup
    if kind == "nr":
        return _render_numeric_range(m, new[0], new[1])
    if kind in RANGES:
        return _render_range(m, kind, new[0], new[1])
    day = new[0]
    if kind == "w":
        subs = {"w_d": str(day.day), "w_m": MONTHS[day.month - 1], "w_y": str(day.year)}
    elif kind == "n":
        fmt = "02d" if len(m["n_d"]) == 2 and len(m["n_m"]) == 2 else "d"
        subs = {"n_d": format(day.day, fmt), "n_m": format(day.month, fmt), "n_y": str(day.year)}
    else:
        subs = {"i_y": f"{day.year:04d}", "i_m": f"{day.month:02d}", "i_d": f"{day.day:02d}"}
    return _splice(m, subs)


def _shift_match(m: re.Match[str], days: int) -> str:
    dates = _match_dates(m)
    if dates is None:
        return m.group(0)
    try:
        new = tuple(d + timedelta(days=days) for d in dates)
    except OverflowError:
        return m.group(0)
    return _render(m, new)


def _iso_date(value: str) -> date | None:
    """The date of an exact 'YYYY-MM-DD' string, else None."""
    if not _ISO_RE.fullmatch(value):
        return None
    return _make_date(int(value[:4]), int(value[5:7]), int(value[8:]))


def _iter_strings(value: Any) -> Iterator[str]:
    """Every string value inside nested dicts and lists (keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _iter_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _iter_strings(item)


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """A copy of nested dicts and lists with fn applied to every string value."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, fn) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, fn) for item in value]
    return copy.deepcopy(value)


def _prompt_dates(text: str) -> list[date]:
    found: list[date] = []
    for m in _PROMPT_RE.finditer(text):
        found.extend(_match_dates(m) or ())
    return found


def find_dates(test_data: TestData) -> list[date]:
    """Every date in the conditions and the start state (ISO values) and in the prompt (all
    spellings)."""
    dated = [test_data.get("conditions") or [], test_data.get("start_state") or []]
    found = [d for s in _iter_strings(dated) if (d := _iso_date(s))]
    task = test_data.get("task")
    if isinstance(task, str):
        found.extend(_prompt_dates(task))
    return found


def compute_shift(dates: list[date], today: date, min_lead_days: int = 7) -> int:
    """Days (a multiple of 7) that put the earliest date at least min_lead_days ahead."""
    if not dates:
        return 0
    deficit = (today + timedelta(days=min_lead_days) - min(dates)).days
    if deficit <= 0:
        return 0
    return -(-deficit // 7) * 7


def shift_prompt(text: str, days: int) -> str:
    """The prompt with every dated spelling moved by days; year-less dates untouched."""
    if days == 0:
        return text
    return _PROMPT_RE.sub(lambda m: _shift_match(m, days), text)


def _shift_iso(value: str, days: int) -> str:
    found = _iso_date(value)
    if found is None:
        return value
    try:
        return (found + timedelta(days=days)).isoformat()
    except OverflowError:
        return value


def shift_conditions(conditions: list[Condition], days: int) -> list[Condition]:
    """A new list of conditions with exact ISO date strings moved by days."""
    return [_map_strings(cond, lambda s: _shift_iso(s, days)) for cond in conditions]


def shift_task(test_data: TestData, today: date, min_lead_days: int = 7) -> tuple[TestData, int]:
    """A deep copy of test_data with prompt, conditions and start state shifted; also the
    days."""
    new = copy.deepcopy(test_data)
    days = compute_shift(find_dates(new), today, min_lead_days)
    if days:
        new["task"] = shift_prompt(new["task"], days)
        new["conditions"] = shift_conditions(new["conditions"], days)
        if "start_state" in new:
            new["start_state"] = _map_strings(new["start_state"], lambda s: _shift_iso(s, days))
    return new, days
