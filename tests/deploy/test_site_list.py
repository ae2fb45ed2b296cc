"""The images and the compose stand list exactly the declared sites (services/core/sites.py
`registry`): the Dockerfile copies every site's descriptor into the shared service stage and
has a stage per site that runs its app; compose.yaml runs a service per site and hands the
hub every site's address. No Docker engine needed: the files are read, not run."""

from __future__ import annotations

import json
import re

import yaml

from runner.settings import REPO
from services.core.sites import registry


def packages() -> dict[str, str]:
    """domain -> the site's package folder under services/ (`shop` -> `market`)."""
    found = {}
    for site in registry().sites:
        package, _, module = site.app.rpartition(".")
        assert package.startswith("services.") and module == "app", site.app
        found[site.domain] = package.removeprefix("services.")
    return found


def stages(dockerfile: str) -> dict[str, str]:
    """Each stage of the Dockerfile by name, its text."""
    parts = re.split(r"^FROM \S+ AS (\S+)\n", dockerfile, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_dockerfile_holds_every_declared_site_and_no_other() -> None:
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    by_stage = stages(text)
    sites = packages()
    descriptors = re.findall(r"^COPY services/(\w+)/__init__.py services/\1/plugin.py", text, re.M)
    assert sorted(descriptors) == sorted(sites.values())
    assert "RUN python /tmp/sites.py /tmp/pyproject.toml /app" in by_stage["service"]
    apps = {
        name: found.group(1)
        for name, body in by_stage.items()
        if (found := re.search(r'^CMD \["([\w.]+):create_app"\]', body, re.M))
    }
    core = {"hub", "events", "verifier"}
    declared = {site.app.split(".")[1]: site.app for site in registry().sites}
    assert {name: app for name, app in apps.items() if name not in core} == declared
    for package in sites.values():
        assert f"COPY services/{package} services/{package}" in by_stage[package]


def test_compose_runs_every_declared_site_and_the_hub_reaches_each() -> None:
    compose = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    sites = packages()
    built = {name for name, spec in services.items() if "build" in spec}
    others = {"credentials", "nats", "events", "verifier", "hub", "prometheus", "testmodel"}
    assert built - others == set(sites.values())
    hub = services["hub"]
    addresses = json.loads(hub["environment"]["WPB_SITES"])
    assert addresses == {domain: f"http://{package}:8000" for domain, package in sites.items()}
    assert set(sites.values()) <= set(hub["depends_on"])
    for package in sites.values():
        assert services[package]["build"]["target"] == package
