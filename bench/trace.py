"""Traces of the reference solver: every request its browser sends under `/t/{tid}/` while
it solves a task, for `bench.concurrency` to replay over plain HTTP.

    .venv/bin/python -m bench.trace record    # a fresh stack and Chromium; writes bench/traces/

A trace is a list of steps `{method, path, body, kind}` (plus `accept` where the page's script
asks for JSON): `{tid}` stands for the trajectory id wherever it appears; an `_events` path
carries no page token (the replayer takes the token from the page it last loaded, as the
page does); `body` is the form's fields or the posted JSON; `kind` is `page` (a document
loaded), `event` (a post to `_events`) or `action` (a form post, a cart or search call, a
download). Static files (scripts, styles, images) are left out: a browser caches them.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from playwright.async_api import Browser, BrowserContext, Download, Request, async_playwright

from bench.common import fresh_stack
from runner.harnesses.harness import Episode
from runner.harnesses.oracle import OracleHarness
from runner.hub import HubClient
from runner.stack import chromium
from services.core.tasks import load_task

TRACES = Path(__file__).parent / "traces"
TASKS = Path(__file__).resolve().parent.parent / "tasks" / "canonical"
# One task per site: a grocery cart, a market cart with favourites, a books search, a hotel
# search, a rail ticket to the cart, a file download.
RECORDED = (
    "grocery/grocery_several_units",
    "shop/shop_cart_fav_coffee",
    "books/books_search_rudneva_island",
    "hotels/hotels_search_zurich",
    "rail/rail_cart_econom",
    "files/files_download_air_csv",
)
LOADED = {"document"}  # resource types of a page load (a GET) or a form post (a POST)
CALLED = {"fetch", "xhr", "ping"}  # resource types of a page script's own requests


def form_fields(request: Request) -> dict[str, str]:
    """The fields of a form post, url-encoded or multipart (what `FormData` sends)."""
    raw = request.post_data_buffer or b""
    kind = request.headers.get("content-type", "")
    if kind.startswith("multipart/"):
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {kind}\r\n\r\n".encode() + raw
        )
        return {
            str(part.get_param("name", header="content-disposition")): part.get_content()
            for part in message.iter_parts()
        }
    return dict(parse_qsl(raw.decode()))


def step(request: Request | Download) -> dict[str, Any] | None:
    """The trace step of one request; None for a static file. A file the browser downloads
    (a link to an attachment) sends no `request` event: its download stands for it."""
    url = urlsplit(request.url)
    path = url.path
    if isinstance(request, Download):
        return {
            "method": "GET",
            "path": f"{path}?{url.query}".rstrip("?"),
            "body": None,
            "kind": "action",
        }
    if path.endswith("/_events"):
        return {"method": "POST", "path": path, "body": request.post_data_json, "kind": "event"}
    if request.resource_type not in LOADED | CALLED:
        return None
    if url.query:
        path += f"?{url.query}"
    kind = "page" if request.method == "GET" and request.resource_type in LOADED else "action"
    found: dict[str, Any] = {
        "method": request.method,
        "path": path,
        "body": form_fields(request) if request.method == "POST" else None,
        "kind": kind,
    }
    if "application/json" in request.headers.get("accept", ""):
        found["accept"] = "application/json"
    return found


async def record_task(
    hub: HubClient, url: str, browser: Browser, seen: list[Request | Download], name: str
) -> None:
    """Solve one task with the oracle and write the requests `seen` meanwhile as its trace;
    the final check must pass."""
    task = load_task(TASKS / f"{name}.json")
    created = await hub.create(task, name.split("/")[-1])
    tid = created.trajectory_id
    meta = await hub.trajectory(tid)
    seen.clear()
    episode = Episode(
        task_id=name,
        prompt=created.prompt,
        url=created.url,
        first_domain=meta.first_domain,
        time_limit_s=120,
        browser=browser,
        conditions=meta.conditions,
    )
    await OracleHarness().run(episode)
    verdict = await hub.check(tid)
    if verdict.ems != 1:
        raise RuntimeError(f"{name}: the oracle did not solve it: {verdict}")
    prefix = f"{url.rstrip('/')}/t/{tid}/"
    steps = [s for r in seen if r.url.startswith(prefix) and (s := step(r))]
    out = TRACES / f"{name.split('/')[-1]}.json"
    out.write_text(json.dumps(steps, ensure_ascii=False, indent=1).replace(tid, "{tid}") + "\n")
    print(f"{out.name}: {len(steps)} steps")


async def record() -> None:
    """Every task of RECORDED on one fresh stack, in one Chromium whose contexts (the oracle
    opens one per task) report each request they send."""
    TRACES.mkdir(exist_ok=True)
    seen: list[Request | Download] = []
    with fresh_stack() as stack:
        async with (
            HubClient.connect(stack.hub_url, stack.token) as hub,
            async_playwright() as playwright,
        ):
            browser = await chromium.launch(playwright)

            def watch(context: BrowserContext) -> None:
                context.on("request", lambda request: seen.append(request))
                context.on("page", lambda page: page.on("download", lambda d: seen.append(d)))

            browser.on("context", watch)
            for name in RECORDED:
                await record_task(hub, stack.hub_url, browser, seen, name)
            await browser.close()


@dataclass
class Trace:
    """A recorded task: its name, the task (what the runner posts to create a trajectory
    for it) and the steps its solver's browser took."""

    name: str
    task: dict[str, Any]
    steps: list[dict[str, Any]]


def load() -> list[Trace]:
    """The committed traces."""
    return [
        Trace(
            path.stem,
            load_task(next(TASKS.glob(f"*/{path.stem}.json"))),
            json.loads(path.read_text()),
        )
        for path in sorted(TRACES.glob("*.json"))
    ]


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python -m bench.trace record")
    asyncio.run(record())
