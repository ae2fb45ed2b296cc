"""Site state lives in JetStream KV: the cart survives a restart of the grocery process."""

from __future__ import annotations

import httpx
import pytest
from helpers import create

pytestmark = pytest.mark.slow


def test_cart_survives_a_restart(hub: httpx.Client, stack) -> None:
    tid = create(hub)["trajectory_id"]
    url = f"{stack.hub_url}/t/{tid}/grocery/cart/g-0010"
    for _ in range(2):
        httpx.post(
            url, data={"op": "inc"}, headers={"Accept": "application/json"}
        ).raise_for_status()
    stack.restart("site-grocery")
    cart = httpx.get(f"{stack.hub_url}/t/{tid}/grocery/cart").text
    assert 'data-item="g-0010" data-amount="2"' in cart
    answer = httpx.post(url, data={"op": "inc"}, headers={"Accept": "application/json"})
    assert answer.json()["amount"] == 3
