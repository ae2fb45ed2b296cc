"""Site state lives in JetStream KV: the cart survives a restart of the grocery process. The
module has a stack of its own: the shared one never loses its grocery site."""

from __future__ import annotations

import httpx
from support.http import create

from runner.stack.stack import Stack


def test_cart_survives_a_restart(own_hub: httpx.Client, own_stack: Stack) -> None:
    tid = create(own_hub).trajectory_id
    url = f"{own_stack.hub_url}/t/{tid}/grocery/cart/g-0010"
    for _ in range(2):
        httpx.post(
            url, data={"op": "inc"}, headers={"Accept": "application/json"}
        ).raise_for_status()
    own_stack.restart("site-grocery")
    cart = httpx.get(f"{own_stack.hub_url}/t/{tid}/grocery/cart").text
    assert 'data-item="g-0010" data-amount="2"' in cart
    answer = httpx.post(url, data={"op": "inc"}, headers={"Accept": "application/json"})
    assert answer.json()["amount"] == 3
