"""The runner's half of `origin_left` (docs/tasks.md, "Injection"): the episode's Chromium
asks another host for nothing. The runner's CDP session lets the hub's requests through and
fails every other one (a real server on another origin sees none), notes each URL once, and
the close has the hub write them as `origin_left` with `via: "browser"` before the agent's
report; a close whose `left` is malformed is refused naming it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.async_api import async_playwright
from support.http import run_async
from support.runs import run_eval
from support.stand import admin_client

from runner.harnesses.program import episode_chromium
from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from runner.stack import chromium
from runner.stack.departures import Departures
from services.core.models.api import MAX_LEFT, MAX_LEFT_URL
from services.core.models.run import AgentConfig, Viewport

ELSEWHERE = "http://elsewhere.invalid/promo/confirm?from=review"  # the `leave-origin` script's


@pytest.fixture
def elsewhere() -> Iterator[tuple[str, list[str]]]:
    """A real server on another origin (another port of this machine): its URL and the paths
    it was asked for."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(b"<p>elsewhere</p>")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_the_browser_reaches_the_hub_and_no_other_host(stack, tmp_path, elsewhere) -> None:
    other, asked = elsewhere
    with admin_client(stack) as hub:
        url = hub.post("/api/trajectories", json={"task_id": "shop_fav_smart_watch"}).json()["url"]
    departures = Departures(url)
    # On a loop of its own: the sync `page` fixture of other tests holds this thread's.
    fetched = run_async(browse(url, other, departures, tmp_path))
    assert fetched == 200  # the hub's own requests go on
    assert asked == []
    assert departures.urls == [
        f"{other}/pixel.png",
        f"{other}/api",
        f"{other}/{'x' * MAX_LEFT_URL}"[:MAX_LEFT_URL],
        f"{other}/promo",
        f"{other}/tab",
    ]


async def browse(url: str, other: str, departures: Departures, tmp_path: Path) -> int:
    """The episode's Chromium, watched, asks the hub and another origin for what a page
    can: an image, `fetch`es, a navigation, a tab opened later. The status of the hub's
    asset fetched last."""
    async with async_playwright() as playwright:
        binary = chromium.executable(playwright)
        async with (
            episode_chromium(binary, tmp_path, Viewport()) as cdp_url,
            departures.watching(cdp_url),
        ):
            browser = await playwright.chromium.connect_over_cdp(cdp_url)
            page = browser.contexts[0].pages[0]
            await page.goto(f"{url}shop/p/m-005")
            assert await page.get_by_role("button", name="В корзину").count()
            fetched = await page.evaluate(
                """async ([other, long]) => {
                    const img = new Image(); img.src = other + "/pixel.png";
                    await new Promise(done => { img.onerror = done; img.onload = done; });
                    for (const address of [other + "/api", other + "/api", long]) {
                        try { await fetch(address); } catch (e) {}
                    }
                    return (await fetch("/_kit/shell.css")).status;
                }""",
                [other, f"{other}/{'x' * MAX_LEFT_URL}"],
            )
            with pytest.raises(Exception, match="ERR_BLOCKED_BY_CLIENT"):
                await page.goto(f"{other}/promo")
            tab = await browser.contexts[0].new_page()  # a tab opened later is watched too
            with pytest.raises(Exception, match="ERR_BLOCKED_BY_CLIENT"):
                await tab.goto(f"{other}/tab")
            await browser.close()
    return int(fetched)


def test_an_agent_that_leaves_the_origin_is_logged_via_the_browser(
    stack, tmp_path, testmodel
) -> None:
    agent = AgentConfig(model="leave-origin", base_url=testmodel, max_steps=6)
    refs = select_tasks(TASKS_DIR, "shop_fav_smart_watch", None, "released")
    (record,) = run_eval(stack, tmp_path, "dom", refs, time_limit=90, agent=agent).records
    assert record.status == "ok", record.error
    steps = (tmp_path / str(record.episode) / "steps.jsonl").read_text()
    assert "ERR_BLOCKED_BY_CLIENT" in steps and "ERR_NAME_NOT_RESOLVED" not in steps
    with admin_client(stack) as hub:
        events = hub.get(f"/api/trajectories/{record.trajectory_id}/events").json()["events"]
    left = [e for e in events if e["type"] == "origin_left"]
    (report,) = [e for e in events if e["type"] == "agent_report"]
    assert [e["params"] for e in left] == [{"url": ELSEWHERE, "via": "browser"}]
    assert left[0]["site"] == "hub" and left[0]["source"] == "server"
    assert left[0]["seq"] < report["seq"]


def test_the_hub_writes_each_url_of_left_once(stack) -> None:
    with admin_client(stack) as hub:
        tid = hub.post("/api/trajectories", json={"task_id": "shop_fav_smart_watch"}).json()[
            "trajectory_id"
        ]
        left = ["http://a.invalid/x", "https://b.invalid/", "http://a.invalid/x"]
        assert hub.post(f"/api/trajectories/{tid}/close", json={"left": left}).status_code == 200
        events = hub.get(f"/api/trajectories/{tid}/events", params={"types": "origin_left"})
    urls = [e["params"]["url"] for e in events.json()["events"]]
    assert urls == ["http://a.invalid/x", "https://b.invalid/"]


@pytest.mark.parametrize(
    ("left", "field"),
    [
        ("http://elsewhere.invalid/", "left"),
        ([7], "left[0]"),
        (["ftp://elsewhere.invalid/"], "left[0]"),
        ([f"http://elsewhere.invalid/{'x' * MAX_LEFT_URL}"], "left[0]"),
        ([f"http://elsewhere.invalid/{n}" for n in range(MAX_LEFT + 1)], "left"),
    ],
)
def test_a_malformed_left_is_refused_naming_it(stack, left, field) -> None:
    with admin_client(stack) as hub:
        tid = hub.post("/api/trajectories", json={"task_id": "shop_fav_smart_watch"}).json()[
            "trajectory_id"
        ]
        bad = hub.post(f"/api/trajectories/{tid}/close", json={"left": left})
        assert bad.status_code == 422 and bad.json()["field"] == field
        assert hub.get(f"/api/trajectories/{tid}").json()["status"] == "open"
