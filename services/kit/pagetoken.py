"""Page tokens: proof that a page was served to a trajectory, for the events it posts.

Every page a site (or the hub) renders carries a token in `<meta name="wpb-page">`, signed
with the stand's service credential. It names the trajectory, the domain, the screen (the
template) and the page event types the page's controls write (the `data-event` of each
control in the rendered HTML), and expires after `TTL_S`. `_events` accepts a post only with
a token for its trajectory and domain, and a semantic event only of a type the token names:
an event needs a page that shows its control, served to this trajectory.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass

from services.core.errors import FieldError

TTL_S = 3600  # longer than any task's time limit, short enough not to outlive a run
# The controls a page renders: the element of each writes `data-event="<type>"`, an attribute
# after the tag's name or another attribute (the leading space is a literal the scan looks for:
# ten times faster on a page of 60 KB than a word boundary).
CONTROL = re.compile(r' data-event="([a-z_]+)"')
# What the page shell holds until the page's token is known (the token names its controls).
PLACEHOLDER = "wpb-page-token-placeholder"
# The shell's `<meta>` of the page's base path and of its token.
META = re.compile(r'<meta name="wpb-(base|page)" content="([^"]*)">')


@dataclass(frozen=True)
class Grant:
    """What a valid token allows: events of its trajectory and domain, of these types."""

    screen: str
    types: frozenset[str]


def _sign(key: str, payload: str) -> str:
    digest = hmac.new(key.encode(), f"wpb-page:{payload}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def issue(key: str, trajectory_id: str, domain: str, screen: str, html: str) -> str:
    """The token of a page rendered as `html`, for `screen` of `domain` in a trajectory."""
    claims = {
        "t": trajectory_id,
        "d": domain,
        "s": screen,
        "w": sorted(set(CONTROL.findall(html))),
        "e": int(time.time()) + TTL_S,
    }
    raw = json.dumps(claims, separators=(",", ":")).encode()
    payload = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return f"{payload}.{_sign(key, payload)}"


def with_token(key: str, trajectory_id: str, domain: str, screen: str, html: str) -> str:
    """`html` with its placeholder replaced by the page's token."""
    return html.replace(PLACEHOLDER, issue(key, trajectory_id, domain, screen, html), 1)


def events_url(html: str) -> str:
    """Where the page served as `html` posts its events, its token included (what
    services/kit/static/emit.js posts to)."""
    meta = dict(META.findall(html))
    return f"{meta['base']}/_events?page={meta['page']}"


def verify(key: str, token: str, trajectory_id: str, domain: str) -> Grant:
    """The grant of a token for this trajectory and domain; a 403 `FieldError` naming `page`
    when it is missing, forged, for another page or expired."""
    payload, _, signature = token.partition(".")
    if not token:
        raise FieldError("page", "no page token: post events from a page of this site", 403)
    if not (token.isascii() and hmac.compare_digest(signature, _sign(key, payload))):
        raise FieldError("page", "not a token this stand issued", 403)
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    if claims["t"] != trajectory_id or claims["d"] != domain:
        raise FieldError("page", "the token is for another trajectory or site", 403)
    if claims["e"] < time.time():
        raise FieldError("page", "the page token expired: reload the page", 403)
    return Grant(claims["s"], frozenset(claims["w"]))
