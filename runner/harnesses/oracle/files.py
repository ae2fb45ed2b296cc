"""Oracle for Файлы: open a collection, choose a year, download a file, under every control.

It plans from the conditions (collection, year, file names) and reads the rest from the
page: `data-collection` on the collection links, the year control's options, and
`data-file-name` on the file rows. A file whose collection or year the conditions do not
name is looked for collection by collection, year by year, as a person would.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator

from runner.harnesses.oracle.ui import UI
from services.core.matching import value_matches
from services.core.models.events import Condition, Parameters

SELECT_COLLECTION = "bench_files_select_collection"
SELECT_YEAR = "bench_files_select_year"
DOWNLOAD = "bench_files_download"


def _params(conditions: list[Condition], name: str) -> list[Parameters]:
    return [c.get("parameters") or {} for c in conditions if c["event_name"] == name]


async def solve(ui: UI, conditions: list[Condition]) -> None:
    known = {SELECT_COLLECTION, SELECT_YEAR, DOWNLOAD, "state_changed"}
    for condition in conditions:
        if condition["event_name"] not in known:
            raise ValueError(f"the files oracle cannot satisfy {condition['event_name']!r}")
    collection = next((p["collection"] for p in _params(conditions, SELECT_COLLECTION)), None)
    for state in _params(conditions, "state_changed"):
        if state.get("new_state") == "bench_files_collection" and collection is None:
            collection = state.get("collection", "*")
    year = next((p["year"] for p in _params(conditions, SELECT_YEAR)), None)
    downloads = [p.get("file_name", "*") for p in _params(conditions, DOWNLOAD)]

    if collection is not None:
        await open_collection(ui, collection)
    if year is not None:
        if collection is None:
            await find_collection_with_year(ui, year)
        await choose_year(ui, year)
    for name in downloads:
        row = await file_row(ui, name)
        if row is None:
            row = await search_file(ui, name)
        await download(ui, row)
    states = [s.get("new_state") for s in _params(conditions, "state_changed")]
    if "bench_files_cabinet" in states:
        await go_to_cabinet(ui)


async def go_to_cabinet(ui: UI) -> None:
    await ui.click(ui.page.locator("a.f-logo"))


async def collection_ids(ui: UI) -> list[str]:
    """The collections the cabinet lists, in its order."""
    if not await ui.page.locator(".wc").count():
        await go_to_cabinet(ui)
    ids = await ui.page.locator(".wc [data-collection]").evaluate_all(
        "els => els.map(el => el.dataset.collection)"
    )
    return list(dict.fromkeys(ids))


async def open_collection(ui: UI, wanted: Any) -> None:
    ids = await collection_ids(ui)
    target = next((cid for cid in ids if value_matches(wanted, cid)), None)
    if target is None:
        raise LookupError(f"no collection {wanted!r} among {ids}")
    widget = ui.page.locator(".wc")
    impl = await widget.get_attribute("data-widget")
    if impl == "compact":
        await ui.click(widget.locator("summary"))
    link = widget.locator(f'[data-collection="{target}"] a.wc-link')
    await ui.click(link)


async def year_options(ui: UI) -> list[str]:
    form = ui.page.locator("form.wy")
    values: list[str] = await form.locator(
        "select[name=year] option, button[name=year], input[name=year][type=radio]"
    ).evaluate_all("els => els.map(el => el.value)")
    return [value for value in values if value]


async def choose_year(ui: UI, wanted: Any) -> None:
    options = await year_options(ui)
    year = next((y for y in options if value_matches(wanted, int(y))), None)
    if year is None:
        raise LookupError(f"no year {wanted!r} among {options}")
    form = ui.page.locator("form.wy")
    impl = await form.get_attribute("data-widget")
    if impl == "buttons":
        await ui.click(form.locator(f'button[name=year][value="{year}"]'))
        return
    if impl == "radio":
        await ui.click(form.locator(f'input[name=year][value="{year}"]'))
    else:
        await form.locator("select[name=year]").select_option(year)
        ui.steps += 1
    await ui.click(form.get_by_role("button", name="Показать файлы"))


async def find_collection_with_year(ui: UI, wanted: Any) -> None:
    for cid in await collection_ids(ui):
        await open_collection(ui, cid)
        if any(value_matches(wanted, int(y)) for y in await year_options(ui)):
            return
    raise LookupError(f"no collection has the year {wanted!r}")


async def file_row(ui: UI, wanted: Any) -> Locator | None:
    rows = ui.page.locator("li.f-file")
    names = await rows.evaluate_all("els => els.map(el => el.dataset.fileName)")
    for index, name in enumerate(names):
        if value_matches(wanted, name):
            return rows.nth(index)
    return None


async def search_file(ui: UI, wanted: Any) -> Locator:
    """Every collection, every year, until a row with the file shows up."""
    for cid in await collection_ids(ui):
        await open_collection(ui, cid)
        for year in await year_options(ui):
            await choose_year(ui, int(year))
            row = await file_row(ui, wanted)
            if row is not None:
                return row
        await go_to_cabinet(ui)
    raise LookupError(f"no file {wanted!r} in the cabinet")


async def download(ui: UI, row: Locator) -> None:
    """Click the row's download control (whatever its implementation) and wait for the file."""
    control = row.locator(".wb")
    impl = await control.get_attribute("data-widget")
    if impl == "split":
        await ui.click(control.locator(".wb-more"))
        target = control.get_by_role("menuitem", name="Скачать")
    elif impl == "solid":
        target = control.locator("button")
    else:  # outline, icon: the link itself; clickables=divs: the div
        target = control
    async with ui.page.expect_download() as info:
        await ui.click(target)
    await (await info.value).path()
