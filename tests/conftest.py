"""Shared fixtures: one real embedded stack (nats-server + every service) per test session,
one of their own for modules that kill or restart a service, and one real Chromium. Nothing
of our own is mocked.

The marks `slow`, `browser` and `docker`, the phases and the time each took come from the
fixtures a test uses (tests/support/marks.py, a plugin of this session).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from support.pages import SCREENS, cover_screens
from support.stand import admin_client, running_stack

from runner.models.testmodel.process import background
from runner.stack.chromium import ARGS, chromium_path, context_options
from runner.stack.stack import Stack

pytest_plugins = ["support.marks", "pytester"]

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    cover_screens(items)


# -- the stand and the browser --------------------------------------------------------


@pytest.fixture(scope="session")
def stack(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("wpb-home")) as started:
        yield started


@pytest.fixture(scope="session")
def hub(stack: Stack) -> Iterator[httpx.Client]:
    """The runner's view: the hub with the admin token."""
    with admin_client(stack) as client:
        yield client


@pytest.fixture(scope="module")
def own_stack(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack of the module's own, for tests that kill or restart a service: the shared
    `stack` never sees them."""
    with running_stack(tmp_path_factory.mktemp("wpb-own")) as started:
        yield started


@pytest.fixture(scope="module")
def own_hub(own_stack: Stack) -> Iterator[httpx.Client]:
    """The runner's view of `own_stack`."""
    with admin_client(own_stack) as client:
        yield client


@pytest.fixture(scope="session")
def agent(stack: Stack) -> Iterator[httpx.Client]:
    """The agent's view: the hub without any token."""
    with httpx.Client(base_url=stack.hub_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def browser(processes: None) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(playwright), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(**context_options(), accept_downloads=True)
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    yield opened
    context.close()


@pytest.fixture(params=SCREENS, ids=lambda screen: f"{screen.width}x{screen.height}")
def screen_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page in a context as the runner's oracle gets one, at the default viewport and at a
    phone's (a mobile context with touch); `page.viewport_size` says which."""
    context = browser.new_context(**context_options(request.param), accept_downloads=True)
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    yield opened
    context.close()


@pytest.fixture(scope="session")
def testmodel(processes: None) -> Iterator[str]:
    """The deterministic test model (`runner testmodel`) as a real server; its base URL."""
    with background() as base_url:
        yield base_url
