"""The screenshots' table (bench/screenshots.py) against the sites as they are, without a
browser: every declared site in tab order, every screen and every preparing request a
route of its site, and every image the table names checked in under docs/sites/ with the
README the table writes. A screen added to the table fails here until `make screenshots`
ran."""

from __future__ import annotations

import importlib
from urllib.parse import urlsplit

import pytest
from starlette.routing import compile_path

from bench import screenshots
from services.core.sites import registry
from services.kit.settings import SiteSettings
from services.kit.site import site_prefix


def test_every_site_is_shot_in_tab_order() -> None:
    assert list(screenshots.SHOTS) == list(registry().captions)
    assert set(screenshots.PREPARE) <= set(screenshots.SHOTS)
    assert {site for pair in screenshots.BESIDE for site in pair} <= set(screenshots.SHOTS)


def served_by(paths: dict[str, dict[str, object]], method: str, path: str) -> str | None:
    """The template of the route that answers `method path` first, by the app's OpenAPI
    document (its paths in the order the app tries them)."""
    for template, operations in paths.items():
        if method.lower() in operations and compile_path(template)[0].fullmatch(path):
            return template
    return None


@pytest.mark.parametrize("domain", list(screenshots.SHOTS))
def test_every_screen_and_step_is_a_route_of_its_site(domain: str) -> None:
    factory = importlib.import_module(registry().by_domain[domain].app).create_app
    app = factory(SiteSettings(service_token="screenshots-" * 2))  # built, never served
    paths = app.openapi()["paths"]
    prefix = site_prefix(domain)
    requests = [("GET", shot.path) for shot in screenshots.SHOTS[domain]]
    requests += [
        ("GET" if form is None else "POST", path)
        for path, form in screenshots.PREPARE.get(domain, [])
    ]
    for method, path in requests:
        served = served_by(paths, method, prefix.replace("{tid}", "t") + urlsplit(path).path)
        assert served is not None, f"{domain}: no route answers {method} {path}"
        # not a site's catch-all (files answers every other path with its «no such page»)
        assert not served.removeprefix(prefix).startswith("/{"), (method, path, served)


def test_the_images_are_checked_in_with_their_readme() -> None:
    missing = [
        screenshots.image(domain, shot, screen)
        for domain, shots in screenshots.SHOTS.items()
        for shot in shots
        for screen in screenshots.VIEWPORTS
        if not (screenshots.FOLDER / screenshots.image(domain, shot, screen)).is_file()
    ]
    assert not missing, "run make screenshots"
    assert screenshots.README.read_text(encoding="utf-8") == screenshots.readme()
