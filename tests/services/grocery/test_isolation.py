"""Two trajectories filling carts at once never see each other's state or events."""

from __future__ import annotations

import asyncio

import httpx
from support.http import create, run_async, wait_events


def test_parallel_carts_are_isolated(hub: httpx.Client, stack) -> None:
    a, b = create(hub).trajectory_id, create(hub).trajectory_id
    plan = {a: ["g-0002", "g-0010", "g-0002"], b: ["g-0003", "g-0003", "g-0003", "g-0004"]}

    async def fill(client: httpx.AsyncClient, tid: str) -> None:
        for item in plan[tid]:
            answer = await client.post(
                f"/t/{tid}/grocery/cart/{item}",
                data={"op": "inc"},
                headers={"Accept": "application/json"},
            )
            answer.raise_for_status()

    async def both() -> None:
        async with httpx.AsyncClient(base_url=stack.hub_url) as client:
            for _ in range(5):  # interleave many requests of both
                await asyncio.gather(fill(client, a), fill(client, b))

    run_async(both())
    for tid, other in ((a, b), (b, a)):
        page = httpx.get(f"{stack.hub_url}/t/{tid}/grocery/cart").text
        mine = set(plan[tid])
        theirs = set(plan[other]) - mine
        assert all(f'data-item-id="{item}"' in page for item in mine)
        assert not any(f'data-item-id="{item}"' in page for item in theirs)
        events = wait_events(hub, tid)
        assert all(e["trajectory_id"] == tid for e in events)
        items = {e["params"]["item_id"] for e in events if e["type"] == "basket_add"}
        assert items == mine
        finals = {}
        for e in events:
            if e["type"] == "basket_add":
                finals[e["params"]["item_id"]] = e["params"]["amount"]
        assert finals == {item: plan[tid].count(item) * 5 for item in mine}
